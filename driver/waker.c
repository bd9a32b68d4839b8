// SPDX-License-Identifier: MIT
/* A timerfd + min-heap scheduler on a libuv loop: microsecond wake-ups for pacing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "drv.h"
#include "waker.h"

static void x__swap(struct drv_sched *s, uint32_t a, uint32_t b)
{
	struct drv_sched_ent *t = s->heap[a];

	s->heap[a] = s->heap[b];
	s->heap[b] = t;
	s->heap[a]->pos = a + 1;
	s->heap[b]->pos = b + 1;
}

static void x__up(struct drv_sched *s, uint32_t i)
{
	while (i && s->heap[(i - 1) / 2]->at > s->heap[i]->at) {
		x__swap(s, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void x__down(struct drv_sched *s, uint32_t i)
{
	uint32_t l, m;

	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < s->n && s->heap[l]->at < s->heap[m]->at)
			m = l;
		if (l + 1 < s->n && s->heap[l + 1]->at < s->heap[m]->at)
			m = l + 1;
		if (m == i)
			return;
		x__swap(s, i, m);
		i = m;
	}
}

static void x__remove(struct drv_sched *s, struct drv_sched_ent *e)
{
	uint32_t i = e->pos - 1;

	e->pos = 0;
	if (i == --s->n)
		return;
	s->heap[i] = s->heap[s->n];
	s->heap[i]->pos = i + 1;
	x__up(s, i);
	x__down(s, s->heap[i]->pos - 1);
}

/* How early to wake: the measured latency, or nothing on a contended CPU. */
static inline uint64_t x__early(const struct drv_sched *s)
{
	return s->contended ? 0 : s->early_ns;
}

/* Every 64 timer wake-ups: was this thread preempted on more than one in eight? */
static void x__check_contention(struct drv_sched *s)
{
	struct rusage ru;
	uint64_t n;

	if (++s->since < 64 || getrusage(RUSAGE_THREAD, &ru))
		return;
	n = (uint64_t)ru.ru_nivcsw + 1; /* 0 = not looked yet: the first look is the baseline */
	if (s->nivcsw)
		s->contended = (n - s->nivcsw) * 8 > s->since;
	s->nivcsw = n;
	s->since = 0;
}

/*
 * Arm the timerfd for the earliest entry, early by the measured wake-up latency, if that changed.
 * With nothing queued, a timer already in the past is left to fire (its wake-up is drained
 * without blocking); one still ahead is disarmed.
 */
static void x__arm(struct drv_sched *s)
{
	struct itimerspec its;
	uint64_t at;

	if (!s->open)
		return;
	at = s->n ? s->heap[0]->at : 0;
	if (at)
		at = at > x__early(s) + 1 ? at - x__early(s) : 1;
	if (s->loop_due && (!at || s->loop_due < at))
		at = s->loop_due;
	if (at == s->armed || (!at && s->armed <= uv_hrtime())) /* no clock read when idle */
		return;
	memset(&its, 0, sizeof(its));
	if (at) {
		its.it_value.tv_sec = (time_t)(at / 1000000000ULL);
		its.it_value.tv_nsec = (long)(at % 1000000000ULL);
	}
	if (!timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL))
		s->armed = at;
}

struct drv_sched_ent *drv_sched_pop_due(struct drv_sched *s, uint64_t now)
{
	struct drv_sched_ent *e;

	if (!s->n || s->heap[0]->at > now)
		return NULL;
	e = s->heap[0];
	x__remove(s, e);
	return e;
}

void drv_sched_note_latency(struct drv_sched *s, uint64_t lat_ns)
{
	uint64_t v[DRV_SCHED_LAT_N], x;
	uint32_t i, j, n;

	s->lat[s->ilat] = lat_ns;
	s->ilat = (s->ilat + 1) % DRV_SCHED_LAT_N;
	if (s->nlat < DRV_SCHED_LAT_N)
		s->nlat++;
	n = s->nlat;
	memcpy(v, s->lat, n * sizeof(v[0]));
	for (i = 1; i < n; i++) { /* insertion sort: 32 values at most */
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	/*
	 * The 75th percentile: most wake-ups come before the send is due and spin the rest, the
	 * others are late by the spread of the latency; a longer wait is preemption, not the timer
	 * (DRV_SCHED_EARLY_MAX).
	 */
	x = v[(n * 3) / 4];
	s->early_ns = x < DRV_SCHED_EARLY_MAX ? x : DRV_SCHED_EARLY_MAX;
}

/* Start every entry due now; within the last DRV_SCHED_SPIN_NS of the next one, spin to it. */
static void x__fire(struct drv_sched *s)
{
	struct drv_sched_ent *e;
	uint64_t now, t0;

	if (!s->n) /* the closed loop: nothing queued, no clock read */
		return;
	now = uv_hrtime();
	if (s->heap[0]->at > now && s->heap[0]->at - now <= DRV_SCHED_SPIN_NS) {
		t0 = now;
		while ((now = uv_hrtime()) < s->heap[0]->at)
			;
		s->spin_ns += now - t0;
	}
	while ((e = drv_sched_pop_due(s, now)))
		e->cb(e);
}

static void x__on_poll(uv_poll_t *p, int status, int events)
{
	struct drv_sched *s = container_of(p, struct drv_sched, poll);
	uint64_t expirations, now;
	ssize_t r;

	r = read(s->tfd, &expirations, sizeof(expirations));
	now = uv_hrtime();
	if (r == (ssize_t)sizeof(expirations) && s->armed && now >= s->armed) {
		s->wakes++;
		drv_sched_note_latency(s, now - s->armed);
		x__check_contention(s);
	}
	s->armed = 0; /* EAGAIN when re-armed meanwhile: the heap is the truth */
	x__fire(s);
	if (!s->lazy)
		x__arm(s);
}

/*
 * Block until an fd is ready or the timerfd fires, with no timeout of its own (see waker.h),
 * then dispatch. Returns uv_run()'s result.
 */
static int x__block(struct drv_sched *s, uv_loop_t *loop)
{
	struct epoll_event ev;
	int t = uv_backend_timeout(loop); /* ms; -1 no timer, 0 work pending */

	if (!s->open || (t >= 0 && (uint64_t)t * 1000000ULL <= s->coarse_ns)) {
		s->loop_due = 0;
		x__arm(s);
		return uv_run(loop, UV_RUN_ONCE); /* soon, or stopping: libuv's own timeout */
	}
	/* uv_now() + t is the timer's own due time (ms of the coarse clock): stable, no re-arm */
	s->loop_due = t < 0 ? 0 : (uv_now(loop) + (uint64_t)t) * 1000000ULL + s->coarse_ns;
	x__arm(s);
	(void)epoll_wait(uv_backend_fd(loop), &ev, 1, -1); /* level-triggered: libuv sees it too */
	return uv_run(loop, UV_RUN_NOWAIT);
}

int drv_sched_run(struct drv_sched *s, uv_loop_t *loop)
{
	uint64_t now, at;
	int r;

	s->lazy = true;
	do {
		x__fire(s);
		at = s->open && s->n ? s->heap[0]->at : 0;
		now = at ? uv_hrtime() : 0;
		if (at && at <= now + x__early(s) + DRV_SCHED_SPIN_NS) {
			/* closer than a wake-up takes: poll without blocking, replies included */
			s->polls++;
			r = uv_run(loop, UV_RUN_NOWAIT);
			s->poll_ns += uv_hrtime() - now;
		} else {
			r = x__block(s, loop);
		}
	} while (r);
	return 0;
}

int drv_sched_init(struct drv_sched *s, uv_loop_t *loop, uint32_t cap)
{
	struct timespec res;
	int err;

	memset(s, 0, sizeof(*s));
	s->tfd = -1;
	s->coarse_ns = 4000000ULL + 1000000ULL;
	if (!clock_getres(CLOCK_MONOTONIC_COARSE, &res))
		s->coarse_ns = (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec +
			       1000000ULL;
	s->cap = cap ? cap : 1;
	s->heap = calloc(s->cap, sizeof(*s->heap));
	if (!s->heap)
		return -ENOMEM;
	if (!loop) /* heap only (tests) */
		return 0;
	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->tfd < 0) {
		err = -errno;
		goto cleanup;
	}
	err = uv_poll_init(loop, &s->poll, s->tfd);
	if (err)
		goto cleanup_fd;
	s->open = true;
	err = uv_poll_start(&s->poll, UV_READABLE, x__on_poll);
	if (err) {
		drv_sched_close(s);
		return err;
	}
	return 0;

cleanup_fd:
	close(s->tfd);
	s->tfd = -1;
cleanup:
	free(s->heap);
	s->heap = NULL;
	return err;
}

void drv_sched_add(struct drv_sched *s, struct drv_sched_ent *e, uint64_t at, drv_sched_cb cb)
{
	if (e->pos)
		x__remove(s, e);
	if (s->n >= s->cap) /* cannot happen: one entry per slot */
		return;
	e->at = at;
	e->cb = cb;
	s->heap[s->n] = e;
	e->pos = ++s->n;
	x__up(s, s->n - 1);
	if (s->heap[0] == e && !s->lazy)
		x__arm(s);
}

void drv_sched_cancel(struct drv_sched *s, struct drv_sched_ent *e)
{
	if (!e->pos)
		return;
	x__remove(s, e);
	if (!s->lazy)
		x__arm(s);
}

static void x__on_close(uv_handle_t *h)
{
	struct drv_sched *s = container_of((uv_poll_t *)h, struct drv_sched, poll);

	close(s->tfd);
	s->tfd = -1;
}

void drv_sched_close(struct drv_sched *s)
{
	while (s->n)
		x__remove(s, s->heap[0]);
	if (!s->open)
		return;
	s->open = false;
	uv_close((uv_handle_t *)&s->poll, x__on_close);
}

void drv_sched_fini(struct drv_sched *s)
{
	if (s->tfd >= 0 && !s->open) {
		close(s->tfd);
		s->tfd = -1;
	}
	free(s->heap);
	s->heap = NULL;
}
