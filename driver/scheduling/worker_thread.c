// SPDX-License-Identifier: MIT
/* Worker threads: one loop each, the stop handshake with the main thread, timeout sweeps, and
 * the interval figures handed to the main thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include "loadlens/uv_loop.h"
#include "config/config.h"
#include "base/drv.h"
#include "scheduling/pingpong.h"
#include "scheduling/protocol.h"
#include "scheduling/slot.h"
#include "scheduling/worker.h"
#include "scheduling/worker_thread.h"

static void on_stop(uv_async_t *a);

/* The longest wait between sweeps: a quarter of --timeout, 1 ms to 250 ms. */
static uint64_t sweep_ns(const struct drv_config *cfg)
{
	uint64_t ns = cfg->timeout_ns / 4;

	if (ns < 1000000ULL)
		return 1000000ULL;
	return ns > 250000000ULL ? 250000000ULL : ns;
}

/* The shortest: 1 ms, or 100 ns a slot (a sweep scans every slot), up to the longest. */
static uint64_t sweep_gap_ns(const struct drv_worker *w)
{
	uint64_t ns = (uint64_t)w->nslots * 100;

	if (ns > w->sweep_ns)
		ns = w->sweep_ns;
	return ns < 1000000ULL ? 1000000ULL : ns;
}

static void on_sweep(struct drv_sched_ent *e);

void drv_worker_sweep_by(struct drv_worker *w, uint64_t at)
{
	uint64_t soonest = w->sweep_last + w->sweep_gap_ns;

	if (w->stopping)
		return;
	if (at < soonest)
		at = soonest;
	if (w->sweep.pos && w->sweep.at <= at)
		return;
	drv_sched_timer(&w->sched, &w->sweep, at, on_sweep);
}

/* Expire what passed its deadline; then again at the earliest deadline left, and at least every
 * sweep_ns (slots that are done are freed here). */
static void on_sweep(struct drv_sched_ent *e)
{
	struct drv_worker *w = container_of(e, struct drv_worker, sweep);
	uint64_t now = uv_hrtime(), next;

	if (w->stopping)
		return;
	w->sweep_last = now;
	next = drv_slots_sweep(w, now);
	drv_worker_sweep_by(w, next < now + w->sweep_ns ? next : now + w->sweep_ns);
}

/* Hand this interval's figures to the main thread; next tick on the absolute grid. */
static void on_tick(struct drv_sched_ent *e)
{
	struct drv_worker *w = container_of(e, struct drv_worker, tick);
	uint64_t iv = w->cfg->interval_ns, now = uv_hrtime(), next;

	uv_mutex_lock(&w->ivl_lock);
	ll_hist_merge(w->ivl_pub.hist, w->ivl_cur.hist);
	w->ivl_pub.errors += w->ivl_cur.errors;
	uv_mutex_unlock(&w->ivl_lock);
	ll_hist_reset(w->ivl_cur.hist);
	w->ivl_cur.errors = 0;
	while ((next = w->t_start + ++w->ticks * iv) <= now)
		;
	drv_sched_timer(&w->sched, &w->tick, next, on_tick);
}

void drv_worker_take_interval(struct drv_worker *w, struct ll_hist *h, uint64_t *errors)
{
	uv_mutex_lock(&w->ivl_lock);
	ll_hist_merge(h, w->ivl_pub.hist);
	*errors += w->ivl_pub.errors;
	ll_hist_reset(w->ivl_pub.hist);
	w->ivl_pub.errors = 0;
	uv_mutex_unlock(&w->ivl_lock);
}

int drv_worker_init(struct drv_worker *w, const struct drv_config *cfg,
		    const struct drv_proto *proto, uint32_t id, uint32_t first_slot,
		    uint32_t nslots)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->sched.tfd = -1;
	w->id = id;
	w->cfg = cfg;
	w->proto = proto;
	w->first_slot = first_slot;
	w->nslots = nslots;
	w->slots_active = nslots;
	/* On failure the caller still runs drv_worker_fini() and drv_worker_stats_fini(). */
	err = drv_stats_init(&w->stats);
	if (err)
		return err;
	err = drv_stats_init(&w->warm);
	if (err)
		return err;
	w->ivl_cur.hist = ll_hist_new();
	w->ivl_pub.hist = ll_hist_new();
	if (!w->ivl_cur.hist || !w->ivl_pub.hist)
		return -ENOMEM;
	err = uv_mutex_init(&w->ivl_lock);
	if (err)
		return err;
	w->has_lock = true;
	w->slots = calloc(nslots, sizeof(*w->slots));
	if (!w->slots)
		return -ENOMEM;
	err = drv_pacer_init(&w->pacer, cfg, first_slot, nslots);
	if (err)
		return err;
	/* From the stop handle on the loop holds handles: on failure the caller runs
	 * drv_worker_abandon(). */
	err = ll_uv_loop_init_with_stop(&w->loop, &w->loop_ready, &w->stop_async, on_stop,
					&w->has_async);
	if (err)
		return err;
	err = drv_sched_init(&w->sched, &w->loop, nslots);
	if (err)
		return err;
	return proto->init(w);
}

/* Worker thread: stop everything; the loop then drains and uv_run() returns. */
static void close_all(struct drv_worker *w)
{
	if (w->stopping)
		return;
	w->stopping = true;
	w->stop_ns = uv_hrtime();
	drv_pacer_stop(&w->pacer);
	if (!w->finished && w->stats.t_first_ns)
		w->stats.t_last_ns = uv_hrtime();
	drv_sched_drain(&w->sched); /* a reply already in is no cancellation */
	if (w->slots)
		drv_slots_stop(w);
	if (w->proto_data && w->proto->stop)
		w->proto->stop(w);
	drv_sched_close(&w->sched); /* the sweep, tick and end timers go with it */
	if (w->has_async)
		uv_close((uv_handle_t *)&w->stop_async, NULL);
}

static void on_stop(uv_async_t *a)
{
	close_all(container_of(a, struct drv_worker, stop_async));
}

/*
 * -d + --timeout passed: what is past its own timeout is counted so (the sweep runs only every
 * timeout/4), and what is still in flight gets no more time: cancelled at the stop.
 */
static void on_end(struct drv_sched_ent *e)
{
	struct drv_worker *w = container_of(e, struct drv_worker, end);

	if (!w->stopping)
		drv_slots_sweep(w, uv_hrtime());
	drv__worker_finish(w);
}

/* This thread's time runnable but waiting for a CPU (/proc/thread-self/schedstat), 0 if unknown. */
static uint64_t runq_ns(void)
{
	unsigned long long run, wait;
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	return n == 2 ? (uint64_t)wait : 0;
}

static void thread_main(void *arg)
{
	struct drv_worker *w = arg;
	uint64_t now;
	struct rusage ru;
	uint32_t i;

	/* timerfd wake-ups to the microsecond, not the default 50 us slack */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	now = uv_hrtime();
	/* results count from the end of the warm-up */
	w->stats.t_first_ns = now > w->pacer.warm_end ? now : w->pacer.warm_end;
	w->sweep_ns = sweep_ns(w->cfg);
	w->sweep_gap_ns = sweep_gap_ns(w);
	w->sweep_last = now - w->sweep_gap_ns;
	drv_worker_sweep_by(w, now + w->sweep_ns);
	if (w->cfg->interval_ns && (!w->cfg->quiet || w->cfg->hdr_log_fd >= 0 || w->cfg->live_pub)) {
		w->ticks = 1;
		drv_sched_timer(&w->sched, &w->tick, w->t_start + w->cfg->interval_ns, on_tick);
	}
	if (w->pacer.deadline_ns)
		drv_sched_timer(&w->sched, &w->end, w->pacer.deadline_ns + w->cfg->timeout_ns,
				on_end);
	drv_pingpong_setup(&w->pingpong, w);
	drv_slots_start(w);
	drv_sched_run(&w->sched, &w->loop); /* uv_run() with sends on time (waker.h) */
	drv_pingpong_fini(&w->pingpong);
	/* the schedule's requests never taken before -d, unless a signal cut the run short */
	if (w->stop_ns >= w->pacer.deadline_ns || !w->slots_active)
		for (i = 0; i < w->nslots; i++)
			w->stats.not_sent += drv_worker_untaken(&w->pacer, i);
	w->loop_close_err = uv_loop_close(&w->loop);
	w->loop_ready = false;
	if (!getrusage(RUSAGE_THREAD, &ru)) {
		w->stats.cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
				  (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
		w->stats.nivcsw = (uint64_t)ru.ru_nivcsw;
		w->stats.nvcsw = (uint64_t)ru.ru_nvcsw;
	}
	w->stats.runq_ns = runq_ns();
	w->stats.timer_wakes = w->sched.wakes;
	w->stats.spin_ns = w->sched.poll_ns + w->sched.spin_ns;
	w->stats.pacer_idle_ns = w->sched.idle_poll_ns + w->sched.spin_ns;
	if (w->stats.t_last_ns < w->stats.t_first_ns) /* stopped inside the warm-up */
		w->stats.t_last_ns = w->stats.t_first_ns;
	/* The last thing this thread does; the main thread joins only after seeing every exit. */
	__atomic_add_fetch(w->nexited, 1, __ATOMIC_SEQ_CST);
	uv_async_send(w->wake);
}

int drv_worker_start(struct drv_worker *w, uint64_t t_start_ns)
{
	int err;

	w->t_start = t_start_ns;
	drv_pacer_set_start(&w->pacer, t_start_ns);
	err = uv_thread_create(&w->thread, thread_main, w);
	if (err)
		return err;
	w->thread_started = true;
	return 0;
}

void drv_worker_stop(struct drv_worker *w)
{
	__atomic_store_n(&w->stop_asked, 1, __ATOMIC_RELEASE);
	uv_async_send(&w->stop_async);
}

void drv_worker_abandon(struct drv_worker *w)
{
	if (!w->loop_ready)
		return;
	close_all(w);
	uv_run(&w->loop, UV_RUN_DEFAULT);
	w->loop_close_err = uv_loop_close(&w->loop);
	w->loop_ready = false;
}

void drv_worker_fini(struct drv_worker *w)
{
	drv_slots_free(w);
	if (w->proto && w->proto_data)
		w->proto->fini(w);
	drv_sched_fini(&w->sched);
	drv_pacer_fini(&w->pacer);
}

void drv_worker_stats_fini(struct drv_worker *w)
{
	drv_stats_fini(&w->stats);
	drv_stats_fini(&w->warm);
	ll_hist_free(w->ivl_cur.hist);
	ll_hist_free(w->ivl_pub.hist);
	w->ivl_cur.hist = NULL;
	w->ivl_pub.hist = NULL;
	if (w->has_lock)
		uv_mutex_destroy(&w->ivl_lock);
	w->has_lock = false;
}
