/* SPDX-License-Identifier: MIT */
/*
 * The processes feature: which processes to watch (the --pid targets and their restarts,
 * --children, the cgroup's processes, the owners of the target listeners, any process whose
 * syscalls failed), their exits, and per process open fds against RLIMIT_NOFILE -> growth -> time
 * to exhaustion; the system's file table. Its watched set (watched.c, watched.h) writes the
 * "targets" map through kernel/sockets.c and reads the process events and failed processes
 * through kernel/failures_object.c (their objects' owners).
 */
#ifndef LOADLENS_OBSERVER_FEATURES_PROCESSES_H
#define LOADLENS_OBSERVER_FEATURES_PROCESSES_H

#include <stdbool.h>
#include <stdint.h>
#include "loadlens/observer.h"
#include "sources/fds.h"
#include "tick/snapshots.h"



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
