/* SPDX-License-Identifier: MIT */
/* What a run (or a merge of runs) came to: the merged stats and how the run went and ended. */
#ifndef LOADLENS_DRV_RESULT_H
#define LOADLENS_DRV_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include "results/stats.h"

enum drv_stop_reason {
	DRV_STOP_REQUESTS = 0, /* every slot used its share of -n */
	DRV_STOP_DURATION,     /* the -d deadline passed */
	DRV_STOP_SIGNAL,       /* SIGINT or SIGTERM */
	DRV_STOP_NEGOTIATION,  /* every slot failed its TLS or HTTP/2 negotiation (failfast.h) */
};

struct drv_result {
	struct drv_stats total; /* merged over the threads */
	uint64_t start_unix_ns; /* wall clock at the start */
	uint64_t duration_ns;	/* first worker start → last slot done (or stop) */
	enum drv_stop_reason reason;
	int signo;
	uint64_t nofile_limit; /* RLIMIT_NOFILE soft limit during the run */
	uint64_t cpu_ns;       /* the whole process's CPU time (user + system) during the run */
	uint64_t max_thread_cpu_ns; /* the busiest worker thread's CPU time */
	uint64_t max_thread_work_ns; /* the most CPU time a worker spent on work: its CPU time less
				      * the pacer's waiting (stats pacer_idle_ns) */
	uint64_t warmup_requests;   /* completed inside the warm-up, left out of the results */
	uint32_t merged;	    /* merge: number of runs combined; 0 for a run */
	uint32_t threads;
	uint32_t procs;		  /* -p: worker processes merged into this result; 0 = one */
	uint32_t threads_started; /* 0: the run never started */
	bool before_start; /* a signal during --start-at cancelled the run before it started */
	int loop_close_failures; /* loops that were not empty at the end (a bug) */
	int hdr_log_err;	 /* --hdr-log: the first write error (-errno), 0 if none */
	/* the first TLS or HTTP/2 negotiation failure: its error (0: none), its reason ("": none
	 * given), and how many failures gave that same reason */
	int neg_err;
	uint64_t neg_count;
	char neg_why[160];
};

void drv_result_fini(struct drv_result *res);
/*
 * Add a worker's (or a merged run's) first negotiation failure, err with reason why given count
 * times, to res: the first one is kept (the first with a reason, over one without), and the count
 * of a failure with the same reason is added. err 0: nothing.
 */
void drv_result_negotiation(struct drv_result *res, int err, const char *why, uint64_t count);
const char *drv_stop_reason_name(enum drv_stop_reason r);

#endif /* LOADLENS_DRV_RESULT_H */
