/* SPDX-License-Identifier: MIT */
/*
 * How long a process's threads waited for a CPU, from the scheduler's own accounting: the sum over
 * /proc/PID/task/TID/schedstat of the time run and the time waited on a run queue (CONFIG_SCHEDSTATS
 * or sched_info, every Debian kernel), and the CPUs its affinity allows. No BPF and no hook on the
 * host's context switches (what --runq costs): a few small reads per watched process a tick. The
 * processes feature (processes.c) turns the growth over an interval into the average number of
 * the targets' threads running and waiting, for the rules (rules_requests.c: CPU or workers).
 */
#ifndef LOADLENS_OBSERVER_FEATURES_CPUWAIT_H
#define LOADLENS_OBSERVER_FEATURES_CPUWAIT_H

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

#endif /* LOADLENS_OBSERVER_FEATURES_CPUWAIT_H */
