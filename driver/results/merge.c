// SPDX-License-Identifier: MIT
/* Exact merge of driver JSON results: summed counters, merged histograms. */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "loadlens/cli.h"
#include "loadlens/hist_json.h"
#include "loadlens/infile.h"
#include "loadlens/outfile.h"
#include "base/drv.h"
#include "config/app.h"
#include "config/engine.h"
#include "config/options.h"
#include "config/parse.h"
#include "results/merge.h"
#include "results/report.h"
#include "results/report_ext.h"
#include "config/quote.h"

static uint64_t u64(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v)
							       : 0;
}

/* A run's negotiation_failure (null, or absent in files written before it existed: none). */
static void negotiation(struct drv_result *res, const json_t *nf)
{
	const char *e = json_string_value(json_object_get(nf, "error"));

	if (e && (!strcmp(e, "tls") || !strcmp(e, "not_h2")))
		drv_result_negotiation(res, !strcmp(e, "tls") ? DRV_E_TLS : DRV_E_NOT_H2,
				       json_string_value(json_object_get(nf, "reason")),
				       u64(nf, "count"));
}

int drv_merge_init(struct drv_merge *m)
{
	memset(m, 0, sizeof(*m));
	drv_config_init(&m->cfg);
	m->cfg.connections = 0;
	m->cfg.threads = 0;
	m->shards_agree = true;
	return drv_stats_init(&m->res.total);
}

void drv_merge_fini(struct drv_merge *m)
{
	drv_result_fini(&m->res);
	drv_config_fini(&m->cfg);
}

static int hist(struct ll_hist *dst, const json_t *doc, const char *key, char *err,
		   size_t len)
{
	struct ll_hist *h = ll_hist_new();
	json_t *o = json_object_get(doc, key);
	int r = 0;

	if (!h)
		return drv_errf(err, len, "out of memory");
	if (o && ll_hist_from_json(h, o))
		r = drv_errf(err, len, "\"%s\" is not a loadlens histogram", key);
	else
		ll_hist_merge(dst, h);
	ll_hist_free(h);
	return r;
}

/*
 * The options config/options.def marks rule, from a run's config: SUM adds its value, FIRST
 * (called for the first run) takes it where the run has one, else the default stays.
 */
static void options(struct drv_config *dst, const json_t *cfg, enum drv_opt_merge rule)
{
	const struct drv_option *o;
	const json_t *v;
	size_t i;

	for (i = 0; i < DRV_OPT__COUNT; i++) {
		o = &drv_options[i];
		if (o->merge != rule || !o->json_key)
			continue;
		v = json_object_get(cfg, o->json_key);
		if (o->kind == DRV_OPT_KIND_BOOL) {
			if (v)
				*(bool *)((char *)dst + o->field) = json_is_true(v);
		} else if (o->kind == DRV_OPT_KIND_COUNT || o->kind == DRV_OPT_KIND_COUNT0) {
			uint64_t *f = (uint64_t *)((char *)dst + o->field);

			if (rule == DRV_OPT_MERGE_SUM)
				*f += u64(cfg, o->json_key);
			else if (u64(cfg, o->json_key))
				*f = u64(cfg, o->json_key);
		}
	}
}

/* The first run fixes the target; later ones must aim at the same one. */
static int target(struct drv_merge *m, const json_t *doc, const json_t *cfg, char *err,
		     size_t len)
{
	const char *t = json_string_value(json_object_get(doc, "target"));
	const char *eng = json_string_value(json_object_get(cfg, "http_engine"));

	if (!t)
		return drv_errf(err, len, "no \"target\"");
	if (!m->res.merged) {
		snprintf(m->target, sizeof(m->target), "%s", t);
		if (ll_parse_url(m->target, &m->cfg.url))
			return drv_errf(err, len, "bad target '%s'", t);
		m->cfg.url_text = m->target;
		if (eng && !strcmp(eng, "curl"))
			m->cfg.http_engine = DRV_HTTP_CURL;
		options(&m->cfg, cfg, DRV_OPT_MERGE_FIRST); /* --http2, --streams */
	} else if (strcmp(t, m->target)) {
		return drv_errf(err, len, "target %s differs from %s of the first run", t,
				m->target);
	}
	return 0;
}

/* The counters that add up, those of o (the top level, or "driver") */
static void sum(struct drv_stats *t, const json_t *o, bool in_driver)
{
	size_t i;

	for (i = 0; i < drv_stats_nsums; i++)
		if (drv_stats_sums[i].in_driver == in_driver)
			*drv_stats_sum_at(t, i) += u64(o, drv_stats_sums[i].key);
}

int drv_merge_add(struct drv_merge *m, const json_t *doc, char *err, size_t len)
{
	const json_t *cfg = json_object_get(doc, "config"), *errs, *st, *v;
	struct drv_stats *t = &m->res.total;
	const char *k, *stop;
	uint64_t start, end, code;
	const struct drv_engine *eng;
	const struct drv_app *a;
	double rate;
	unsigned i;
	int e, r;

	if (!json_is_object(doc) || strcmp(json_string_value(json_object_get(doc, "tool")) ?: "",
					   DRV_PROG))
		return drv_errf(err, len, "not a " DRV_PROG " result");
	if (u64(doc, "schema") < 2)
		return drv_errf(err, len, "schema %llu is too old to merge (need 2)",
				(unsigned long long)u64(doc, "schema"));
	r = target(m, doc, cfg, err, len);
	if (r)
		return r;
	sum(t, doc, false);
	m->res.warmup_requests += u64(doc, "warmup_requests");
	errs = json_object_get(doc, "errors");
	for (e = 0; e < DRV_ERR__COUNT; e++)
		t->errors[e] += u64(errs, drv_err_name((enum drv_err)e));
	st = json_object_get(doc, "status");
	json_object_foreach((json_t *)st, k, v)
	{
		if (!ll_parse_u64(k, 0, DRV_STATUS_MAX - 1, &code) && json_is_integer(v))
			t->status[code] += (uint64_t)json_integer_value(v);
	}
	/* absent in files written before it existed: nothing to add */
	json_object_foreach(json_object_get(doc, "http_version"), k, v)
	{
		e = drv_httpv_from_name(k);
		if (e >= 0 && json_is_integer(v) && json_integer_value(v) > 0)
			t->http_version[e] += (uint64_t)json_integer_value(v);
	}
	for (i = 0; (eng = drv_engine_at(i)); i++)
		if (eng->merge) /* h2's "h2", "grpc_status" (config/engine.h) */
			eng->merge(t, doc);
	for (i = 0; (a = drv_app_at(i)); i++)
		if (a->report && a->report->merge) /* a protocol's object (report_ext.h) */
			a->report->merge(t, json_object_get(doc, a->name));
	m->res.cpu_ns += u64(json_object_get(doc, "driver"), "cpu_ns");
	sum(t, json_object_get(doc, "driver"), true);
	r = hist(t->latency, doc, "latency", err, len);
	if (!r)
		r = hist(t->latency_uncorrected, doc, "latency_uncorrected", err, len);
	if (!r)
		r = hist(t->send_lag, doc, "send_lag", err, len);
	if (!r)
		r = hist(t->connect, doc, "connect_latency", err, len);
	if (!r)
		r = hist(t->late_latency, doc, "late_latency", err, len);
	if (r)
		return r;
	start = u64(doc, "start_unix_ns");
	end = start + u64(doc, "duration_ns");
	if (!m->res.merged || start < m->res.start_unix_ns)
		m->res.start_unix_ns = start;
	if (end > m->end_unix_ns)
		m->end_unix_ns = end;
	stop = json_string_value(json_object_get(doc, "stopped_by"));
	/* the first run's reason; a signal wins; negotiation stands only if every run says so */
	if (!m->res.merged || (stop && !strcmp(stop, "signal")) ||
	    (m->res.reason == DRV_STOP_NEGOTIATION && !(stop && !strcmp(stop, "negotiation"))))
		m->res.reason = stop && !strcmp(stop, "signal")	      ? DRV_STOP_SIGNAL
				: stop && !strcmp(stop, "duration")    ? DRV_STOP_DURATION
				: stop && !strcmp(stop, "negotiation") ? DRV_STOP_NEGOTIATION
								       : DRV_STOP_REQUESTS;
	negotiation(&m->res, json_object_get(doc, "negotiation_failure"));
	options(&m->cfg, cfg, DRV_OPT_MERGE_SUM); /* -c, -t, -n */
	rate = json_number_value(json_object_get(cfg, drv_options[DRV_OPT_RATE].json_key));
	m->rate_sum += rate;
	if (u64(cfg, "shard_count") < 2 || (m->res.merged && rate != m->rate_shard))
		m->shards_agree = false;
	m->rate_shard = rate;
	m->res.merged++;
	return 0;
}

void drv_merge_finish(struct drv_merge *m)
{
	m->res.duration_ns = m->end_unix_ns > m->res.start_unix_ns
				     ? m->end_unix_ns - m->res.start_unix_ns
				     : 0;
	/* shards of one run each carry the total rate; separate runs add up */
	m->cfg.rate = m->shards_agree ? m->rate_shard : m->rate_sum;
	m->res.threads = (uint32_t)m->cfg.threads;
	m->res.threads_started = m->res.threads;
}

#define MERGE_MAX_BYTES (256ULL << 20) /* one run's JSON is well under 1 MiB */

int drv_merge_main(int argc, char **argv)
{
	const char *out = NULL;
	struct drv_merge m;
	json_error_t jerr;
	char err[512];
	bool quiet = false;
	json_t *doc;
	FILE *f;
	int i, r, n = 0, out_fd = -1, rc = LL_EXIT_OK;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			if (++i >= argc || !*argv[i])
				ll_usage_error(DRV_PROG, "merge: --json needs a file name");
			out = argv[i];
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: " DRV_PROG " merge RUN.json RUN.json... [--json FILE] [-q]\n"
			       "Combines runs exactly: counters add, histograms merge.\n");
			return LL_EXIT_OK;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ll_usage_error(DRV_PROG, "merge: unknown option %s (see --help)", argv[i]);
		} else {
			n++;
		}
	}
	if (!n)
		ll_usage_error(DRV_PROG, "merge: name at least one RUN.json (see --help)");
	if (drv_merge_init(&m)) {
		ll_warn(DRV_PROG, "merge: out of memory");
		return LL_EXIT_FAIL;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			i++;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1])
			continue;
		/* a regular file, bounded: a FIFO or /dev/zero is refused, not waited on */
		f = ll_input_open(argv[i], MERGE_MAX_BYTES);
		if (!f) {
			r = errno;
			drv_merge_fini(&m);
			ll_usage_error(DRV_PROG, "merge: %s: %s%s", argv[i], ll_input_strerror(r),
				       r == EFBIG ? " (256 MiB)" : "");
		}
		doc = json_loadf(f, 0, &jerr);
		fclose(f);
		if (!doc) {
			drv_merge_fini(&m);
			ll_usage_error(DRV_PROG, "merge: %s: %s", argv[i], jerr.text);
		}
		r = drv_merge_add(&m, doc, err, sizeof(err));
		json_decref(doc);
		if (r) {
			drv_merge_fini(&m);
			ll_usage_error(DRV_PROG, "merge: %s: %s", argv[i], err);
		}
	}
	drv_merge_finish(&m);
	/* every input read and checked: only now is the output made (a bad input leaves none) */
	if (out) {
		out_fd = ll_output_open_fd(DRV_PROG, "--json", out);
		if (out_fd < 0) {
			drv_merge_fini(&m);
			return LL_EXIT_USAGE;
		}
	}
	if (!quiet)
		printf("%s merge of %d run%s: %s\n", DRV_PROG, n, n == 1 ? "" : "s", m.target);
	drv_report_summary(stdout, &m.cfg, &m.res);
	if (out_fd >= 0) {
		r = drv_report_json_write_fd(out_fd, &m.cfg, &m.res);
		if (r) {
			ll_warn(DRV_PROG, "cannot write %s: %s", out, strerror(-r));
			rc = LL_EXIT_FAIL;
		}
	}
	drv_merge_fini(&m);
	return rc;
}
