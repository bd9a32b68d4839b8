// SPDX-License-Identifier: MIT
/* A process's threads' time on and waiting for a CPU, from schedstat (cpuwait.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpuwait.h"

bool obs_cpuwait_parse(const char *line, uint64_t *run_ns, uint64_t *wait_ns)
{
	uint64_t slices;

	return sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64, run_ns, wait_ns, &slices) == 3;
}

/* One thread's line, read through dirfd (the process's task directory). */
static bool read_task(int dirfd, const char *tid, uint64_t *run_ns, uint64_t *wait_ns)
{
	char path[sizeof(((struct dirent *)0)->d_name) + 16], buf[96];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/schedstat", tid);
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return obs_cpuwait_parse(buf, run_ns, wait_ns);
}

int obs_cpuwait_read(pid_t pid, struct obs_cpuwait *out)
{
	char path[48];
	struct dirent *de;
	uint64_t run, wait;
	DIR *d;
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (out->tasks >= OBS_CPUWAIT_TASKS) {
			out->skipped++;
			continue;
		}
		if (!read_task(dirfd(d), de->d_name, &run, &wait))
			continue; /* a thread that just ended */
		out->run_ns += run;
		out->wait_ns += wait;
		out->tasks++;
	}
	err = out->tasks ? 0 : -ESRCH;
	closedir(d);
	return err;
}

unsigned int obs_cpuwait_cpus(pid_t pid)
{
	cpu_set_t set;

	if (sched_getaffinity(pid, sizeof(set), &set))
		return 0;
	return (unsigned int)CPU_COUNT(&set);
}
