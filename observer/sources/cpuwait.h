/* SPDX-License-Identifier: MIT */
/*
 * How long a process's threads waited for a CPU, from the scheduler's own accounting: the sum over
 * /proc/PID/task/TID/schedstat of the time run and the time waited on a run queue (CONFIG_SCHEDSTATS
 * or sched_info, every Debian kernel), and the CPUs its affinity allows. No BPF and no hook on the
 * host's context switches (what --runq costs): a few small reads per watched process a tick. The
 * processes feature (processes.c) turns the growth over an interval into the average number of
 * the targets' threads running and waiting, for the rules (rules_requests.c: CPU or workers).
 */
#ifndef LOADLENS_OBSERVER_SOURCES_CPUWAIT_H
#define LOADLENS_OBSERVER_SOURCES_CPUWAIT_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define OBS_CPUWAIT_TASKS 512 /* threads of one process read a tick; past it, counted apart */

struct obs_cpuwait {
	uint64_t run_ns;  /* time its threads ran, since they started */
	uint64_t wait_ns; /* time they waited on a run queue */
	uint32_t tasks;	  /* threads read */
	uint32_t skipped; /* threads past OBS_CPUWAIT_TASKS */
};

/* One schedstat line ("RUN_NS WAIT_NS SLICES") into run and wait; false if it is not one. */
bool obs_cpuwait_parse(const char *line, uint64_t *run_ns, uint64_t *wait_ns);
/* pid's threads, summed into *out; 0, or a negative errno (the process is gone). */
int obs_cpuwait_read(pid_t pid, struct obs_cpuwait *out);
/* The CPUs pid may run on (its affinity), or 0 if unreadable. */
unsigned int obs_cpuwait_cpus(pid_t pid);
/* ... and which: ORed into *set; false if unreadable. */
bool obs_cpuwait_mask(pid_t pid, cpu_set_t *set);

/*
 * Time no thread could run on a CPU, which the kernel keeps out of the threads' run time: what
 * the hypervisor took (steal, where built with CONFIG_PARAVIRT_TIME_ACCOUNTING) and interrupts
 * and softirqs (loopback's packet work, where built with CONFIG_IRQ_TIME_ACCOUNTING). A server
 * that keeps its CPUs busy then runs less than all of them. Where the kernel charges that time to
 * the thread it interrupted (Debian's builds: neither option), it is in the run time already and
 * none is counted.
 */
#define OBS_CPUWAIT_STEAL 1u /* steal is kept out of the threads' run time */
#define OBS_CPUWAIT_IRQ 2u   /* interrupts and softirqs are */
/* One line of a kernel's build config: the flag it sets, or 0. */
unsigned int obs_cpuwait_kconfig_line(const char *line);
/* This kernel's flags, from /proc/config.gz or /boot/config-RELEASE; 0 where neither is there. */
unsigned int obs_cpuwait_kconfig(void);
/* One /proc/stat line: for a "cpuN ..." line, N, the ticks (USER_HZ) of what flags keep out of
 * the threads' time, and its idle ticks (idle and iowait: no thread ran); false for any other
 * line (the "cpu" total, intr, ctxt ...). */
bool obs_cpuwait_stat_line(const char *line, unsigned int flags, unsigned int *cpu,
			   uint64_t *lost_ticks, uint64_t *idle_ticks);
/* The CPUs in set, summed from /proc/stat, in ns: lost (as above) and idle; false if it cannot
 * be read. */
bool obs_cpuwait_stat_ns(const cpu_set_t *set, unsigned int flags, uint64_t *lost_ns,
			 uint64_t *idle_ns);

#endif /* LOADLENS_OBSERVER_SOURCES_CPUWAIT_H */
