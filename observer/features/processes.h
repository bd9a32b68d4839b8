/* SPDX-License-Identifier: MIT */
/*
 * The processes feature: which processes to watch (the --pid targets and their restarts,
 * --children, the cgroup's processes, the owners of the target listeners, any process whose
 * syscalls failed), their exits, and per process open fds against RLIMIT_NOFILE -> growth -> time
 * to exhaustion; the system's file table. It writes the "targets" map through kernel/sockets.c and reads
 * the process events and failed processes through failures.c (their objects' owners).
 */
#ifndef LOADLENS_OBSERVER_FEATURES_PROCESSES_H
#define LOADLENS_OBSERVER_FEATURES_PROCESSES_H

#include <stdbool.h>
#include <stdint.h>
#include "loadlens/observer.h"
#include "fds.h"

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
};

/* The feature's snapshot of the interval. */
struct obs_processes_snap {
	double fd_pct; /* the fullest watched process' fds against its limit, %; < 0: none read */
	bool have_files;
	uint64_t file_nr, file_max; /* fs.file-nr, fs.file-max */
	uint64_t ev_lost; /* exits and restarts past OBS_SNAP_EVENTS in one interval, since start */
};

struct obs_sockets;
struct obs_fail;
struct obs_targets;

struct obs_processes_opts {
	struct obs_sockets *conn;	    /* the "targets" map's owner */
	struct obs_fail *fail;	    /* process events and failed processes */
	struct obs_targets *targets;
	bool children;		    /* --children */
	unsigned int max_procs;	    /* --max-procs; 0: OBS_PROCS_DEFAULT */
};

struct obs_processes;

struct obs_processes *obs_processes_new(const char *prog, const struct obs_processes_opts *o);
void obs_processes_free(struct obs_processes *p);
extern const struct obs_feature obs_processes_ops; /* self: its struct obs_processes */

#endif /* LOADLENS_OBSERVER_FEATURES_PROCESSES_H */
