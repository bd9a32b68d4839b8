// SPDX-License-Identifier: MIT
/* Human summary (stdout), live line (stderr) and JSON results. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "loadlens/cli.h"
#include "loadlens/hist_json.h"
#include "config.h"
#include "drv.h"
#include "report.h"
#include "run.h"

#define DRV_JSON_SCHEMA 1

static const char *x__bytes(uint64_t b, char *buf, size_t len)
{
	if (b < 10000)
		snprintf(buf, len, "%lluB", (unsigned long long)b);
	else if (b < 10000000)
		snprintf(buf, len, "%.1fkB", (double)b / 1e3);
	else if (b < 10000000000ULL)
		snprintf(buf, len, "%.1fMB", (double)b / 1e6);
	else
		snprintf(buf, len, "%.1fGB", (double)b / 1e9);
	return buf;
}

static const char *x__rate(double r, char *buf, size_t len)
{
	if (r < 1e4)
		snprintf(buf, len, "%.1f", r);
	else if (r < 1e7)
		snprintf(buf, len, "%.1fk", r / 1e3);
	else
		snprintf(buf, len, "%.2fM", r / 1e6);
	return buf;
}

static double x__throughput(const struct drv_result *res)
{
	if (!res->duration_ns)
		return 0;
	return (double)res->total.requests * 1e9 / (double)res->duration_ns;
}

void drv_report_banner(FILE *f, const struct drv_config *cfg)
{
	char k[32] = "";

	if (cfg->conn_model == DRV_CONN_RECONNECT)
		snprintf(k, sizeof(k), " %llu", (unsigned long long)cfg->reconnect_every);
	fprintf(f, "%s %s: %llu connection%s over %llu thread%s, %s%s, %llu-byte requests, ",
		DRV_PROG, cfg->url_text, (unsigned long long)cfg->connections,
		cfg->connections == 1 ? "" : "s", (unsigned long long)cfg->threads,
		cfg->threads == 1 ? "" : "s", drv_conn_model_name(cfg->conn_model), k,
		(unsigned long long)cfg->size);
	if (cfg->requests)
		fprintf(f, "%llu requests%s", (unsigned long long)cfg->requests,
			cfg->duration_ns ? " or " : "");
	if (cfg->duration_ns) {
		char d[32];

		fprintf(f, "%s", ll_fmt_ns((double)cfg->duration_ns, d, sizeof(d)));
	}
	fputc('\n', f);
	fflush(f);
}

void drv_report_live(FILE *f, uint64_t elapsed_ns, uint64_t requests, double rps,
		     uint64_t connections, uint64_t errors)
{
	char r[32];

	fprintf(f, "[%7.1fs] %llu requests, %s req/s, %llu connections, %llu errors\n",
		(double)elapsed_ns / 1e9, (unsigned long long)requests, x__rate(rps, r, sizeof(r)),
		(unsigned long long)connections, (unsigned long long)errors);
	fflush(f);
}

static void x__hist_line(FILE *f, const char *label, const struct ll_hist *h, bool full)
{
	static const struct {
		const char *name;
		double p;
	} ps[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}};
	char b[32];
	size_t i;

	fprintf(f, "  %-12s", label);
	if (!ll_hist_count(h)) {
		fprintf(f, " none\n");
		return;
	}
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		if (!full && i != 0 && i != 2)
			continue;
		fprintf(f, " %s %s", ps[i].name,
			ll_fmt_ns((double)ll_hist_percentile(h, ps[i].p), b, sizeof(b)));
	}
	fprintf(f, "  max %s", ll_fmt_ns((double)ll_hist_max(h), b, sizeof(b)));
	fprintf(f, "  mean %s", ll_fmt_ns(ll_hist_mean(h), b, sizeof(b)));
	if (full)
		fprintf(f, "  stddev %s", ll_fmt_ns(ll_hist_stddev(h), b, sizeof(b)));
	fputc('\n', f);
}

void drv_report_summary(FILE *f, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	char b1[32], b2[32], hint[320], target[LL_HOST_MAX + 16];
	int e, first = 1;

	fprintf(f, "  %-12s %llu ok, %llu errors, %llu cancelled (stopped by %s)\n", "requests",
		(unsigned long long)t->requests, (unsigned long long)t->errors_total,
		(unsigned long long)t->cancelled, drv_stop_reason_name(res->reason));
	fprintf(f, "  %-12s %s\n", "duration", ll_fmt_ns((double)res->duration_ns, b1, sizeof(b1)));
	fprintf(f, "  %-12s %s req/s, sent %s, received %s\n", "throughput",
		x__rate(x__throughput(res), b1, sizeof(b1)),
		x__bytes(t->bytes_sent, b2, sizeof(b2)),
		x__bytes(t->bytes_received, hint, sizeof(hint)));
	fprintf(f, "  %-12s %llu opened of %llu attempts\n", "connections",
		(unsigned long long)t->connections, (unsigned long long)t->connect_attempts);
	x__hist_line(f, "latency", t->latency, true);
	x__hist_line(f, "connect", t->connect, false);
	fprintf(f, "  %-12s", "errors");
	for (e = 0; e < DRV_ERR__COUNT; e++) {
		if (!t->errors[e])
			continue;
		fprintf(f, "%s %s %llu", first ? "" : ",", drv_err_name((enum drv_err)e),
			(unsigned long long)t->errors[e]);
		first = 0;
	}
	fprintf(f, "%s\n", first ? " none" : "");
	snprintf(target, sizeof(target), "%s:%u", cfg->url.host, cfg->url.port);
	for (e = 0; e < DRV_ERR__COUNT; e++) {
		if (t->errors[e])
			fprintf(f, "hint: %s: %s\n", drv_err_name((enum drv_err)e),
				drv_err_hint((enum drv_err)e, t, target, hint, sizeof(hint)));
	}
	fflush(f);
}

/* json_object_set_new() with a check: any failure makes the document NULL. */
static int x__set(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *x__u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *x__config(const struct drv_config *cfg)
{
	json_t *o = json_object();
	int bad = 0;

	if (!o)
		return NULL;
	bad |= x__set(o, "connections", x__u64(cfg->connections));
	bad |= x__set(o, "threads", x__u64(cfg->threads));
	bad |= x__set(o, "requests", cfg->requests ? x__u64(cfg->requests) : json_null());
	bad |= x__set(o, "duration_ns", cfg->duration_ns ? x__u64(cfg->duration_ns) : json_null());
	bad |= x__set(o, "conn_model", json_string(drv_conn_model_name(cfg->conn_model)));
	bad |= x__set(o, "reconnect_every", x__u64(cfg->reconnect_every));
	bad |= x__set(o, "size", x__u64(cfg->size));
	bad |= x__set(o, "timeout_ns", x__u64(cfg->timeout_ns));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *drv_report_json(const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	json_t *o = json_object(), *errs = json_object();
	int bad = 0, e;

	if (!o || !errs) {
		json_decref(o);
		json_decref(errs);
		return NULL;
	}
	for (e = 0; e < DRV_ERR__COUNT; e++)
		bad |= x__set(errs, drv_err_name((enum drv_err)e), x__u64(t->errors[e]));
	bad |= x__set(o, "tool", json_string(DRV_PROG));
	bad |= x__set(o, "version", json_string(LOADLENS_VERSION));
	bad |= x__set(o, "schema", json_integer(DRV_JSON_SCHEMA));
	bad |= x__set(o, "target", json_string(cfg->url_text));
	bad |= x__set(o, "proto", json_string(ll_scheme_name(cfg->url.scheme)));
	bad |= x__set(o, "config", x__config(cfg));
	bad |= x__set(o, "start_unix_ns", x__u64(res->start_unix_ns));
	bad |= x__set(o, "duration_ns", x__u64(res->duration_ns));
	bad |= x__set(o, "stopped_by", json_string(drv_stop_reason_name(res->reason)));
	bad |= x__set(o, "requests", x__u64(t->requests));
	bad |= x__set(o, "connections", x__u64(t->connections));
	bad |= x__set(o, "connect_attempts", x__u64(t->connect_attempts));
	bad |= x__set(o, "errors", errs);
	bad |= x__set(o, "errors_total", x__u64(t->errors_total));
	bad |= x__set(o, "cancelled", x__u64(t->cancelled));
	bad |= x__set(o, "bytes_sent", x__u64(t->bytes_sent));
	bad |= x__set(o, "bytes_received", x__u64(t->bytes_received));
	bad |= x__set(o, "throughput_rps", json_real(x__throughput(res)));
	bad |= x__set(o, "nofile_limit", x__u64(res->nofile_limit));
	bad |= x__set(o, "latency", ll_hist_to_json(t->latency));
	bad |= x__set(o, "connect_latency", ll_hist_to_json(t->connect));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int drv_report_json_write(const char *path, const struct drv_config *cfg,
			  const struct drv_result *res)
{
	json_t *o = drv_report_json(cfg, res);
	int err = 0;

	if (!o)
		return -ENOMEM;
	errno = 0;
	if (json_dump_file(o, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		err = errno ? -errno : -EIO;
	json_decref(o);
	return err;
}
