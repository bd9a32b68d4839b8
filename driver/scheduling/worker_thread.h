/* SPDX-License-Identifier: MIT */
/* A worker thread's life, from the main thread (run.c): init, start, stop, join, free. */
#ifndef LOADLENS_DRV_WORKER_THREAD_H
#define LOADLENS_DRV_WORKER_THREAD_H

#include <stdint.h>
#include "scheduling/worker.h"

struct ll_hist;

/*
 * Main thread, before the worker runs: loop, handles, pacer, stats, protocol state. On failure,
 * still call drv_worker_abandon() and drv_worker_fini() + drv_worker_stats_fini().
 */
int drv_worker_init(struct drv_worker *w, const struct drv_config *cfg,
		    const struct drv_proto *proto, uint32_t id, uint32_t first_slot,
		    uint32_t nslots);
/* Main thread: fix the schedule from the common start and run the thread. */
int drv_worker_start(struct drv_worker *w, uint64_t t_start_ns);
/* Main thread: ask a started worker to stop (once). */
void drv_worker_stop(struct drv_worker *w);
/* Main thread: drain and close the loop of a worker whose thread never started. */
void drv_worker_abandon(struct drv_worker *w);
/* Main thread, after join (or abandon): free everything but the stats, which stay readable. */
void drv_worker_fini(struct drv_worker *w);
void drv_worker_stats_fini(struct drv_worker *w);
/* Main thread: add the interval figures published so far into h / *errors, and reset them. */
void drv_worker_take_interval(struct drv_worker *w, struct ll_hist *h, uint64_t *errors);

#endif /* LOADLENS_DRV_WORKER_THREAD_H */
