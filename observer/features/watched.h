/* SPDX-License-Identifier: MIT */
/*
 * The watched set of the processes feature (processes.c, its one user): which processes have a
 * slot, up to --max-procs, and the events that add or free one (the --pid targets, their exits
 * and restarts, children forked or found at start, the cgroup's processes, the owners of the
 * target listeners, processes whose syscalls failed); per slot, open fds against RLIMIT_NOFILE
 * and their growth. The feature turns the set into its snapshot and the rules' (processes.c).
 */
#ifndef LOADLENS_OBSERVER_FEATURES_WATCHED_H
#define LOADLENS_OBSERVER_FEATURES_WATCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/observer.h"
#include "tick/snapshots.h"

struct obs_sockets;
struct obs_fail;
struct obs_targets;
struct obs_fditer;

/* A parent that forked this interval; a child's comm at its fork is its parent's. */
struct obs_watched_forker {
	uint32_t pid;
	char comm[16];
	uint64_t forks;
};

/* Read by the feature; written here only. */
struct obs_watched {
	const char *prog;
	struct obs_sockets *conn; /* the "targets" map's owner */
	struct obs_fail *fail;	  /* process events and failed processes */
	struct obs_targets *targets;
	struct obs_fditer *fdit; /* fds, exe, netns of processes without /proc (NULL: /proc) */
	size_t nprocs, max_procs; /* procs[] below: up to max_procs (--max-procs); the others
				   * are counted */
	uint32_t unwatched[OBS_MAX_ERRPROCS]; /* distinct pids not watched for the cap */
	size_t nunwatched;
	uint64_t unwatched_more; /* past that list */
	char first_unwatched_comm[16];
	uint64_t procs_ended; /* slots given back by processes that ended */
	/* this interval's target exits and restarts, for the rules' snapshot */
	struct obs_snap_event ev_now[OBS_SNAP_EVENTS];
	size_t nev_now;
	uint64_t ev_lost; /* past OBS_SNAP_EVENTS in one interval, since start */
	double next_owner_scan;
	struct obs_fail_proc errprocs[OBS_MAX_ERRPROCS];
	size_t nerrprocs; /* read at the last tick */
	/* --children: children forked while observed, found at start, ended (badly) */
	uint64_t children_forked, children_found, children_exited, children_abnormal;
	/* --children, this interval: children that ended with status 0, and who forked, for the
	 * rules' spike of exits */
	uint64_t exits_now;
	struct obs_watched_forker forkers[OBS_SNAP_NOTES];
	size_t nforkers; /* a parent past the table is not counted: it only names the forker */
	/* the CPUs the targets may run on (their affinities ORed), and the time no thread could
	 * run on them (cpuwait.h: interrupts, softirqs, steal): the total at the last read and
	 * its growth since the read before */
	cpu_set_t cpu_mask;
	unsigned int cpu_kconfig; /* what the kernel keeps out of run time (OBS_CPUWAIT_*) */
	uint64_t cpu_lost_ns, cpu_lost_d;
	bool cpu_kconfig_read, cpu_lost_read, cpu_lost_grew;
	struct obs_proc procs[]; /* the watched processes, max_procs of them */
};

/* max_procs: --max-procs, 0 for OBS_PROCS_DEFAULT, at most OBS_PROCS_MAX. NULL: no memory. */
struct obs_watched *obs_watched_new(const char *prog, struct obs_sockets *conn,
				    struct obs_fail *fail, struct obs_targets *targets,
				    unsigned int max_procs);
void obs_watched_free(struct obs_watched *w);
/* Attached, still privileged: the task iterator (fditer.h), the --pid targets and, with
 * children (--children), their descendants there already. Returns 0. */
int obs_watched_start(struct obs_watched *w, bool children);
/* One interval at t seconds: the events (exits, restarts, forks), then who is watched (the
 * cgroup's, the listeners' owners from ss's census, the failed processes) and their fds. */
void obs_watched_tick(struct obs_watched *w, double t, const struct obs_sockstat_snap *ss);
/* The interval is in the snapshots: its events, exits and forkers start over. */
void obs_watched_next(struct obs_watched *w);
/* pid's network namespace inode; 0: gone or unreadable. */
uint32_t obs_watched_pid_netns(struct obs_watched *w, uint32_t pid);

#endif /* LOADLENS_OBSERVER_FEATURES_WATCHED_H */
