/* SPDX-License-Identifier: MIT */
/*
 * Precise wake-ups on a worker's loop. libuv timers have 1 ms granularity, which would add up to
 * a millisecond of false latency to an open-loop schedule (wrk2's limit). A min-heap holds the
 * waiting entries; an entry is embedded in its owner (a connection slot) and recovered with
 * container_of. The worker's loop runs under drv_sched_run(), which keeps time in three ways:
 *
 *  - far from the next due send, it blocks in the loop, with one timerfd per thread (watched by
 *    a uv_poll_t, armed at an absolute CLOCK_MONOTONIC time, the clock of uv_hrtime()) set
 *    *early* by the wake-up latency it has measured on this machine (a high percentile of the
 *    last DRV_SCHED_LAT_N timer wake-ups), so the thread is awake before the send is due;
 *  - near it (closer than that latency), it polls the loop without blocking, so replies are still
 *    taken as they come, and spins on the clock for the last DRV_SCHED_SPIN_NS;
 *  - at it, it starts every entry that is due, and keeps polling for any due within the window:
 *    one wake-up serves every send due close together.
 *
 * The timerfd is armed only before the loop blocks, and only when that time changed: no timer
 * per request. Nothing is ever started before its time. When the thread is preempted on more
 * than one timer wake-up in eight (other processes want this CPU), it stops waking early: a
 * spinning thread only loses the CPU to them sooner.
 *
 * The worker's own timers (the timeout sweep, the interval line, the end of the run) sit on a
 * second heap on the same timerfd (drv_sched_timer): fired when the timerfd wakes the thread,
 * never woken early or spun for. So the worker's libuv loop holds no timer of its own, and
 * uv_run(UV_RUN_ONCE) blocks in one epoll_wait() with no timeout. A finite timeout would arm and
 * cancel a kernel hrtimer on every sleep (a VM exit here), and dispatching after a wait of our
 * own would take a second epoll_wait() per reply: each cost about 0.4 us of a 13 us same-CPU
 * round trip against sockperf (bench/pacer_bench.sh). A libuv timer still started by a protocol
 * (the curl engine's, a slot's retry after a failure) gets libuv's own timeout, as usual.
 *
 * Replies read at wake-ups (struct drv_sched_rx, the udp open loop): a paced request would cost
 * two wake-ups, one to send and one for its reply, and a wake-up is the dearest thing on a VM
 * (19-33 us of thread CPU here). A protocol that can time a reply by the kernel's receive stamp
 * registers an rx: the waker then reads the replies already in after every send it starts and
 * before its own timers (the timeout sweep, the end), and wakes for replies only while no send is
 * queued (nothing else would wake the thread in time: -c 1, every slot busy, the run's tail).
 *
 * A wait of its own (struct drv_sched_wait, the closed loop's one socket: pingpong.h): where the
 * loop would block, the waker first offers the wait to it; it may block in the socket's own read
 * instead of epoll_wait(), which costs a round trip less (bench/pingpong.py), and says whether
 * it did. It is offered only what the loop would do: its horizon is the earliest worker timer or
 * send.
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
	bool timer;   /* on the timer heap (drv_sched_timer), not the send heap */
	drv_sched_cb cb;
};

/* A min-heap of entries by due time. */
struct drv_sched_heap {
	struct drv_sched_ent **e;
	uint32_t n, cap;
};

#define DRV_SCHED_TIMERS 8 /* the most loop timers queued at once */

#define DRV_SCHED_LAT_N 32	      /* timer wake-up latencies remembered */
/* never wake more than 150 us early: the 75th percentile of this VM's timer wake-ups outgrew 50 us
 * (send lag p50 16-22 us at 2k/s with 50, 0.4 us with 150) */
#define DRV_SCHED_EARLY_MAX 150000ULL
#define DRV_SCHED_SPIN_NS 2000ULL     /* the last 2 us: spin on the clock, no syscall */

/* Replies the waker reads at its wake-ups (see above); embedded in the protocol's thread state. */
struct drv_sched_rx {
	/* Read every reply already in, without blocking. */
	void (*drain)(struct drv_sched_rx *rx);
	/* From now on the loop is woken when a reply comes (on), or not. */
	void (*wake)(struct drv_sched_rx *rx, bool on);
	bool always; /* wake for every reply: the thread has one slot, no other send to wake it */
	bool waking; /* as last set through wake() */
};

/* A wait in place of the loop's (see above); embedded in its owner. */
struct drv_sched_wait {
	/*
	 * Wait for and handle what comes, as the loop would have, returning true; or return false:
	 * the loop waits instead. horizon: when the earliest worker timer is due, or the next
	 * send's wake-up (UINT64_MAX: neither), which it must not wait past.
	 */
	bool (*wait)(struct drv_sched_wait *sw, uint64_t horizon);
	/* The loop is about to run: leave its handles as libuv expects them. */
	void (*release)(struct drv_sched_wait *sw);
};

struct drv_sched {
	uv_poll_t poll;
	int tfd;
	bool open;
	bool lazy; /* under drv_sched_run(): the timerfd is armed only before the loop blocks */
	struct drv_sched_heap send;  /* sends: woken early, spun for */
	struct drv_sched_heap timer; /* the worker's timers: fired by the timerfd, not early */
	uint64_t armed; /* time the timerfd is armed for; 0 = disarmed */
	/* wake-up latency: how late the timerfd wakes the thread, measured, and the early offset */
	uint64_t lat[DRV_SCHED_LAT_N];
	uint32_t nlat, ilat;
	uint64_t early_ns;
	/* preempted on more than 1 in 8 wake-ups: the CPU is shared, spinning would only lose it */
	bool contended;
	uint32_t since;	  /* timer wake-ups since the last look at the involuntary switches */
	uint64_t nivcsw;  /* the thread's involuntary context switches at that look */
	/* what it cost: timer wake-ups, non-blocking polls while near a send, ns spun on the clock;
	 * idle_poll_ns: the polls that found no event ready (waiting for the next send, no work) */
	uint64_t wakes, polls, poll_ns, spin_ns, idle_poll_ns;
	struct drv_sched_rx *rx; /* NULL: replies wake the loop as they come */
	struct drv_sched_wait *own; /* NULL: the loop always waits */
};

/* cap: the most sends queued at once (one per slot). */
int drv_sched_init(struct drv_sched *s, uv_loop_t *loop, uint32_t cap);
/* Queue send e to run cb at `at`, never before (an entry already queued is moved). */
void drv_sched_add(struct drv_sched *s, struct drv_sched_ent *e, uint64_t at, drv_sched_cb cb);
/*
 * Queue loop timer e to run cb at `at` or a wake-up latency after it (the timerfd's), never
 * before; no early wake-up, no spin. At most DRV_SCHED_TIMERS + cap at once (the loop's own,
 * and one retry wait per slot).
 */
void drv_sched_timer(struct drv_sched *s, struct drv_sched_ent *e, uint64_t at, drv_sched_cb cb);
/* Remove a send or a timer (nothing if not queued). */
void drv_sched_cancel(struct drv_sched *s, struct drv_sched_ent *e);
/*
 * Read replies at wake-ups through rx (NULL: none), from the worker thread before the run. rx
 * stays registered until drv_sched_close().
 */
void drv_sched_set_rx(struct drv_sched *s, struct drv_sched_rx *rx);
/* A wait of its own in place of the loop's (NULL: none), from the worker thread before the run. */
void drv_sched_set_wait(struct drv_sched *s, struct drv_sched_wait *own);
/* The horizon a wait of its own would be offered now (struct drv_sched_wait). */
uint64_t drv_sched_horizon(const struct drv_sched *s);
/* Read the replies already in (nothing without an rx): before counting what is in flight. */
void drv_sched_drain(struct drv_sched *s);
/* Drop every entry and uv_close the poll handle (the timerfd is closed with it). */
void drv_sched_close(struct drv_sched *s);
/* After the loop has drained: free the heap. */
void drv_sched_fini(struct drv_sched *s);

/*
 * Run loop until it has nothing left (uv_run(UV_RUN_DEFAULT) with precise sends, see above).
 * Returns uv_run()'s last result (0).
 */
int drv_sched_run(struct drv_sched *s, uv_loop_t *loop);
/* Record one timer wake-up latency and update the early offset (exposed for tests). */
void drv_sched_note_latency(struct drv_sched *s, uint64_t lat_ns);

/* The send heap alone, for tests: pop the earliest send due at `now`, or NULL. */
struct drv_sched_ent *drv_sched_pop_due(struct drv_sched *s, uint64_t now);

#endif /* LOADLENS_DRV_WAKER_H */
