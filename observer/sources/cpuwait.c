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
#include <sys/utsname.h>
#include <zlib.h>
#include "sources/cpuwait.h"

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

bool obs_cpuwait_mask(pid_t pid, cpu_set_t *set)
{
	cpu_set_t one;

	if (sched_getaffinity(pid, sizeof(one), &one))
		return false;
	CPU_OR(set, set, &one);
	return true;
}

unsigned int obs_cpuwait_kconfig_line(const char *line)
{
	if (!strncmp(line, "CONFIG_PARAVIRT_TIME_ACCOUNTING=y", 33))
		return OBS_CPUWAIT_STEAL;
	if (!strncmp(line, "CONFIG_IRQ_TIME_ACCOUNTING=y", 28))
		return OBS_CPUWAIT_IRQ;
	return 0;
}

unsigned int obs_cpuwait_kconfig(void)
{
	unsigned int flags = 0;
	struct utsname u;
	char line[256];
	gzFile gz;
	FILE *f;

	gz = gzopen("/proc/config.gz", "rb");
	if (gz) {
		while (gzgets(gz, line, sizeof(line)))
			flags |= obs_cpuwait_kconfig_line(line);
		gzclose(gz);
		return flags;
	}
	if (uname(&u))
		return 0;
	snprintf(line, sizeof(line), "/boot/config-%s", u.release);
	f = fopen(line, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		flags |= obs_cpuwait_kconfig_line(line);
	fclose(f);
	return flags;
}

bool obs_cpuwait_stat_line(const char *line, unsigned int flags, unsigned int *cpu,
			   uint64_t *lost_ticks, uint64_t *idle_ticks)
{
	/* cpuN user nice system idle iowait irq softirq steal [guest guest_nice] */
	uint64_t v[8];

	if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
		return false;
	if (sscanf(line + 3, "%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64, cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7]) != 9)
		return false;
	*lost_ticks = (flags & OBS_CPUWAIT_IRQ ? v[5] + v[6] : 0) +
		      (flags & OBS_CPUWAIT_STEAL ? v[7] : 0);
	*idle_ticks = v[3] + v[4];
	return true;
}

bool obs_cpuwait_stat_ns(const cpu_set_t *set, unsigned int flags, uint64_t *lost_ns,
			 uint64_t *idle_ns)
{
	static long hz;
	uint64_t ticks = 0, idle = 0, t, i;
	unsigned int cpu;
	char line[512];
	bool any = false;
	FILE *f;

	if (!hz && (hz = sysconf(_SC_CLK_TCK)) <= 0)
		hz = 100;
	f = fopen("/proc/stat", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!obs_cpuwait_stat_line(line, flags, &cpu, &t, &i)) {
			if (any)
				break; /* the per-CPU lines come together, before intr's long line */
			continue;
		}
		any = true;
		if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, set)) {
			ticks += t;
			idle += i;
		}
	}
	fclose(f);
	*lost_ns = ticks * (1000000000ULL / (uint64_t)hz);
	*idle_ns = idle * (1000000000ULL / (uint64_t)hz);
	return any;
}
