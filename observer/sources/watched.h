/* SPDX-License-Identifier: MIT */
/*
 * The watched processes, read each tick by the read phase (tick_reader.h) for the processes
 * feature (features/processes.c), which turns them into its snapshot and the rules': which
 * processes have a slot, up to --max-procs, and the events that add or free one (the --pid
 * targets, their exits and restarts, children forked or found at start, the cgroup's processes,
 * the owners of the target listeners, processes whose syscalls failed); per slot, open fds
 * against RLIMIT_NOFILE and their growth, and CPU time; the targets' children; the network
 * namespace of each failed process.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_WATCHED_H
#define LOADLENS_OBSERVER_SOURCES_WATCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/observer.h"
#include "kernel/failures_object.h"
#include "rules/snapshot.h"
#include "sources/census_types.h"
#include "sources/cpuwait.h"
#include "sources/fds.h"

#define OBS_PROCS_DEFAULT 64 /* processes whose fds are watched: --max-procs */
#define OBS_PROCS_MAX 256    /* the most --max-procs takes (OBS_SNAP_PROCS) */
#define OBS_PROCS_HIST 8     /* samples kept for growth rates */

/* A watched process. */
struct obs_proc {
	struct obs_fd_proc fd;
	bool exited;
	double t[OBS_PROCS_HIST];
	int64_t open[OBS_PROCS_HIST];
	unsigned int nhist;
	double rate;		 /* fds/s over the kept samples */
	double tte;		 /* seconds to RLIMIT_NOFILE at that rate; < 0: none */
	double first_forecast_t; /* first interval with a forecast (< 0: none) */
	double first_forecast_tte;
	double first_fail_t; /* first interval with EMFILE from this process (< 0: none) */
	uint64_t fails[OBS_FAIL_MAX];
	uint32_t last_sys;
	bool netns_outside; /* lives in another network namespace than the watched one */
	bool target;	    /* watched as a target (--pid, a child, the cgroup's, a listener's
			     * owner), not only for its failed syscalls */
	/* its threads on and waiting for a CPU (cpuwait.h): the totals at the last read, and
	 * their growth this interval (none at the first read) */
	struct obs_cpuwait cpu;
	uint64_t cpu_run_d, cpu_wait_d;
	uint32_t cpus; /* the CPUs its affinity allows (0: unread) */
	bool cpu_read; /* cpu holds a read */
	bool cpu_grew; /* cpu_*_d hold this interval's growth */
};

struct obs_sockets;
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
	bool children; /* --children: the targets' descendants are targets */
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
	size_t nunwatched_live;	 /* of the list, alive and not watched at the last tick */
	char first_unwatched_comm[16];
	uint64_t procs_ended; /* slots given back by processes that ended */
	/* this interval's target exits and restarts, for the rules' snapshot */
	struct obs_snap_event ev_now[OBS_SNAP_EVENTS];
	size_t nev_now;
	uint64_t ev_lost; /* past OBS_SNAP_EVENTS in one interval, since start */
	double next_owner_scan;
	struct obs_fail_proc errprocs[OBS_MAX_ERRPROCS];
	size_t nerrprocs; /* read at the last tick */
	/* without --pid/--cgroup: errprocs[i]'s network namespace when it was first seen (0:
	 * gone before it could be read), from a cache of the pids seen, started over when full */
	uint32_t errnetns[OBS_MAX_ERRPROCS];
	struct obs_watched_netns {
		uint32_t pid, netns;
	} netns_seen[OBS_MAX_ERRPROCS];
	size_t nnetns_seen;
	/* --pid without --children: the targets' children now, from /proc/PID/task/TID/children */
	struct obs_snap_kid kids[OBS_SNAP_NOTES];
	size_t nkids;
	/* --children: children forked while observed, found at start, ended (badly) */
	uint64_t children_forked, children_found, children_exited, children_abnormal;
	/* --children, this interval: children that ended with status 0, and who forked, for the
	 * rules' spike of exits */
	uint64_t exits_now;
	struct obs_watched_forker forkers[OBS_SNAP_NOTES];
	size_t nforkers; /* a parent past the table is not counted: it only names the forker */
	/* the CPUs the targets may run on (their affinities ORed), the time no thread could run on
	 * them (cpuwait.h: interrupts, softirqs, steal) and the time none ran (idle, iowait): the
	 * totals at the last read of /proc/stat, on the CPUs then, and their growth since the
	 * read before */
	cpu_set_t cpu_mask, cpu_stat_mask;
	unsigned int cpu_kconfig; /* what the kernel keeps out of run time (OBS_CPUWAIT_*) */
	uint64_t cpu_lost_ns, cpu_lost_d, cpu_idle_ns, cpu_idle_d;
	bool cpu_kconfig_read, cpu_stat_read, cpu_stat_grew;
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
 * cgroup's, the owners of the listeners of census cs, NULL: no census, the failed processes),
 * their fds and CPU time, and the targets' children. */
void obs_watched_tick(struct obs_watched *w, double t, const struct obs_census *cs);
/* The interval is in the snapshots: its events, exits and forkers start over. */
void obs_watched_next(struct obs_watched *w);

#endif /* LOADLENS_OBSERVER_SOURCES_WATCHED_H */
