/* SPDX-License-Identifier: MIT */
/*
 * Precise wake-ups on a worker's loop. libuv timers have 1 ms granularity, which would add up to
 * a millisecond of false latency to an open-loop schedule (wrk2's limit). One timerfd per thread,
 * watched by a uv_poll_t and armed at an absolute CLOCK_MONOTONIC time (the clock of
 * uv_hrtime()), wakes the loop within microseconds; a min-heap holds the waiting entries. An
 * entry is embedded in its owner (a connection slot) and recovered with container_of.
 */
#ifndef LOADLENS_DRV_WAKER_H
#define LOADLENS_DRV_WAKER_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

struct drv_sched_ent;
typedef void (*drv_sched_cb)(struct drv_sched_ent *e);

struct drv_sched_ent {
	uint64_t at;  /* uv_hrtime() to fire at */
	uint32_t pos; /* heap position + 1; 0 = not queued */
	drv_sched_cb cb;
};

struct drv_sched {
	uv_poll_t poll;
	int tfd;
	bool open;
	struct drv_sched_ent **heap;
	uint32_t n, cap;
	uint64_t armed; /* time the timerfd is armed for; 0 = disarmed */
};

/* cap: the most entries queued at once (one per slot). */
int drv_sched_init(struct drv_sched *s, uv_loop_t *loop, uint32_t cap);
/* Queue e to run cb at `at` (an entry already queued is moved). */
void drv_sched_add(struct drv_sched *s, struct drv_sched_ent *e, uint64_t at, drv_sched_cb cb);
void drv_sched_cancel(struct drv_sched *s, struct drv_sched_ent *e);
/* Drop every entry and uv_close the poll handle (the timerfd is closed with it). */
void drv_sched_close(struct drv_sched *s);
/* After the loop has drained: free the heap. */
void drv_sched_fini(struct drv_sched *s);

/* The heap alone, for tests: pop the earliest entry due at `now`, or NULL. */
struct drv_sched_ent *drv_sched_pop_due(struct drv_sched *s, uint64_t now);

#endif /* LOADLENS_DRV_WAKER_H */
