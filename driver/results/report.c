// SPDX-License-Identifier: MIT
/* Human output: the banner, the per-interval lines (stderr) and the summary (stdout). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "loadlens/cli.h"
#include "config/config.h"
#include "config/engine.h"
#include "base/drv.h"
#include "config/quote.h"
#include "results/report.h"
#include "results/result.h"

static const char *bytes(uint64_t b, char *buf, size_t len)
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

static const char *rate(double r, char *buf, size_t len)
{
	if (r < 1e4)
		snprintf(buf, len, "%.1f", r);
	else if (r < 1e7)
		snprintf(buf, len, "%.1fk", r / 1e3);
	else
		snprintf(buf, len, "%.2fM", r / 1e6);
	return buf;
}

double drv_report_throughput(const struct drv_result *res)
{
	if (!res->duration_ns)
		return 0;
	return (double)res->total.requests * 1e9 / (double)res->duration_ns;
}

double drv_report_cpu_per_request_us(const struct drv_result *res)
{
	uint64_t n = res->total.requests + res->total.errors_total + res->warmup_requests;

	return n ? (double)res->cpu_ns / 1e3 / (double)n : 0;
}

double drv_report_busiest_thread(const struct drv_result *res)
{
	return res->duration_ns ? (double)res->max_thread_cpu_ns / (double)res->duration_ns : 0;
}

double drv_report_busiest_work(const struct drv_result *res)
{
	return res->duration_ns ? (double)res->max_thread_work_ns / (double)res->duration_ns : 0;
}

const char *drv_report_bottleneck(const struct drv_config *cfg, const struct drv_result *res,
				  char *buf, size_t len)
{
	const struct drv_stats *t = &res->total;
	/* the pacer's spin before a send is the thread waiting, not working: a driver that
	 * keeps its schedule while spinning has room to spare */
	double busy = drv_report_busiest_work(res);
	uint64_t n = t->requests + t->errors_total + res->warmup_requests;
	char b[32];

	/* too short to say: start-up and one-off costs dominate a tiny run */
	if (res->duration_ns < DRV_BOTTLENECK_MIN_NS || n < DRV_BOTTLENECK_MIN_REQUESTS)
		return NULL;
	if (busy >= 0.9 && !res->merged) {
		snprintf(buf, len,
			 "the driver was the bottleneck: its busiest thread worked %.0f%% of a core "
			 "(the pacer's wait for its next send left out); add -t threads or machines "
			 "(--shard) before trusting the server's limit",
			 busy * 100);
		return buf;
	}
	if (ll_hist_count(t->send_lag) &&
	    ll_hist_percentile(t->send_lag, 99) > 1000000) {
		ll_fmt_ns((double)ll_hist_percentile(t->send_lag, 99), b, sizeof(b));
		if (busy < 0.5 && !res->merged)
			snprintf(buf, len,
				 "the driver's sends ran late (send lag p99 %s) while its busiest "
				 "thread worked only %.0f%% of a core: other load on this machine "
				 "delayed it; the corrected latency still counts that delay",
				 b, busy * 100);
		else
			snprintf(buf, len,
				 "the driver ran late: send lag p99 %s, so it could not keep the "
				 "schedule; add -t threads or machines",
				 b);
		return buf;
	}
	return NULL;
}

void drv_report_banner(FILE *f, const struct drv_config *cfg)
{
	char k[32] = "", d[32], url[256];

	if (cfg->conn_model == DRV_CONN_RECONNECT)
		snprintf(k, sizeof(k), " %llu", (unsigned long long)cfg->reconnect_every);
	fprintf(f, "%s %s: %llu connection%s over %llu thread%s, %s%s, ", DRV_PROG,
		ll_quote(cfg->url_text, url, sizeof(url)),
		(unsigned long long)cfg->connections, cfg->connections == 1 ? "" : "s",
		(unsigned long long)cfg->threads, cfg->threads == 1 ? "" : "s",
		cfg->url.scheme == LL_SCHEME_UDP ? "datagrams" : drv_conn_model_name(cfg->conn_model),
		k);
	if (cfg->rate)
		fprintf(f, "open loop at %s req/s%s, ", rate(cfg->rate, d, sizeof(d)),
			cfg->shard_count > 1 ? " over all shards" : "");
	else
		fprintf(f, "closed loop, ");
	if (cfg->requests)
		fprintf(f, "%llu requests%s", (unsigned long long)cfg->requests,
			cfg->duration_ns ? " or " : "");
	if (cfg->duration_ns)
		fprintf(f, "%s", ll_fmt_ns((double)cfg->duration_ns, d, sizeof(d)));
	if (cfg->warmup_ns)
		fprintf(f, " after a %s warm-up", ll_fmt_ns((double)cfg->warmup_ns, d, sizeof(d)));
	if (cfg->shard_count > 1)
		fprintf(f, ", shard %u/%u", cfg->shard_index, cfg->shard_count);
	fputc('\n', f);
	fflush(f);
}

void drv_report_live(FILE *f, uint64_t elapsed_ns, uint64_t iv_ns, const struct ll_hist *h,
		     uint64_t errors, uint64_t connections, bool warm)
{
	char r[32], m[32], sd[32], p[32];
	uint64_t n = ll_hist_count(h);

	fprintf(f, "[%7.1fs] %llu responses, %s req/s, mean %s, stddev %s, p99 %s, %llu errors, "
		   "%llu connections%s\n",
		(double)elapsed_ns / 1e9, (unsigned long long)n,
		rate(iv_ns ? (double)n * 1e9 / (double)iv_ns : 0, r, sizeof(r)),
		n ? ll_fmt_ns(ll_hist_mean(h), m, sizeof(m)) : "-",
		n ? ll_fmt_ns(ll_hist_stddev(h), sd, sizeof(sd)) : "-",
		n ? ll_fmt_ns((double)ll_hist_percentile(h, 99), p, sizeof(p)) : "-",
		(unsigned long long)errors, (unsigned long long)connections,
		warm ? " (warm-up)" : "");
	fflush(f);
}

static void hist_line(FILE *f, const char *label, const struct ll_hist *h, bool full,
			 const char *note)
{
	static const struct {
		const char *name;
		double p;
	} ps[] = {{"p50", 50}, {"p75", 75}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}};
	char b[32];
	size_t i;

	fprintf(f, "  %-12s", label);
	if (!ll_hist_count(h)) {
		fprintf(f, " none\n");
		return;
	}
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		if (!full && i != 0 && i != 4) /* p50 and p99 */
			continue;
		fprintf(f, " %s %s", ps[i].name,
			ll_fmt_ns((double)ll_hist_percentile(h, ps[i].p), b, sizeof(b)));
	}
	fprintf(f, "  max %s", ll_fmt_ns((double)ll_hist_max(h), b, sizeof(b)));
	fprintf(f, "  mean %s", ll_fmt_ns(ll_hist_mean(h), b, sizeof(b)));
	if (full)
		fprintf(f, "  stddev %s", ll_fmt_ns(ll_hist_stddev(h), b, sizeof(b)));
	fprintf(f, "%s\n", note ? note : "");
}

/* The name of entry i of a counted array (made into buf where it has to be). */
typedef const char *(*name_fn)(int i, char *buf, size_t len);

/*
 * "  LABEL", then for each non-zero n[i] " PRE NAME SEP N", a comma before all but the first; or
 * " none". No newline.
 */
static void counts(FILE *f, const char *label, const uint64_t *n, int count, name_fn name,
		      const char *pre, const char *sep)
{
	char buf[16];
	int i, first = 1;

	fprintf(f, "  %-12s", label);
	for (i = 0; i < count; i++) {
		if (!n[i])
			continue;
		fprintf(f, "%s %s%s%s%llu", first ? "" : ",", pre, name(i, buf, sizeof(buf)), sep,
			(unsigned long long)n[i]);
		first = 0;
	}
	if (first)
		fputs(" none", f);
}

static const char *status_name(int i, char *buf, size_t len)
{
	snprintf(buf, len, "%d", i);
	return buf;
}

static const char *httpv_name(int i, char *buf, size_t len)
{
	return drv_httpv_name((enum drv_httpv)i);
}

static const char *err_name(int i, char *buf, size_t len)
{
	return drv_err_name((enum drv_err)i);
}

static void status_line(FILE *f, const struct drv_stats *t)
{
	counts(f, "status", t->status, DRV_STATUS_MAX, status_name, "", ": ");
	fputc('\n', f);
}

/* "  http version HTTP/2: 1000", and a note when --http2 was asked but not negotiated */
static void version_line(FILE *f, const struct drv_config *cfg, const struct drv_stats *t)
{
	uint64_t other = 0;
	int i;

	for (i = 0; i < DRV_HTTPV__COUNT; i++)
		if (i != DRV_HTTPV_2)
			other += t->http_version[i];
	counts(f, "http version", t->http_version, DRV_HTTPV__COUNT, httpv_name, "HTTP/",
		  ": ");
	if (cfg->http2 && other)
		fprintf(f, "  (--http2 asked: the server did not negotiate h2 for %llu)",
			(unsigned long long)other);
	fputc('\n', f);
}

void drv_report_summary(FILE *f, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	char b1[32], b2[32], b3[32], hint[400], target[LL_HOST_MAX + 16];
	const struct drv_engine *eng;
	double thr = drv_report_throughput(res);
	int e;

	fprintf(f, "  %-12s %llu ok, %llu errors, %llu cancelled (stopped by %s%s)\n", "requests",
		(unsigned long long)t->requests, (unsigned long long)t->errors_total,
		(unsigned long long)t->cancelled, drv_stop_reason_name(res->reason),
		res->before_start ? ", cancelled before start" : "");
	if (t->not_sent)
		fprintf(f, "  %-12s %llu (the server could not keep up with --rate)\n", "not sent",
			(unsigned long long)t->not_sent);
	fprintf(f, "  %-12s %s\n", "duration", ll_fmt_ns((double)res->duration_ns, b1, sizeof(b1)));
	fprintf(f, "  %-12s %s req/s", "throughput", rate(thr, b1, sizeof(b1)));
	if (cfg->rate)
		fprintf(f, " of %s asked (%.2f%%)", rate(cfg->rate, b2, sizeof(b2)),
			thr * 100 / cfg->rate);
	fprintf(f, ", sent %s, received %s\n", bytes(t->bytes_sent, b2, sizeof(b2)),
		bytes(t->bytes_received, b3, sizeof(b3)));
	fprintf(f, "  %-12s %llu opened of %llu attempts\n",
		cfg->url.scheme == LL_SCHEME_UDP ? "sockets" : "connections",
		(unsigned long long)t->connections, (unsigned long long)t->connect_attempts);
	hist_line(f, "latency", t->latency, true,
		     cfg->rate ? "  (from the intended send time)" : NULL);
	if (cfg->rate || cfg->delay_ns)
		hist_line(f, "uncorrected", t->latency_uncorrected, true,
			     "  (from the actual send: hides queueing)");
	if (cfg->url.scheme != LL_SCHEME_UDP)
		hist_line(f, "connect", t->connect, false, NULL);
	if (ll_hist_count(t->send_lag)) {
		hist_line(f, "send lag", t->send_lag, false, "  (driver lateness)");
		/* what made it late: other processes on the driver's CPU, or its timer */
		fprintf(f, "  %-12s workers preempted %llu times, %s runnable without a CPU; "
			   "%llu timer wake-ups, %llu sleeps\n",
			"scheduling", (unsigned long long)t->nivcsw,
			ll_fmt_ns((double)t->runq_ns, b1, sizeof(b1)),
			(unsigned long long)t->timer_wakes, (unsigned long long)t->nvcsw);
	}
	if (t->behind)
		fprintf(f, "  %-12s %llu requests started late because their connection was still "
			   "busy (more -c keeps the schedule)\n",
			"behind", (unsigned long long)t->behind);
	if (ll_scheme_has_path(cfg->url.scheme)) {
		status_line(f, t);
		version_line(f, cfg, t);
	}
	if ((eng = drv_config_engine(cfg)) && eng->text)
		eng->text(f, cfg, t); /* h2's or udp's lines (config/engine.h) */
	drv_report_work(f, cfg, res); /* report_work.c */
	if (res->warmup_requests)
		fprintf(f, "  %-12s %llu requests left out\n", "warm-up",
			(unsigned long long)res->warmup_requests);
	fprintf(f, "  %-12s %s CPU, %.2fus per request", "driver",
		ll_fmt_ns((double)res->cpu_ns, b1, sizeof(b1)), drv_report_cpu_per_request_us(res));
	if (!res->merged && res->max_thread_work_ns + res->duration_ns / 100 < res->max_thread_cpu_ns)
		fprintf(f, ", busiest thread %.0f%% of a core (%.0f%% work, the rest the pacer "
			   "waiting for its next send)", drv_report_busiest_thread(res) * 100,
			drv_report_busiest_work(res) * 100);
	else if (!res->merged)
		fprintf(f, ", busiest thread %.0f%% of a core", drv_report_busiest_thread(res) * 100);
	else if (res->procs)
		fprintf(f, ", in %u worker processes", res->procs);
	fputc('\n', f);
	counts(f, "errors", t->errors, DRV_ERR__COUNT, err_name, "", " ");
	fputc('\n', f);
	snprintf(target, sizeof(target), "%s:%u", cfg->url.host, cfg->url.port);
	for (e = 0; e < DRV_ERR__COUNT; e++) {
		if (!t->errors[e])
			continue;
		fprintf(f, "hint: %s: %s\n", drv_err_name((enum drv_err)e),
			drv_err_hint((enum drv_err)e, t, target, hint, sizeof(hint)));
		/* the first negotiation failure's own words (OpenSSL's, libcurl's), how often */
		if (res->neg_why[0] && drv_err_class(res->neg_err) == (enum drv_err)e)
			fprintf(f, "hint: %s: the first failure: %s (%" PRIu64 " failure%s gave "
				   "this reason)\n", drv_err_name((enum drv_err)e), res->neg_why,
				res->neg_count, res->neg_count == 1 ? "" : "s");
	}
	if (res->reason == DRV_STOP_NEGOTIATION) { /* the one line that says why the run ended */
		if (res->neg_why[0]) /* last: a reason may hold colons */
			snprintf(hint, sizeof(hint), " (%" PRIu64 " failure%s: %s)", res->neg_count,
				 res->neg_count == 1 ? "" : "s", res->neg_why);
		else
			hint[0] = '\0';
		fprintf(f, "stopped: every connection failed its %s negotiation and none was "
			   "answered: retrying would fail the same way%s\n",
			drv_err_class(res->neg_err) == DRV_ERR_NOT_H2 ? "HTTP/2" : "TLS", hint);
	}
	if ((eng = drv_config_engine(cfg)) && eng->hints)
		eng->hints(f, cfg, t); /* h2's */
	if (drv_report_bottleneck(cfg, res, hint, sizeof(hint)))
		fprintf(f, "warning: %s\n", hint);
	fflush(f);
}
