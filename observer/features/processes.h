/* SPDX-License-Identifier: MIT */
/*
 * The processes feature: which processes to watch (the --pid targets and their restarts,
 * --children, the cgroup's processes, the owners of the target listeners, any process whose
 * syscalls failed), their exits, and per process open fds against RLIMIT_NOFILE -> growth -> time
 * to exhaustion; the system's file table. It owns the watched set (sources/watched.h), which
 * the tick's read phase reads (sources/tick_reader.h), and who holds a pressed port group
 * (sources/holders.h).
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
struct obs_reader_opts;
/* Its objects the read phase reads: the watched set, the holders, the namespace. */
void obs_processes_reads(struct obs_processes *p, struct obs_reader_opts *o);
extern const struct obs_feature obs_processes_ops; /* self: its struct obs_processes */

#endif /* LOADLENS_OBSERVER_FEATURES_PROCESSES_H */
