// SPDX-License-Identifier: MIT
/* fd usage from /proc: per target process and system-wide. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sources/fds.h"
#include "sources/targets.h"

static int count_fds(uint32_t pid, int64_t *out)
{
	char path[64];
	struct dirent *de;
	int64_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/fd", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	*out = n;
	return 0;
}

static int64_t limit(const char *s)
{
	return !strncmp(s, "unlimited", 9) ? -1 : strtoll(s, NULL, 10);
}

static int read_limits(uint32_t pid, int64_t *soft, int64_t *hard)
{
	char path[64], line[256], a[32], b[32];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%u/limits", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Max open files", 14))
			continue;
		if (sscanf(line + 14, "%31s %31s", a, b) == 2) {
			*soft = limit(a);
			*hard = limit(b);
			err = 0;
		}
		break;
	}
	fclose(f);
	return err;
}

int obs_fd_set(struct obs_fd_proc *p, int64_t open)
{
	if (!p->comm[0] || p->comm[0] == '?')
		obs_targets_pid_comm(p->pid, p->comm, sizeof(p->comm));
	p->open = open;
	p->err = 0;
	if (p->open > p->peak)
		p->peak = p->open;
	if (read_limits(p->pid, &p->soft, &p->hard))
		p->soft = p->hard = -1;
	return 0;
}

int obs_fd_read(struct obs_fd_proc *p)
{
	int64_t open = 0;
	int err;

	if (!p->comm[0] || p->comm[0] == '?')
		obs_targets_pid_comm(p->pid, p->comm, sizeof(p->comm));
	err = count_fds(p->pid, &open);
	if (err) {
		p->err = -err;
		p->open = -1;
		return err;
	}
	return obs_fd_set(p, open);
}

int obs_fd_system(uint64_t *nr, uint64_t *max)
{
	unsigned long long a, b, c;
	FILE *f = fopen("/proc/sys/fs/file-nr", "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%llu %llu %llu", &a, &b, &c) == 3;
	fclose(f);
	if (!ok)
		return -EIO;
	*nr = a - b;
	*max = c;
	return 0;
}

size_t obs_fd_owners(const uint64_t *inodes, size_t n, uint32_t *pids, size_t max)
{
	char path[300], link[64];
	struct dirent *de, *fe;
	unsigned long long ino;
	size_t i, found = 0;
	DIR *d, *fd;
	uint32_t pid;
	ssize_t len;

	if (!n || !max)
		return 0;
	d = opendir("/proc");
	if (!d)
		return 0;
	while (found < max && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (uint32_t)strtoul(de->d_name, NULL, 10);
		if (pid == (uint32_t)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%u/fd", pid);
		fd = opendir(path);
		if (!fd)
			continue;
		while ((fe = readdir(fd))) {
			if (fe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%u/fd/%s", pid, fe->d_name);
			len = readlink(path, link, sizeof(link) - 1);
			if (len <= 0)
				continue;
			link[len] = '\0';
			if (sscanf(link, "socket:[%llu]", &ino) != 1)
				continue;
			for (i = 0; i < n && inodes[i] != ino; i++)
				;
			if (i < n) {
				pids[found++] = pid;
				break;
			}
		}
		closedir(fd);
	}
	closedir(d);
	return found;
}
