/* SPDX-License-Identifier: MIT */
/*
 * A worker thread: one uv_loop, a share of the connection slots, its own pacer and stats.
 * Created and torn down by the main thread (run.c); it tells the main thread when its slots are
 * done (nfinished) and when its loop has closed (nexited), through one uv_async_t.
 */
#ifndef LOADLENS_DRV_WORKER_H
#define LOADLENS_DRV_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include "pacer.h"
#include "stats.h"

struct drv_config;
struct drv_proto;

struct drv_worker {
	uint32_t id;
	const struct drv_config *cfg;
	const struct drv_proto *proto;
	void *proto_data;

	uv_loop_t loop;
	uv_async_t stop_async; /* the main thread's "stop now"; open until it arrives */
	uv_timer_t sweep;      /* timeouts */
	uv_thread_t thread;
	bool loop_ready;
	bool has_async;
	bool has_sweep;
	bool thread_started;

	struct drv_pacer pacer;
	struct drv_stats stats;
	uint32_t first_slot; /* global index */
	uint32_t nslots;
	uint32_t slots_active;
	bool stopping; /* stop received: close everything, start nothing */
	bool finished; /* every slot done */
	int loop_close_err;

	/* to the main thread */
	uv_async_t *wake;
	uint32_t *nfinished;
	uint32_t *nexited;
};

/*
 * Main thread, before the worker runs: loop, handles, pacer, stats, protocol state. On failure,
 * still call drv_worker_abandon() and drv_worker_fini() + drv_worker_stats_fini().
 */
int drv_worker_init(struct drv_worker *w, const struct drv_config *cfg,
		    const struct drv_proto *proto, uint32_t id, uint32_t first_slot,
		    uint32_t nslots);
/* Main thread: fix the -d deadline from the common start and run the thread. */
int drv_worker_start(struct drv_worker *w, uint64_t t_start_ns);
/* Main thread: ask a started worker to stop (once). */
void drv_worker_stop(struct drv_worker *w);
/* Main thread: drain and close the loop of a worker whose thread never started. */
void drv_worker_abandon(struct drv_worker *w);
/* Main thread, after join (or abandon): free everything but the stats, which stay readable. */
void drv_worker_fini(struct drv_worker *w);
void drv_worker_stats_fini(struct drv_worker *w);

/* Worker thread, from the protocol: local slot finished for good. */
void drv_worker_slot_done(struct drv_worker *w);

#endif /* LOADLENS_DRV_WORKER_H */
