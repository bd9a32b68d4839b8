// SPDX-License-Identifier: MIT
/* The JSON result document (schema 2, docs/driver.md): written by a run and by merge. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loadlens/hist_json.h"
#include "config/config.h"
#include "config/app.h"
#include "config/engine.h"
#include "base/drv.h"
#include "results/option_json.h"
#include "results/report.h"
#include "results/report_ext.h"
#include "results/result.h"

#define DRV_JSON_SCHEMA 2

/* An option of a plain kind, under its key in a result (config/options.def). */
static int opt(json_t *o, const struct drv_config *cfg, enum drv_opt id)
{
	return drv_option_set(o, cfg, id, DRV_UNITS_RESULT);
}

/* The options as run: those of a plain kind from their descriptors, the others here */
static json_t *config(const struct drv_config *cfg)
{
	json_t *o = json_object();
	const struct drv_app *a;
	unsigned i;
	int bad = 0;

	if (!o)
		return NULL;
	bad |= opt(o, cfg, DRV_OPT_CONNECTIONS);
	bad |= opt(o, cfg, DRV_OPT_THREADS);
	bad |= opt(o, cfg, DRV_OPT_REQUESTS);
	bad |= opt(o, cfg, DRV_OPT_DURATION);
	bad |= drv_json_set(o, "conn_model", json_string(drv_conn_model_name(cfg->conn_model)));
	bad |= opt(o, cfg, DRV_OPT_RECONNECT_EVERY);
	bad |= opt(o, cfg, DRV_OPT_SIZE);
	bad |= drv_json_set(o, "size_min", drv_json_u64(cfg->size_min));
	bad |= opt(o, cfg, DRV_OPT_TIMEOUT);
	bad |= opt(o, cfg, DRV_OPT_RATE);
	bad |= opt(o, cfg, DRV_OPT_DELAY);
	bad |= opt(o, cfg, DRV_OPT_WARMUP);
	bad |= opt(o, cfg, DRV_OPT_PAYLOAD);
	bad |= drv_json_set(o, "response_rule", json_string(drv_resp_rule_name(cfg->resp_rule)));
	if (ll_scheme_has_path(cfg->url.scheme)) {
		bad |= opt(o, cfg, DRV_OPT_METHOD);
		bad |= drv_json_set(
		    o, "http_engine",
		    json_string(cfg->http_engine == DRV_HTTP_CURL ? "curl" : "native"));
		bad |= opt(o, cfg, DRV_OPT_HTTP2);
		bad |= opt(o, cfg, DRV_OPT_STREAMS);
	}
	if (drv_config_tls(cfg) || drv_config_app_tls(cfg)) { /* and ldaps, --starttls */
		bad |= drv_json_set(o, "tls_verify", json_boolean(!cfg->insecure));
		bad |= opt(o, cfg, DRV_OPT_CACERT);
	}
	for (i = 0; (a = drv_app_at(i)); i++)
		if (a->report && a->report->config) /* config.ldap: a protocol's (report_ext.h) */
			bad |= a->report->config(o, cfg);
	bad |= drv_json_set(o, "shard_index", drv_json_u64(cfg->shard_index));
	bad |= drv_json_set(o, "shard_count", drv_json_u64(cfg->shard_count));
	bad |= opt(o, cfg, DRV_OPT_CONNECT_RATE);
	bad |= drv_json_set(o, "source_addrs", drv_json_u64(cfg->nsources));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static const char *httpv_name(unsigned v, char *buf, unsigned len)
{
	(void)buf;
	(void)len;
	return drv_httpv_name((enum drv_httpv)v);
}

/* drv_stats_sums[] from the one keyed first to the one keyed last, in their order: 0 or -1. */
static int sums(json_t *o, const struct drv_stats *t, const char *first, const char *last)
{
	size_t i = 0;
	int bad = 0;

	while (i < drv_stats_nsums && strcmp(drv_stats_sums[i].key, first))
		i++;
	for (; i < drv_stats_nsums; i++) {
		bad |= drv_json_set(
		    o, drv_stats_sums[i].key,
		    drv_json_u64(*(const uint64_t *)((const char *)t + drv_stats_sums[i].off)));
		if (!strcmp(drv_stats_sums[i].key, last))
			return bad;
	}
	return -1; /* a key not in the list, or last before first: a bug, not a silent gap */
}

static json_t *driver(const struct drv_config *cfg, const struct drv_result *res)
{
	json_t *o = json_object();
	char buf[400];
	const char *warn = drv_report_bottleneck(cfg, res, buf, sizeof(buf));
	int bad = 0;

	if (!o)
		return NULL;
	bad |= drv_json_set(o, "cpu_ns", drv_json_u64(res->cpu_ns));
	bad |= drv_json_set(o, "cpu_per_request_us", json_real(drv_report_cpu_per_request_us(res)));
	bad |= drv_json_set(o, "max_thread_cpu_ns", drv_json_u64(res->max_thread_cpu_ns));
	bad |= drv_json_set(o, "busiest_thread_core", json_real(drv_report_busiest_thread(res)));
	bad |= drv_json_set(o, "max_thread_work_ns", drv_json_u64(res->max_thread_work_ns));
	bad |= drv_json_set(o, "busiest_thread_work_core", json_real(drv_report_busiest_work(res)));
	/* the pacer's waiting; the workers' own: preempted (switches, run-queue wait) vs woken by
	 * their timer */
	bad |= sums(o, &res->total, "pacer_idle_ns", "spin_ns");
	bad |= drv_json_set(o, "bottleneck", warn ? json_string(warn) : json_null());
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *drv_report_json(const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	const struct drv_engine *eng;
	json_t *o = json_object(), *errs = json_object();
	double thr = drv_report_throughput(res);
	int bad = 0, e;

	if (!o || !errs) {
		json_decref(o);
		json_decref(errs);
		return NULL;
	}
	for (e = 0; e < DRV_ERR__COUNT; e++)
		bad |=
		    drv_json_set(errs, drv_err_name((enum drv_err)e), drv_json_u64(t->errors[e]));
	bad |= drv_json_set(o, "tool", json_string(DRV_PROG));
	bad |= drv_json_set(o, "version", json_string(LOADLENS_VERSION));
	bad |= drv_json_set(o, "schema", json_integer(DRV_JSON_SCHEMA));
	bad |= drv_json_set(o, "target", json_string(cfg->url_text));
	bad |= drv_json_set(o, "proto", json_string(ll_scheme_name(cfg->url.scheme)));
	bad |= drv_json_set(o, "config", config(cfg));
	bad |= drv_json_set(o, "merged_from", drv_json_u64(res->merged));
	bad |= drv_json_set(o, "procs", drv_json_u64(res->procs ? res->procs : 1));
	bad |= drv_json_set(o, "start_unix_ns", drv_json_u64(res->start_unix_ns));
	bad |= drv_json_set(o, "duration_ns", drv_json_u64(res->duration_ns));
	bad |= drv_json_set(o, "stopped_by", json_string(drv_stop_reason_name(res->reason)));
	/* the first TLS or HTTP/2 negotiation failure: its class, reason, how often (null: none) */
	bad |=
	    drv_json_set(o, "negotiation_failure",
			 res->neg_err ? json_pack("{s:s, s:s?, s:I}", "error",
						  drv_err_name(drv_err_class(res->neg_err)),
						  "reason", res->neg_why[0] ? res->neg_why : NULL,
						  "count", (json_int_t)res->neg_count)
				      : json_null());
	bad |= sums(o, t, "requests", "connect_attempts");
	bad |= drv_json_set(o, "errors", errs);
	bad |= sums(o, t, "errors_total", "cancelled");
	bad |= drv_json_set(o, "cancelled_before_start", json_boolean(res->before_start));
	bad |= sums(o, t, "not_sent", "rxq_ovfl");
	bad |= drv_json_set(o, "rcvbuf_bytes", drv_json_u64(t->rcvbuf));
	bad |= sums(o, t, "behind", "behind");
	bad |= drv_json_set(o, "warmup_requests", drv_json_u64(res->warmup_requests));
	bad |= sums(o, t, "bytes_sent", "bytes_received");
	bad |= drv_json_set(o, "throughput_rps", json_real(thr));
	bad |= drv_json_set(o, "rate_asked", cfg->rate ? json_real(cfg->rate) : json_null());
	bad |= drv_json_set(o, "rate_achieved_pct",
			    cfg->rate ? json_real(thr * 100 / cfg->rate) : json_null());
	bad |= drv_json_set(o, "status", ll_json_counts(t->status, DRV_STATUS_MAX, ll_code_number));
	bad |= drv_json_set(o, "http_version",
			    ll_json_counts(t->http_version, DRV_HTTPV__COUNT, httpv_name));
	bad |= drv_json_set(o, "nofile_limit", drv_json_u64(res->nofile_limit));
	bad |= drv_json_set(o, "driver", driver(cfg, res));
	bad |= drv_json_set(o, "latency", ll_hist_to_json(t->latency));
	bad |= drv_json_set(o, "latency_uncorrected", ll_hist_to_json(t->latency_uncorrected));
	bad |= drv_json_set(o, "send_lag", ll_hist_to_json(t->send_lag));
	bad |= drv_json_set(o, "connect_latency", ll_hist_to_json(t->connect));
	bad |= drv_json_set(o, "late_latency", ll_hist_to_json(t->late_latency));
	bad |= drv_report_json_work(o, cfg, res) ? 1 : 0; /* report_work.c */
	if ((eng = drv_config_engine(cfg)) && eng->json) /* h2's "h2", "grpc_status" (engine.h) */
		bad |= eng->json(o, cfg, res) ? 1 : 0;
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int drv_report_json_write_fd(int fd, const struct drv_config *cfg, const struct drv_result *res)
{
	json_t *o = drv_report_json(cfg, res);
	char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	size_t len, off = 0;
	ssize_t n;
	int err = 0;

	json_decref(o);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	/* one buffer, a few writes: json_dumpfd() wrote each token apart (7,000 writes a file) */
	len = strlen(text);
	text[len++] = '\n'; /* over the terminating NUL: the length is kept apart */
	while (off < len) {
		n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)n;
	}
	free(text);
	if (close(fd) && !err)
		err = -errno;
	return err;
}
