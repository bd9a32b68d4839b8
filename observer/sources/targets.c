// SPDX-License-Identifier: MIT
/* Target processes, cgroup and network namespace: resolved once, while privileged. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include "loadlens/cli.h"
#include "sources/fditer.h"
#include "sources/targets.h"

#define CGROUP2_MAGIC 0x63677270

bool obs_targets_pid_alive(uint32_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool alive = false;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		alive = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	}
	fclose(f);
	return alive;
}

const char *obs_targets_pid_comm(uint32_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	snprintf(buf, len, "?");
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf;
}

/* The parent of pid from /proc/PID/stat (0: gone or unreadable). */
static uint32_t target_ppid(uint32_t pid)
{
	char path[64], buf[512], *p;
	unsigned int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
		if (!p || sscanf(p + 1, " %*c %u", &ppid) != 1 || p[2] == 'Z' || p[2] == 'X')
			ppid = 0;
	}
	fclose(f);
	return ppid;
}

static bool in(const uint32_t *set, size_t n, uint32_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == pid)
			return true;
	return false;
}

size_t obs_targets_pid_descendants(const uint32_t *roots, size_t nroots, uint32_t *out, size_t max)
{
	uint32_t *pid = NULL, *ppid = NULL;
	size_t n = 0, cap = 0, nout = 0, i;
	struct dirent *de;
	bool more = true;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		unsigned long v = strtoul(de->d_name, &end, 10);

		if (!isdigit((unsigned char)de->d_name[0]) || *end || !v || v > UINT32_MAX)
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 1024;
			uint32_t *a = realloc(pid, nc * sizeof(*a)), *b;

			if (!a)
				break;
			pid = a;
			b = realloc(ppid, nc * sizeof(*b));
			if (!b)
				break;
			ppid = b;
			cap = nc;
		}
		pid[n] = (uint32_t)v;
		ppid[n] = target_ppid((uint32_t)v);
		if (ppid[n])
			n++;
	}
	closedir(d);
	/* children of a root or of one found already, until a pass finds none */
	while (more && nout < max) {
		more = false;
		for (i = 0; i < n && nout < max; i++) {
			if (in(roots, nroots, pid[i]) || in(out, nout, pid[i]))
				continue;
			if (in(roots, nroots, ppid[i]) || in(out, nout, ppid[i])) {
				out[nout++] = pid[i];
				more = true;
			}
		}
	}
	free(pid);
	free(ppid);
	return nout;
}

/* The cgroup2 mount point, from /proc/self/mountinfo. */
static int cgroup2_root(char *out, size_t len)
{
	char line[1024], mnt[512], fstype[64];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int err = -ENOENT;
	char *dash;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		dash = strstr(line, " - ");
		if (!dash || sscanf(dash + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1) {
			snprintf(out, len, "%s", mnt);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

static int resolve_cgroup(const char *prog, const char *spec, struct obs_targets *t)
{
	char root[512], *rp = NULL;
	struct statfs sfs;
	struct stat st;
	size_t rlen;
	const char *p;
	int err, n;

	err = cgroup2_root(root, sizeof(root));
	if (err) {
		ll_warn(prog, "--cgroup needs cgroup v2, and no cgroup2 file system is mounted; "
			      "mount one or use --pid");
		return -ENOENT;
	}
	if (spec[0] == '/' && !strncmp(spec, root, strlen(root)))
		n = snprintf(t->cgroup_path, sizeof(t->cgroup_path), "%s", spec);
	else
		n = snprintf(t->cgroup_path, sizeof(t->cgroup_path), "%s/%s", root,
			     spec + (spec[0] == '/'));
	if (n < 0 || (size_t)n >= sizeof(t->cgroup_path)) { /* never a cut path */
		ll_warn(prog, "--cgroup: the path is longer than %zu bytes",
			sizeof(t->cgroup_path) - 1);
		return -ENAMETOOLONG;
	}
	rp = realpath(t->cgroup_path, NULL);
	if (!rp || stat(rp, &st) || !S_ISDIR(st.st_mode) || statfs(rp, &sfs) ||
	    sfs.f_type != CGROUP2_MAGIC) {
		ll_warn(prog, "--cgroup '%s': %s is not a cgroup v2 directory (cgroup2 is mounted at "
			      "%s)", spec, t->cgroup_path, root);
		free(rp);
		return -ENOENT;
	}
	n = snprintf(t->cgroup_path, sizeof(t->cgroup_path), "%s", rp);
	free(rp);
	if (n < 0 || (size_t)n >= sizeof(t->cgroup_path)) {
		ll_warn(prog, "--cgroup: the resolved path is longer than %zu bytes",
			sizeof(t->cgroup_path) - 1);
		return -ENAMETOOLONG;
	}
	t->cgroup_id = st.st_ino; /* kernfs: the inode number is the cgroup id */
	rlen = strlen(root);
	t->cgroup_level = 0;
	for (p = t->cgroup_path + rlen; *p; p++)
		if (*p == '/' && p[1])
			t->cgroup_level++;
	return 0;
}

static int open_netns(struct obs_targets *t, uint32_t pid, const char *from)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	if (stat(path, &st))
		return -errno;
	t->netns = (uint32_t)st.st_ino;
	t->netns_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->netns_fd < 0)
		return -errno;
	snprintf(t->netns_from, sizeof(t->netns_from), "%s", from);
	return 0;
}

int obs_targets_resolve(const char *prog, const struct obs_target_spec *spec,
			struct obs_targets *t)
{
	char from[64];
	uint32_t first = 0;
	struct stat st;
	size_t i;
	int err;

	memset(t, 0, sizeof(*t));
	t->netns_fd = -1;
	for (i = 0; i < spec->npids; i++) {
		if (!obs_targets_pid_alive(spec->pids[i])) {
			ll_warn(prog, "--pid %u: no such process", spec->pids[i]);
			return -ESRCH;
		}
		t->pids[i] = spec->pids[i];
		obs_targets_pid_comm(spec->pids[i], t->comms[i], sizeof(t->comms[i]));
		obs_targets_refresh(t, i);
	}
	t->npids = spec->npids;
	if (spec->cgroup) {
		err = resolve_cgroup(prog, spec->cgroup, t);
		if (err)
			return err;
	}
	if (t->npids) {
		first = t->pids[0];
		snprintf(from, sizeof(from), "pid %u", first);
	} else if (t->cgroup_id && obs_targets_cgroup_pids(t, &first, 1)) {
		snprintf(from, sizeof(from), "cgroup (pid %u)", first);
	}
	if (first) {
		err = open_netns(t, first, from);
		if (err) {
			ll_warn(prog, "cannot open the network namespace of pid %u: %s", first,
				strerror(-err));
			return err;
		}
	} else {
		if (stat("/proc/self/ns/net", &st))
			return -errno;
		t->netns = (uint32_t)st.st_ino;
		snprintf(t->netns_from, sizeof(t->netns_from), "observer");
	}
	return 0;
}

void obs_targets_close(struct obs_targets *t)
{
	if (t->netns_fd >= 0)
		close(t->netns_fd);
	t->netns_fd = -1;
}

size_t obs_targets_cgroup_pids(const struct obs_targets *t, uint32_t *out, size_t max)
{
	char path[600];
	unsigned long v;
	size_t n = 0;
	FILE *f;

	if (!t->cgroup_id)
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", t->cgroup_path);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < max && fscanf(f, "%lu", &v) == 1)
		out[n++] = (uint32_t)v;
	fclose(f);
	return n;
}

/* Field 22 of /proc/PID/stat: when the process started, in clock ticks after boot; 0 if gone. */
static unsigned long long start_time(uint32_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* after "pid (comm)" come fields 3.. separated by spaces */
		for (field = 2; p && field < 21; field++)
			p = strchr(p + 1, ' ');
		if (p)
			start = strtoull(p + 1, NULL, 10);
	}
	fclose(f);
	return start;
}

void obs_targets_refresh(struct obs_targets *t, size_t i)
{
	struct fdc_task task;
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/exe", t->pids[i]);
	if (t->fdit) {
		/* after the drop /proc/PID/exe is closed to us: the iterator says which file */
		if (obs_fditer_task(t->fdit, t->pids[i], &task))
			return;
		n = readlink(path, t->exes[i], sizeof(t->exes[i]) - 1);
		if (n > 0)
			t->exes[i][n] = '\0';
		else if (task.exe_ino != t->exe_ino[i] || task.exe_dev != t->exe_dev[i])
			snprintf(t->exes[i], sizeof(t->exes[i]), "inode %llu",
				 (unsigned long long)task.exe_ino);
		t->exe_ino[i] = task.exe_ino;
		t->exe_dev[i] = task.exe_dev;
		t->starts[i] = start_time(t->pids[i]);
		return;
	}
	n = readlink(path, t->exes[i], sizeof(t->exes[i]) - 1);
	t->exes[i][n > 0 ? n : 0] = '\0';
	t->starts[i] = start_time(t->pids[i]);
}

/* find_restart from the task iterator: the same executable by inode. */
static uint32_t find_restart_iter(const struct obs_targets *t, size_t i)
{
	unsigned long long start, newest = 0;
	uint32_t found = 0, self = (uint32_t)getpid();
	struct fdc_task *all;
	ssize_t n, k;

	if (!t->exe_ino[i])
		return 0;
	all = calloc(65536, sizeof(*all));
	if (!all)
		return 0;
	n = obs_fditer_tasks(t->fdit, all, 65536);
	for (k = 0; k < n; k++) {
		if (all[k].tgid == t->pids[i] || all[k].tgid == self ||
		    all[k].exe_ino != t->exe_ino[i] || all[k].exe_dev != t->exe_dev[i])
			continue;
		start = start_time(all[k].tgid);
		if (start >= t->starts[i] && start >= newest) {
			newest = start;
			found = all[k].tgid;
		}
	}
	free(all);
	return found;
}

/*
 * A process running the same executable that started after target i did: the newest such one
 * (by start time, not pid, which wraps). The executable is the one last seen while the target
 * lived, so a target that exec'd (a shell wrapper becoming the server) is followed as what it
 * became, not as the shell.
 */
uint32_t obs_targets_find_restart(const struct obs_targets *t, size_t i)
{
	char path[300], exe[256];
	unsigned long long start, newest = 0;
	struct dirent *de;
	uint32_t found = 0, pid;
	DIR *d;
	ssize_t n;

	if (i < t->npids && t->fdit)
		return find_restart_iter(t, i);
	if (i >= t->npids || !t->exes[i][0])
		return 0;
	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (uint32_t)strtoul(de->d_name, NULL, 10);
		if (pid == t->pids[i] || pid == (uint32_t)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%u/exe", pid);
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n <= 0)
			continue;
		exe[n] = '\0';
		if (strcmp(exe, t->exes[i]))
			continue;
		start = start_time(pid);
		if (start >= t->starts[i] && start >= newest) {
			newest = start;
			found = pid;
		}
	}
	closedir(d);
	return found;
}

size_t obs_targets_children(const struct obs_targets *t, struct obs_snap_kid *out, size_t max)
{
	char path[64], tpath[96];
	unsigned int kid;
	struct dirent *de;
	size_t k, n = 0;
	DIR *d;
	FILE *f;

	for (k = 0; k < t->npids && n < max; k++) {
		snprintf(path, sizeof(path), "/proc/%u/task", t->pids[k]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d)) && n < max) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(tpath, sizeof(tpath), "%s/%.16s/children", path, de->d_name);
			f = fopen(tpath, "r");
			if (!f)
				continue;
			while (n < max && fscanf(f, "%u", &kid) == 1) {
				out[n].pid = kid;
				obs_targets_pid_comm(kid, out[n].comm, sizeof(out[n].comm));
				n++;
			}
			fclose(f);
		}
		closedir(d);
	}
	return n;
}
