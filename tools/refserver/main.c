// SPDX-License-Identifier: MIT
/*
 * loadlens-refserver: start the workers, wait for SIGINT/SIGTERM on the main thread's loop, stop
 * the workers, merge their counters and report.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loadlens/cli.h"
#include "loadlens/outfile.h"
#include "refserver.h"

struct main_main {
	uv_loop_t loop;
	uv_signal_t sigint, sigterm;
	uv_async_t exited;
	struct rs_worker *workers;
	unsigned nworkers;
	unsigned nexited; /* atomic: workers whose thread has ended */
	bool stopping;
	uint64_t stop_ns;
};

/* Close a handle of the zero-initialised struct main_main unless it was never initialised. */
static void close_once(uv_handle_t *h)
{
	if (h->type != UV_UNKNOWN_HANDLE && !uv_is_closing(h))
		uv_close(h, NULL);
}

static void close_main_handles(struct main_main *m)
{
	close_once((uv_handle_t *)&m->sigint);
	close_once((uv_handle_t *)&m->sigterm);
	close_once((uv_handle_t *)&m->exited);
}

/*
 * The first SIGINT/SIGTERM stops the workers; the signal handles stay open until they have all
 * ended, so a repeated SIGTERM cannot kill us before the results are written. A second SIGINT
 * (Ctrl-C twice) gives up at once.
 */
static void on_signal(uv_signal_t *s, int signum)
{
	struct main_main *m = s->data;
	unsigned i;

	if (m->stopping) {
		if (signum == SIGINT) {
			ll_warn(RS_PROG, "second SIGINT: exiting without results");
			_exit(LL_EXIT_FAIL);
		}
		return;
	}
	m->stopping = true;
	m->stop_ns = rs_now_ns();
	for (i = 0; i < m->nworkers; i++)
		rs_worker_stop(&m->workers[i]);
}

static void on_exited(uv_async_t *a)
{
	struct main_main *m = container_of(a, struct main_main, exited);

	if (__atomic_load_n(&m->nexited, __ATOMIC_ACQUIRE) == m->nworkers)
		close_main_handles(m);
}

static int signals(struct main_main *m)
{
	int err;

	err = uv_async_init(&m->loop, &m->exited, on_exited);
	if (err)
		return err;
	uv_signal_init(&m->loop, &m->sigint);
	uv_signal_init(&m->loop, &m->sigterm);
	m->sigint.data = m;
	m->sigterm.data = m;
	err = uv_signal_start(&m->sigint, on_signal, SIGINT);
	if (!err)
		err = uv_signal_start(&m->sigterm, on_signal, SIGTERM);
	return err;
}

/* The payload: --response-size bytes of 'x', else http's and h2's default body; then the
 * protocol's constant parts of a response. */
static int build_body(struct rs_config *cfg)
{
	bool text = cfg->proto == RS_PROTO_HTTP || cfg->proto == RS_PROTO_H2;

	if (cfg->response_size >= 0) {
		cfg->body_len = (size_t)cfg->response_size;
		cfg->body = malloc(cfg->body_len + 1);
		if (cfg->body)
			memset(cfg->body, 'x', cfg->body_len);
	} else if (text) {
		cfg->body_len = strlen(RS_DEFAULT_BODY);
		cfg->body = strdup(RS_DEFAULT_BODY);
	}
	if (!cfg->body && (cfg->response_size >= 0 || text))
		return -ENOMEM;
	switch (cfg->proto) {
	case RS_PROTO_HTTP:
		return rs_http_prepare(cfg);
	case RS_PROTO_H2:
	case RS_PROTO_GRPC:
		return rs_h2_prepare(cfg);
	default:
		return 0;
	}
}

int main(int argc, char **argv)
{
	struct rs_config cfg;
	struct main_main m = {0};
	struct rs_counters total = {0};
	struct ll_hist *hist = NULL;
	struct rs_worker *w;
	uv_sem_t ready;
	unsigned i, started = 0;
	int err, rc = LL_EXIT_FAIL;
	bool sem_ok = false, loop_ok = false;
	double elapsed;

	rs_parse_args(&cfg, argc, argv);
	signal(SIGPIPE, SIG_IGN);
	/* at start, so a bad path fails now, and never through a link (loadlens/outfile.h) */
	if (cfg.json_path && strcmp(cfg.json_path, "-")) {
		cfg.json_out = ll_output_open(RS_PROG, "--json", cfg.json_path);
		if (!cfg.json_out)
			return LL_EXIT_USAGE;
	}
	if (cfg.trace_path) {
		cfg.trace_out = ll_output_open(RS_PROG, "--trace", cfg.trace_path);
		if (!cfg.trace_out)
			return LL_EXIT_USAGE;
	}

	err = build_body(&cfg);
	if (err) {
		ll_warn(RS_PROG, "cannot build the response: %s", strerror(-err));
		goto cleanup;
	}
	err = rs_probe_port_free(&cfg);
	if (err) {
		ll_warn(RS_PROG, "cannot bind %s (%s): %s; pick another --listen port",
			cfg.listen_str, rs_proto_name(cfg.proto), strerror(-err));
		goto cleanup;
	}
	hist = ll_hist_new();
	m.workers = calloc(cfg.workers, sizeof(*m.workers));
	if (!hist || !m.workers) {
		ll_warn(RS_PROG, "out of memory");
		goto cleanup;
	}
	err = uv_sem_init(&ready, 0);
	if (err) {
		ll_warn(RS_PROG, "cannot create a semaphore: %s", uv_strerror(err));
		goto cleanup;
	}
	sem_ok = true;
	for (i = 0; i < cfg.workers; i++) {
		w = &m.workers[i];
		w->id = i;
		w->cfg = &cfg;
		w->ready = &ready;
		w->exited = &m.exited;
		w->nexited = &m.nexited;
		w->listen_fd = -1;
		w->reserve_fd = -1;
		err = rs_listen_socket(&cfg, &w->listen_fd);
		if (err) {
			ll_warn(RS_PROG, "cannot listen on %s (%s): %s", cfg.listen_str,
				rs_proto_name(cfg.proto), strerror(-err));
			goto cleanup;
		}
	}
	err = uv_loop_init(&m.loop);
	if (err) {
		ll_warn(RS_PROG, "cannot create the main loop: %s", uv_strerror(err));
		goto cleanup;
	}
	loop_ok = true;
	err = signals(&m);
	if (err) {
		ll_warn(RS_PROG, "cannot handle SIGINT/SIGTERM: %s", uv_strerror(err));
		goto cleanup;
	}

	cfg.start_ns = rs_now_ns();
	for (i = 0; i < cfg.workers; i++) {
		err = rs_worker_start(&m.workers[i]);
		if (err) {
			ll_warn(RS_PROG, "cannot start worker %u: %s", i, uv_strerror(err));
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		uv_sem_wait(&ready);
	m.nworkers = started;
	for (i = 0; i < started; i++) {
		if (m.workers[i].init_err) {
			ll_warn(RS_PROG, "worker %u failed to start: %s", i,
				uv_strerror(m.workers[i].init_err));
			err = m.workers[i].init_err;
		}
	}
	if (err) {
		for (i = 0; i < started; i++)
			rs_worker_stop(&m.workers[i]);
		goto cleanup;
	}

	ll_warn(RS_PROG, "listening on %s (%s, %u worker%s)", cfg.listen_str,
		rs_proto_name(cfg.proto), cfg.workers, cfg.workers == 1 ? "" : "s");
	uv_run(&m.loop, UV_RUN_DEFAULT);
	rc = LL_EXIT_OK;

cleanup:
	if (loop_ok) {
		/* After a failed start the handles are still open. */
		close_main_handles(&m);
		uv_run(&m.loop, UV_RUN_DEFAULT);
		if (uv_loop_close(&m.loop)) {
			ll_warn(RS_PROG, "main loop still had handles at exit");
			rc = LL_EXIT_FAIL;
		}
	}
	for (i = 0; i < started; i++) {
		rs_worker_join(&m.workers[i]);
		if (m.workers[i].loop_close_err) {
			ll_warn(RS_PROG, "worker %u: loop still had handles at exit", i);
			rc = LL_EXIT_FAIL;
		}
	}
	if (rc == LL_EXIT_OK) {
		for (i = 0; i < started; i++) {
			rs_merge(&total, &m.workers[i].c);
			ll_hist_merge(hist, m.workers[i].hist);
		}
		elapsed = (double)(m.stop_ns - cfg.start_ns) / 1e9;
		if (cfg.json_path) {
			err = rs_write_json(&cfg, m.workers, &total, hist, elapsed);
			if (err) {
				ll_warn(RS_PROG, "cannot write %s: %s", cfg.json_path,
					strerror(-err));
				rc = LL_EXIT_FAIL;
			}
		}
		if (cfg.trace_out && rs_trace_write(cfg.trace_out, m.workers, started)) {
			ll_warn(RS_PROG, "cannot write %s: %s", cfg.trace_path, strerror(errno));
			rc = LL_EXIT_FAIL;
		}
		rs_print_summary(&cfg, &total, hist, elapsed);
	}
	if (m.workers) {
		for (i = 0; i < cfg.workers; i++) {
			if (m.workers[i].listen_fd >= 0)
				close(m.workers[i].listen_fd);
			ll_hist_free(m.workers[i].hist);
			rs_trace_free(&m.workers[i]);
		}
	}
	free(m.workers);
	if (sem_ok)
		uv_sem_destroy(&ready);
	ll_hist_free(hist);
	if (cfg.proto == RS_PROTO_H2 || cfg.proto == RS_PROTO_GRPC)
		rs_h2_release();
	free(cfg.body);
	if (cfg.trace_out && fclose(cfg.trace_out) && rc == LL_EXIT_OK) {
		ll_warn(RS_PROG, "cannot write %s: %s", cfg.trace_path, strerror(errno));
		rc = LL_EXIT_FAIL;
	}
	if (cfg.json_out && fclose(cfg.json_out) && rc == LL_EXIT_OK) {
		ll_warn(RS_PROG, "cannot write %s: %s", cfg.json_path, strerror(errno));
		rc = LL_EXIT_FAIL;
	}
	return rc;
}
