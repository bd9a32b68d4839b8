// SPDX-License-Identifier: MIT
/* Output files a privileged process may open safely (see loadlens/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "loadlens/cli.h"
#include "loadlens/outfile.h"

/* Why an existing file is refused, or NULL if it may be written. */
static const char *refuse(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "it is a symbolic link, which is never followed (name the file itself)";
	if (!S_ISREG(st->st_mode))
		return "it exists and is not a regular file";
	if (st->st_nlink > 1)
		return "it has other hard links, so writing it would change another file too";
	return NULL;
}

/* Why an open file on a kernel's pseudo filesystem (/proc, /sys, ...) is refused: its "regular"
 * files are the kernel's controls, and a write fails or changes a setting. NULL if it may be. */
static const char *refuse_fs(int fd)
{
	struct statfs fs;

	if (fstatfs(fd, &fs))
		return NULL;
	switch ((unsigned long)fs.f_type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case BPF_FS_MAGIC:
	case SECURITYFS_MAGIC:
		return "it is a kernel file (/proc, /sys, cgroup, bpf, tracing), not a place for "
		       "output";
	default:
		return NULL;
	}
}

/* The invoking user's id from sudo's environment, if root runs us under sudo. */
static bool sudo_id(const char *name, unsigned long *out)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out > 0 && *out < 0xffffffffUL;
}

int ll_output_open_fd(const char *prog, const char *what, const char *path)
{
	const int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	struct stat lst, st;
	const char *why;
	unsigned long uid, gid;
	bool existed;
	int fd, err;

	if (!lstat(path, &lst)) {
		existed = true;
		why = refuse(&lst);
		if (why) {
			ll_warn(prog, "refusing %s '%s': %s", what, path, why);
			errno = S_ISLNK(lst.st_mode) ? ELOOP : EINVAL;
			return -1;
		}
	} else if (errno == ENOENT) {
		existed = false;
	} else {
		err = errno;
		ll_warn(prog, "cannot create %s file '%s': %s", what, path, strerror(err));
		errno = err;
		return -1;
	}
	/* a new file is created exclusively: a link planted after the lstat fails with EEXIST */
	fd = existed ? open(path, flags) : open(path, flags | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		err = errno;
		if (err == ELOOP)
			ll_warn(prog, "refusing %s '%s': it became a symbolic link while being "
				      "opened", what, path);
		else if (err == EEXIST)
			ll_warn(prog, "refusing %s '%s': it appeared while being created", what,
				path);
		else
			ll_warn(prog, "cannot create %s file '%s': %s", what, path,
				strerror(err));
		errno = err;
		return -1;
	}
	err = 0;
	if (fstat(fd, &st)) {
		err = errno;
		ll_warn(prog, "cannot create %s file '%s': %s", what, path, strerror(err));
	} else if ((why = refuse(&st)) || (why = refuse_fs(fd)) ||
		   (existed && (st.st_dev != lst.st_dev || st.st_ino != lst.st_ino))) {
		err = EINVAL;
		ll_warn(prog, "refusing %s '%s': %s", what, path,
			why ? why : "it was replaced while being opened");
	} else if (existed && ftruncate(fd, 0)) {
		err = errno;
		ll_warn(prog, "cannot truncate %s file '%s': %s", what, path, strerror(err));
	} else if (fcntl(fd, F_SETFL, 0)) { /* blocking writes from here */
		err = errno;
		ll_warn(prog, "cannot create %s file '%s': %s", what, path, strerror(err));
	}
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	/* root under sudo: the file the user asked for is theirs (still 0600) */
	if (!existed && geteuid() == 0 && sudo_id("SUDO_UID", &uid) &&
	    sudo_id("SUDO_GID", &gid) && fchown(fd, (uid_t)uid, (gid_t)gid))
		ll_warn(prog, "note: %s file '%s' stays root's: cannot give it to uid %lu: %s",
			what, path, uid, strerror(errno));
	return fd;
}

FILE *ll_output_open(const char *prog, const char *what, const char *path)
{
	FILE *f;
	int fd, err;

	fd = ll_output_open_fd(prog, what, path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		ll_warn(prog, "cannot create %s file '%s': %s", what, path, strerror(err));
		close(fd);
		errno = err;
	}
	return f;
}
