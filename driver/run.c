// SPDX-License-Identifier: MIT
/*
 * The main thread's loop. Handshake with the workers (all through one uv_async_t, "wake"):
 *   worker: all slots done → nfinished++ and wake; main: once all have finished, or on a signal,
 *   sends each worker its stop (once); worker: closes everything, its loop drains and closes,
 *   then nexited++ and wake as its last act; main: once all have exited, joins the threads and
 *   closes its own handles, so no worker can touch "wake" after it is closed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <uv.h>
#include "config/config.h"
#include "base/drv.h"
#include "results/hdrlog.h"
#include "protocols/protocols.h"
#include "results/report.h"
#include "run.h"
#include "scheduling/worker_thread.h"

struct drv_run {
	const struct drv_config *cfg;
	struct drv_result *res;
	uv_loop_t loop;
	uv_async_t wake;
	uv_signal_t sigint;
	uv_signal_t sigterm;
	uv_timer_t live;
	struct drv_worker *workers;
	uint32_t nworkers;
	uint32_t nstarted;
	uint32_t nfinished; /* atomic */
	uint32_t nexited;   /* atomic */
	uint32_t nnegfail;  /* atomic: workers whose every slot failed its negotiation */
	bool negotiation;   /* the run stopped for that (scheduling/failfast.h) */
	bool stop_sent;
	bool closed;
	int signo;
	uint64_t t_start_ns;
	uint64_t ticks;
	struct ll_hist *ivl; /* the interval being printed, merged over the workers */
	struct drv_hdrlog *hdr; /* --hdr-log, or NULL */
	uint64_t hdr_ns;	/* the log's intervals cover [0, hdr_ns) from the start */
};

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/* fn on each started worker, the first time only (*done false, then set): true that time. */
static bool once_each_worker(struct drv_run *r, bool *done, void (*fn)(struct drv_worker *))
{
	uint32_t i;

	if (*done)
		return false;
	*done = true;
	for (i = 0; i < r->nstarted; i++)
		fn(&r->workers[i]);
	return true;
}

static void stop_workers(struct drv_run *r)
{
	once_each_worker(r, &r->stop_sent, drv_worker_stop);
}

static void join_worker(struct drv_worker *w)
{
	uv_thread_join(&w->thread);
}

static void close_main(struct drv_run *r)
{
	if (!once_each_worker(r, &r->closed, join_worker))
		return;
	uv_close((uv_handle_t *)&r->wake, NULL);
	uv_close((uv_handle_t *)&r->sigint, NULL);
	uv_close((uv_handle_t *)&r->sigterm, NULL);
	uv_close((uv_handle_t *)&r->live, NULL);
}

/* The workers' responses so far (a worker that told of its failed slots may have had one since). */
static uint64_t answered(const struct drv_run *r)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < r->nstarted; i++)
		n += drv_counter_read(&r->workers[i].stats.requests) +
		     drv_counter_read(&r->workers[i].warm.requests);
	return n;
}

static void on_wake(uv_async_t *a)
{
	struct drv_run *r = container_of(a, struct drv_run, wake);

	if (__atomic_load_n(&r->nfinished, __ATOMIC_SEQ_CST) >= r->nstarted)
		stop_workers(r);
	/* every connection failed its TLS or HTTP/2 negotiation, nothing answered: retrying would
	 * fail the same way until -d or -n ran out */
	if (!r->stop_sent && drv_failfast_stop(__atomic_load_n(&r->nnegfail, __ATOMIC_SEQ_CST),
					       r->nstarted, answered(r))) {
		r->negotiation = true;
		stop_workers(r);
	}
	if (__atomic_load_n(&r->nexited, __ATOMIC_SEQ_CST) >= r->nstarted)
		close_main(r);
}

static void on_signal(uv_signal_t *s, int signo)
{
	struct drv_run *r = s->data;

	if (r->signo) { /* a second signal: the user wants out now, summary or not */
		fprintf(stderr, DRV_PROG ": second signal, exiting without a summary\n");
		_exit(128 + signo);
	}
	r->signo = signo;
	stop_workers(r);
}

/* One line per interval: the workers publish on the grid t0 + k*iv, we print at half past. */
static void on_live(uv_timer_t *t)
{
	struct drv_run *r = container_of(t, struct drv_run, live);
	uint64_t iv = r->cfg->interval_ns, now = uv_hrtime(), errs = 0, conns = 0, next;
	uint32_t i;

	ll_hist_reset(r->ivl);
	for (i = 0; i < r->nstarted; i++) {
		drv_worker_take_interval(&r->workers[i], r->ivl, &errs);
		conns += drv_counter_read(&r->workers[i].stats.connections);
	}
	if (r->cfg->live_pub) { /* a worker process of -p: the parent prints */
		__atomic_fetch_add(&r->cfg->live_pub->responses, ll_hist_count(r->ivl),
				   __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->cfg->live_pub->errors, errs, __ATOMIC_RELAXED);
		__atomic_store_n(&r->cfg->live_pub->connections, conns, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->cfg->live_pub->seq, 1, __ATOMIC_RELAXED);
	}
	if (!r->cfg->quiet)
		drv_report_live(stderr, r->ticks * iv, iv, r->ivl, errs, conns,
				r->ticks * iv <= r->cfg->warmup_ns);
	if (r->hdr) {
		drv_hdrlog_interval(r->hdr, r->hdr_ns, r->ticks * iv - r->hdr_ns, r->ivl);
		r->hdr_ns = r->ticks * iv;
	}
	while ((next = r->t_start_ns + ++r->ticks * iv + iv / 2) <= now)
		;
	uv_timer_start(&r->live, on_live, (next - now) / 1000000, 0);
}

static int init_main(struct drv_run *r)
{
	int err;

	err = uv_loop_init(&r->loop);
	if (err)
		return err;
	err = uv_async_init(&r->loop, &r->wake, on_wake);
	if (err)
		goto cleanup_loop;
	err = uv_signal_init(&r->loop, &r->sigint);
	if (err)
		goto cleanup_wake;
	err = uv_signal_init(&r->loop, &r->sigterm);
	if (err)
		goto cleanup_sigint;
	err = uv_timer_init(&r->loop, &r->live);
	if (err)
		goto cleanup_sigterm;
	r->sigint.data = r;
	r->sigterm.data = r;
	err = uv_signal_start(&r->sigint, on_signal, SIGINT);
	if (!err)
		err = uv_signal_start(&r->sigterm, on_signal, SIGTERM);
	if (err)
		goto cleanup_live;
	return 0;

cleanup_live:
	uv_close((uv_handle_t *)&r->live, NULL);
cleanup_sigterm:
	uv_close((uv_handle_t *)&r->sigterm, NULL);
cleanup_sigint:
	uv_close((uv_handle_t *)&r->sigint, NULL);
cleanup_wake:
	uv_close((uv_handle_t *)&r->wake, NULL);
	uv_run(&r->loop, UV_RUN_DEFAULT);
cleanup_loop:
	uv_loop_close(&r->loop);
	return err;
}

/*
 * --start-at: sleep until the wall-clock start. A SIGINT/SIGTERM meanwhile interrupts the sleep;
 * libuv's handler has queued it, so one non-blocking turn of the loop runs on_signal(). Returns
 * false if a signal came: the run is cancelled before it starts.
 */
static bool wait_start(struct drv_run *r)
{
	const struct drv_config *cfg = r->cfg;
	struct timespec ts;

	if (!cfg->start_at_unix_ns)
		return true;
	ts.tv_sec = (time_t)(cfg->start_at_unix_ns / 1000000000ULL);
	ts.tv_nsec = (long)(cfg->start_at_unix_ns % 1000000000ULL);
	while (!r->signo && clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		uv_run(&r->loop, UV_RUN_NOWAIT);
	return !r->signo;
}

/* Threads get -c / -t slots each, the first -c % -t one more. */
static int init_workers(struct drv_run *r, const struct drv_proto *proto)
{
	const struct drv_config *cfg = r->cfg;
	uint32_t i, first = 0, n;
	int err;

	r->nworkers = (uint32_t)cfg->threads;
	r->workers = calloc(r->nworkers, sizeof(*r->workers));
	if (!r->workers)
		return -ENOMEM;
	for (i = 0; i < r->nworkers; i++) {
		n = (uint32_t)(cfg->connections / cfg->threads +
			       (i < cfg->connections % cfg->threads ? 1 : 0));
		err = drv_worker_init(&r->workers[i], cfg, proto, i, first, n);
		r->workers[i].wake = &r->wake;
		r->workers[i].nfinished = &r->nfinished;
		r->workers[i].nexited = &r->nexited;
		r->workers[i].nnegfail = &r->nnegfail;
		if (err)
			return err;
		first += n;
	}
	return 0;
}

static void collect(struct drv_run *r)
{
	struct drv_result *res = r->res;
	struct drv_worker *w;
	uint64_t attempts, ivl_errs = 0;
	uint32_t i;

	if (r->hdr)
		ll_hist_reset(r->ivl);
	for (i = 0; i < r->nworkers; i++) {
		w = &r->workers[i];
		if (!w->stats.latency) /* never initialised: an earlier worker failed */
			continue;
		if (!w->thread_started)
			drv_worker_abandon(w);
		if (r->hdr) { /* the last, partial interval: what no tick has taken yet */
			drv_worker_take_interval(w, r->ivl, &ivl_errs);
			ll_hist_merge(r->ivl, w->ivl_cur.hist);
		}
		if (w->loop_close_err)
			res->loop_close_failures++;
		_Static_assert(sizeof(res->neg_why) == DRV_FAILFAST_WHY, "neg_why");
		if (w->ff.err) /* the first worker's first failure; its reason's count, summed */
			drv_result_negotiation(res, w->ff.err, w->ff.why, w->ff.nwhy);
		drv_stats_merge(&res->total, &w->stats);
		res->warmup_requests += w->warm.requests;
		if (w->stats.cpu_ns > res->max_thread_cpu_ns)
			res->max_thread_cpu_ns = w->stats.cpu_ns;
		if (w->stats.cpu_ns > w->stats.pacer_idle_ns &&
		    w->stats.cpu_ns - w->stats.pacer_idle_ns > res->max_thread_work_ns)
			res->max_thread_work_ns = w->stats.cpu_ns - w->stats.pacer_idle_ns;
		drv_worker_fini(w);
		drv_worker_stats_fini(w);
	}
	free(r->workers);
	r->workers = NULL;
	if (r->hdr && res->threads_started) {
		uint64_t end = uv_hrtime() - r->t_start_ns;

		drv_hdrlog_interval(r->hdr, r->hdr_ns, end > r->hdr_ns ? end - r->hdr_ns : 0,
				    r->ivl);
	}
	if (res->total.t_last_ns > res->total.t_first_ns)
		res->duration_ns = res->total.t_last_ns - res->total.t_first_ns;
	res->signo = r->signo;
	attempts = res->total.requests + res->total.errors_total + res->total.cancelled;
	if (r->signo)
		res->reason = DRV_STOP_SIGNAL;
	else if (r->negotiation)
		res->reason = DRV_STOP_NEGOTIATION;
	else if (r->cfg->duration_ns && (!r->cfg->requests || attempts < r->cfg->requests /
							      r->cfg->shard_count))
		res->reason = DRV_STOP_DURATION;
	else
		res->reason = DRV_STOP_REQUESTS;
}

int drv_run(const struct drv_config *cfg, struct drv_result *res)
{
	const struct drv_proto *proto = drv_proto_for(cfg);
	struct drv_run run = {.cfg = cfg, .res = res};
	struct drv_run *r = &run;
	struct timespec ts;
	uint64_t ms, cpu0;
	uint32_t i;
	int err;

	if (!proto)
		return -EPROTONOSUPPORT;
	res->threads = (uint32_t)cfg->threads;
	err = drv_stats_init(&res->total);
	if (err)
		return err;
	r->ivl = ll_hist_new();
	if (!r->ivl)
		return -ENOMEM;
	if (proto->global_init) {
		err = proto->global_init();
		if (err)
			goto cleanup_ivl;
	}
	err = init_main(r);
	if (err)
		goto cleanup_global;
	err = init_workers(r, proto);
	if (err)
		goto cleanup;

	if (!wait_start(r)) {
		/* cancelled before start: no thread ran, the summary still comes out */
		res->before_start = true;
		goto cleanup;
	}
	cpu0 = cpu_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	/* the counted window starts after the warm-up */
	res->start_unix_ns =
		(uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + cfg->warmup_ns;
	r->t_start_ns = uv_hrtime();
	for (i = 0; i < r->nworkers; i++) {
		err = drv_worker_start(&r->workers[i], r->t_start_ns);
		if (err)
			break;
		r->nstarted++;
	}
	res->threads_started = r->nstarted;
	if (err) /* run with what started, stopped at once: the report still comes out */
		stop_workers(r);
	if (cfg->hdr_log_fd >= 0) {
		r->hdr = drv_hdrlog_new(cfg->hdr_log_fd, res->start_unix_ns - cfg->warmup_ns);
		if (r->hdr)
			ll_hist_reset(r->ivl);
		else
			res->hdr_log_err = -ENOMEM;
	}
	if (cfg->interval_ns && (!cfg->quiet || r->hdr || cfg->live_pub)) {
		r->ticks = 1;
		ms = (cfg->interval_ns + cfg->interval_ns / 2) / 1000000;
		uv_timer_start(&r->live, on_live, ms, 0);
	}
	/* everything may already be finished and exited before the loop runs */
	uv_async_send(&r->wake);
	uv_run(&r->loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&r->loop))
		res->loop_close_failures++;
	collect(r);
	res->cpu_ns = cpu_ns() - cpu0;
	goto cleanup_global;

cleanup:
	close_main(r); /* nstarted == 0: joins nothing */
	uv_run(&r->loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&r->loop))
		res->loop_close_failures++;
	if (r->workers)
		collect(r);
cleanup_global:
	if (proto->global_fini)
		proto->global_fini();
cleanup_ivl:
	if (r->hdr && !res->hdr_log_err)
		res->hdr_log_err = drv_hdrlog_free(r->hdr);
	else
		drv_hdrlog_free(r->hdr);
	ll_hist_free(r->ivl);
	return err;
}
