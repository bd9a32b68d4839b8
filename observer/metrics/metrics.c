// SPDX-License-Identifier: MIT
/* The exposition writer: buffer, families, samples, escaping, classic buckets from ours. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics/metrics.h"

const double obs_mx_bounds_s[OBS_MX_BOUNDS] = {
	1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2,
	2e-2, 5e-2, 0.1,  0.2,	0.5,  1,    2,	  5,	10,   20,   50,	  100,
};

const char *obs_mx_content_type(enum obs_mx_format f)
{
	return f == OBS_MX_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				       : "text/plain; version=0.0.4; charset=utf-8";
}

enum obs_mx_format obs_mx_negotiate(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text") ? OBS_MX_OPENMETRICS
									 : OBS_MX_PROMETHEUS;
}

void obs_mx_buf_reset(struct obs_mx_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->p)
		b->p[0] = '\0';
}

void obs_mx_buf_free(struct obs_mx_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void obs_mx_buf_put(struct obs_mx_buf *b, const char *s, size_t n)
{
	size_t cap;
	char *p;

	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void metrics_puts(struct obs_mx_buf *b, const char *s)
{
	obs_mx_buf_put(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) buf_printf(struct obs_mx_buf *b, const char *fmt,
							     ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	obs_mx_buf_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* --- classic buckets ------------------------------------------------------------------------ */

uint64_t obs_mx_edge_ns(double le_s)
{
	uint64_t t = (uint64_t)llround(le_s * 1e9) + 1, lo, hi; /* whole ns */
	uint32_t idx;

	if (t > LL_HIST_MAX_VALUE)
		return LL_HIST_MAX_VALUE + 1;
	idx = ll_hist_bucket(t);
	lo = ll_hist_bucket_low(idx);
	if (lo == t)
		return t;
	hi = lo + ll_hist_bucket_width(idx);
	return t - lo <= hi - t ? lo : hi;
}

uint64_t obs_mx_buckets(const uint64_t *counts, uint64_t cum[OBS_MX_BOUNDS])
{
	uint64_t acc = 0, edge;
	uint32_t idx = 0;
	size_t i;

	for (i = 0; i < OBS_MX_BOUNDS; i++) {
		edge = obs_mx_edge_ns(obs_mx_bounds_s[i]);
		/* every bucket that lies wholly below the edge (edges are bucket starts) */
		while (idx < LL_HIST_BUCKETS && ll_hist_bucket_low(idx) < edge) {
			acc += counts ? counts[idx] : 0;
			idx++;
		}
		cum[i] = acc;
	}
	for (; idx < LL_HIST_BUCKETS; idx++)
		acc += counts ? counts[idx] : 0;
	return acc;
}

/* --- values, labels, families --------------------------------------------------------------- */

void obs_mx_value(double v, char *out, size_t len)
{
	int prec;

	if (isnan(v)) {
		snprintf(out, len, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (v == floor(v) && fabs(v) < 9007199254740992.0) { /* 2^53: exact as an integer */
		snprintf(out, len, "%.0f", v);
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(out, len, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

char *obs_mx_escape(const char *in, char *out, size_t len)
{
	size_t o = 0;
	const char *e;
	char one[2] = {0, 0};

	if (!len)
		return out;
	for (; *in; in++) {
		switch (*in) {
		case '\\':
			e = "\\\\";
			break;
		case '"':
			e = "\\\"";
			break;
		case '\n':
			e = "\\n";
			break;
		default:
			one[0] = *in;
			e = one;
		}
		if (o + strlen(e) >= len)
			break;
		memcpy(out + o, e, strlen(e));
		o += strlen(e);
	}
	out[o] = '\0';
	return out;
}

/* HELP text: \\ and \n escaped (and \" in OpenMetrics). */
static void metrics_help(struct obs_mx_buf *b, enum obs_mx_format f, const char *help)
{
	char one[2] = {0, 0};

	for (; *help; help++) {
		if (*help == '\\')
			metrics_puts(b, "\\\\");
		else if (*help == '\n')
			metrics_puts(b, "\\n");
		else if (*help == '"' && f == OBS_MX_OPENMETRICS)
			metrics_puts(b, "\\\"");
		else {
			one[0] = *help;
			metrics_puts(b, one);
		}
	}
}

void obs_mx_family(struct obs_mx_buf *b, enum obs_mx_format f, const char *name,
		   const char *type, const char *help)
{
	bool counter = !strcmp(type, "counter");
	const char *suffix = counter && f == OBS_MX_PROMETHEUS ? "_total" : "";
	size_t n = strlen(name);

	buf_printf(b, "# HELP %s%s ", name, suffix);
	metrics_help(b, f, help);
	metrics_puts(b, "\n");
	buf_printf(b, "# TYPE %s%s %s\n", name, suffix, type);
	if (f == OBS_MX_OPENMETRICS && n > 8 && !strcmp(name + n - 8, "_seconds"))
		buf_printf(b, "# UNIT %s seconds\n", name);
}

static void sample_le(struct obs_mx_buf *b, const char *name, const char *suffix,
			 const struct obs_mx_label *l, size_t nl, const char *le, const char *val)
{
	char esc[256];
	size_t i;

	metrics_puts(b, name);
	metrics_puts(b, suffix);
	if (nl || le) {
		metrics_puts(b, "{");
		for (i = 0; i < nl; i++)
			buf_printf(b, "%s%s=\"%s\"", i ? "," : "", l[i].name,
				  obs_mx_escape(l[i].value, esc, sizeof(esc)));
		if (le)
			buf_printf(b, "%sle=\"%s\"", nl ? "," : "", le);
		metrics_puts(b, "}");
	}
	buf_printf(b, " %s\n", val);
}

void obs_mx_sample(struct obs_mx_buf *b, const char *name, const char *suffix,
		   const struct obs_mx_label *l, size_t nl, double v)
{
	char val[40];

	obs_mx_value(v, val, sizeof(val));
	sample_le(b, name, suffix, l, nl, NULL, val);
}

void obs_mx_histogram(struct obs_mx_buf *b, const char *name, const struct obs_mx_label *l,
		      size_t nl, const uint64_t *counts, uint64_t sum_ns)
{
	uint64_t cum[OBS_MX_BOUNDS], total;
	char le[40], val[40];
	size_t i;

	total = obs_mx_buckets(counts, cum);
	for (i = 0; i < OBS_MX_BOUNDS; i++) {
		obs_mx_value(obs_mx_bounds_s[i], le, sizeof(le));
		snprintf(val, sizeof(val), "%llu", (unsigned long long)cum[i]);
		sample_le(b, name, "_bucket", l, nl, le, val);
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)total);
	sample_le(b, name, "_bucket", l, nl, "+Inf", val);
	obs_mx_sample(b, name, "_sum", l, nl, total ? (double)sum_ns / 1e9 : 0);
	sample_le(b, name, "_count", l, nl, NULL, val);
}

void obs_mx_end(struct obs_mx_buf *b, enum obs_mx_format f)
{
	if (f == OBS_MX_OPENMETRICS)
		metrics_puts(b, "# EOF\n");
}
