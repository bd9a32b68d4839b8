// SPDX-License-Identifier: MIT
/* Worker threads: one loop each, the stop handshake with the main thread, timeout sweeps. */
#include <errno.h>
#include <string.h>
#include "config.h"
#include "drv.h"
#include "proto.h"
#include "worker.h"

static void x__on_stop(uv_async_t *a);

static uint64_t x__sweep_ms(const struct drv_config *cfg)
{
	uint64_t ms = cfg->timeout_ns / 4 / 1000000;

	if (ms < 1)
		return 1;
	return ms > 250 ? 250 : ms;
}

static void x__on_sweep(uv_timer_t *t)
{
	struct drv_worker *w = container_of(t, struct drv_worker, sweep);

	if (!w->stopping)
		w->proto->sweep(w, uv_hrtime());
}

int drv_worker_init(struct drv_worker *w, const struct drv_config *cfg,
		    const struct drv_proto *proto, uint32_t id, uint32_t first_slot,
		    uint32_t nslots)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->id = id;
	w->cfg = cfg;
	w->proto = proto;
	w->first_slot = first_slot;
	w->nslots = nslots;
	w->slots_active = nslots;
	err = drv_stats_init(&w->stats);
	if (err)
		return err;
	err = drv_pacer_init(&w->pacer, cfg, first_slot, nslots, 0);
	if (err)
		goto cleanup_stats;
	err = uv_loop_init(&w->loop);
	if (err)
		goto cleanup_pacer;
	w->loop_ready = true;
	/* From here on the loop holds handles: on failure the caller runs drv_worker_abandon(). */
	err = uv_async_init(&w->loop, &w->stop_async, x__on_stop);
	if (err)
		return err;
	w->has_async = true;
	err = uv_timer_init(&w->loop, &w->sweep);
	if (err)
		return err;
	w->has_sweep = true;
	return proto->init(w);

cleanup_pacer:
	drv_pacer_fini(&w->pacer);
cleanup_stats:
	drv_stats_fini(&w->stats);
	return err;
}

/* Worker thread: stop everything; the loop then drains and uv_run() returns. */
static void x__close_all(struct drv_worker *w)
{
	if (w->stopping)
		return;
	w->stopping = true;
	drv_pacer_stop(&w->pacer);
	if (!w->finished && w->stats.t_first_ns)
		w->stats.t_last_ns = uv_hrtime();
	if (w->proto_data)
		w->proto->stop(w);
	if (w->has_sweep)
		uv_close((uv_handle_t *)&w->sweep, NULL);
	if (w->has_async)
		uv_close((uv_handle_t *)&w->stop_async, NULL);
}

static void x__on_stop(uv_async_t *a)
{
	x__close_all(container_of(a, struct drv_worker, stop_async));
}

void drv_worker_slot_done(struct drv_worker *w)
{
	if (!w->slots_active || --w->slots_active)
		return;
	w->finished = true;
	w->stats.t_last_ns = uv_hrtime();
	uv_timer_stop(&w->sweep);
	__atomic_add_fetch(w->nfinished, 1, __ATOMIC_SEQ_CST);
	uv_async_send(w->wake);
}

static void x__thread_main(void *arg)
{
	struct drv_worker *w = arg;
	uint64_t ms = x__sweep_ms(w->cfg);

	w->stats.t_first_ns = uv_hrtime();
	uv_timer_start(&w->sweep, x__on_sweep, ms, ms);
	w->proto->start(w);
	uv_run(&w->loop, UV_RUN_DEFAULT);
	w->loop_close_err = uv_loop_close(&w->loop);
	w->loop_ready = false;
	/* The last thing this thread does; the main thread joins only after seeing every exit. */
	__atomic_add_fetch(w->nexited, 1, __ATOMIC_SEQ_CST);
	uv_async_send(w->wake);
}

int drv_worker_start(struct drv_worker *w, uint64_t t_start_ns)
{
	int err;

	if (w->cfg->duration_ns)
		w->pacer.deadline_ns = t_start_ns + w->cfg->duration_ns;
	err = uv_thread_create(&w->thread, x__thread_main, w);
	if (err)
		return err;
	w->thread_started = true;
	return 0;
}

void drv_worker_stop(struct drv_worker *w)
{
	uv_async_send(&w->stop_async);
}

void drv_worker_abandon(struct drv_worker *w)
{
	if (!w->loop_ready)
		return;
	x__close_all(w);
	uv_run(&w->loop, UV_RUN_DEFAULT);
	w->loop_close_err = uv_loop_close(&w->loop);
	w->loop_ready = false;
}

void drv_worker_fini(struct drv_worker *w)
{
	if (w->proto && w->proto_data)
		w->proto->fini(w);
	drv_pacer_fini(&w->pacer);
}

void drv_worker_stats_fini(struct drv_worker *w)
{
	drv_stats_fini(&w->stats);
}
