/* SPDX-License-Identifier: MIT */
/*
 * A worker thread: one uv_loop, a share of the connection slots, its own pacer, scheduler and
 * stats. Created and torn down by the main thread (run.c, through worker_thread.h); it tells the
 * main thread when its slots are done (nfinished) and when its loop has closed (nexited), through
 * one uv_async_t. This header is the worker as its slots and protocols see it.
 */
#ifndef LOADLENS_DRV_WORKER_H
#define LOADLENS_DRV_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include "scheduling/pacer.h"
#include "scheduling/pingpong_state.h"
#include "scheduling/failfast.h"
#include "scheduling/waker.h"
#include "results/stats.h"

struct drv_config;
struct drv_proto;
struct drv_slot;

/* One interval's figures, handed from a worker to the main thread under ivl_lock. */
struct drv_interval {
	struct ll_hist *hist; /* latency from the intended send, every response */
	uint64_t errors;
};

struct drv_worker {
	uint32_t id;
	const struct drv_config *cfg;
	const struct drv_proto *proto;
	void *proto_data;
	struct drv_slot **slots; /* nslots entries, each allocated as it takes its first request */
	struct drv_slot *retired; /* slots done, freed at the next sweep (slot.c) */

	uv_loop_t loop;
	uv_async_t stop_async; /* the main thread's "stop now"; open until it arrives */
	/* timers on the waker (waker.h), not libuv's: the loop then blocks with no timeout */
	struct drv_sched_ent sweep; /* timeouts: at the earliest deadline, at least every sweep_ns */
	struct drv_sched_ent tick;  /* publishes the interval figures */
	struct drv_sched_ent end;   /* -d + --timeout: what is still in flight is cancelled */
	uint64_t sweep_ns;     /* the longest wait between two sweeps (a quarter of --timeout) */
	uint64_t sweep_gap_ns; /* the shortest: 1 ms, more for many slots (each sweep scans all) */
	uint64_t sweep_last;   /* when the last sweep ran */
	uv_thread_t thread;
	bool loop_ready;
	bool has_async;
	bool thread_started;

	struct drv_pacer pacer;
	struct drv_sched sched;
	struct drv_stats stats; /* counted results */
	struct drv_stats warm;	/* results of the warm-up, left out */
	uint32_t first_slot;	/* index on this machine */
	uint32_t nslots;
	uint32_t slots_active;
	struct drv_pingpong pingpong; /* the closed loop's blocking read (one slot) */
	int stop_asked; /* set (atomic) by the main thread before stop_async: a blocking read sees
			 * it without the loop */
	bool stopping; /* stop received: close everything, start nothing */
	bool finished; /* every slot done */
	int loop_close_err;
	uint64_t t_start; /* common start (uv_hrtime) */
	uint64_t stop_ns; /* uv_hrtime() of the stop, 0 until then */
	uint64_t ticks;

	/* interval figures: cur is the worker's own, pub is handed over under ivl_lock */
	struct drv_interval ivl_cur, ivl_pub;
	uv_mutex_t ivl_lock;
	bool has_lock;

	struct drv_failfast ff; /* its slots' failed negotiations (failfast.h) */

	/* to the main thread */
	uv_async_t *wake;
	uint32_t *nfinished;
	uint32_t *nexited;
	uint32_t *nnegfail; /* workers whose every slot failed its negotiation, none answered */
};

/*
 * Open loop: requests of local slot i's schedule meant to start in the counted window before the
 * deadline and never taken from the pacer (its share of -n permitting). Pure; for the report.
 */
uint64_t drv_worker_untaken(const struct drv_pacer *p, uint32_t i);

/*
 * Worker thread, from the slot base: a slot's first failed negotiation (failfast.h); once every
 * slot of the worker has one and none was answered, the main thread is told (once).
 */
void drv_worker_negfail(struct drv_worker *w, int err);
/* Worker thread, from a protocol: why a negotiation failed (the first reason is kept). */
static inline void drv_worker_why(struct drv_worker *w, const char *why)
{
	drv_failfast_why(&w->ff, why);
}

/* Worker thread, from the protocol: local slot finished for good. */
void drv_worker_slot_done(struct drv_worker *w);
/*
 * A request's deadline was set at `at`: the timeout sweep runs by then (no sooner than
 * sweep_gap_ns after the last), so a lost request is declared at its deadline, not up to a quarter
 * of --timeout after it. Worker thread; drv_timing_send calls it only when the sweep is later.
 */
void drv_worker_sweep_by(struct drv_worker *w, uint64_t at);
/* Worker thread: its slots are done (or -d + --timeout passed); tell the main thread, once. */
void drv__worker_finish(struct drv_worker *w);
/*
 * Local slot i's next request from the pacer into *t. Nothing starts once the -d deadline has
 * passed by the clock, whatever the schedule says: the slot is then DONE.
 */
enum drv_pace drv_worker_pace(struct drv_worker *w, uint32_t i, struct drv_ticket *t);
/*
 * A scheduled request is due (its waker entry fired). False if the deadline passed meanwhile: the
 * ticket is then counted not sent, and drv_worker_pace() will say DONE.
 */
bool drv_worker_due(struct drv_worker *w, const struct drv_ticket *t);

/* The stats a request with this ticket counts into. */
static inline struct drv_stats *drv_worker_stats(struct drv_worker *w, const struct drv_ticket *t)
{
	return t->warm ? &w->warm : &w->stats;
}

/* A request starts (actual send time now); waited: it waited for its time on a free slot. */
static inline void drv_worker_started(struct drv_worker *w, const struct drv_ticket *t,
				      uint64_t now, bool waited)
{
	struct drv_stats *st = drv_worker_stats(w, t);

	if (waited)
		ll_hist_record(st->send_lag, now - t->intended);
	else if (w->pacer.rate && now > t->intended)
		st->behind++;
}

/* A failed request (the slot base: scheduling/slot.c); an answered one is timing.c's. */
static inline void drv_worker_error(struct drv_worker *w, const struct drv_ticket *t, int err)
{
	drv_stats_error(drv_worker_stats(w, t), err);
	w->ivl_cur.errors++;
}

#endif /* LOADLENS_DRV_WORKER_H */
