// SPDX-License-Identifier: MIT
/* The rule on response statuses: a share of error responses on a port (HTTP/2 5xx, 4xx past a
 * share, gRPC calls not OK), from the statuses the server's header blocks carried. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "loadlens/grpc_status.h"
#include "rules/rules.h"

/* codes merged over the window: a port's, the most first */
#define WINDOW_CODES (2 * OBS_SNAP_CODES)

/* One port's statuses over the window (window()). */
struct seen {
	struct obs_snap_status sum; /* the classes and gRPC statuses summed; codes in codes[] */
	struct obs_snap_code codes[WINDOW_CODES];
	size_t ncodes;
	double from_t;	  /* the window's start */
	unsigned int intervals;
};

static const struct obs_snap_status *port_status(const struct obs_snap *s, uint16_t port)
{
	size_t i;

	for (i = 0; i < s->nstatus; i++)
		if (s->status[i].port == port)
			return &s->status[i];
	return NULL;
}

static void add_code(struct seen *w, const struct obs_snap_code *c)
{
	size_t i;

	for (i = 0; i < w->ncodes && w->codes[i].code != c->code; i++)
		;
	if (i == w->ncodes) {
		if (w->ncodes == WINDOW_CODES)
			return; /* (in the classes still) */
		w->codes[w->ncodes++] = (struct obs_snap_code){c->code, 0};
	}
	w->codes[i].n += c->n;
}

/* The latest interval and those before it that end within OBS_RULE_ERR_WINDOW_S of it, summed
 * for port (a burst split by a tick is judged whole; a server that answers a few a second
 * reaches OBS_RULE_ERR_MIN). */
static void window(const struct obs_snap_hist *h, uint16_t port, struct seen *w)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *s;
	const struct obs_snap_status *st;
	unsigned int b;
	size_t k;

	memset(w, 0, sizeof(*w));
	w->sum.port = port;
	for (b = 0; (s = obs_snap_at(h, b)) && now->t - s->t < OBS_RULE_ERR_WINDOW_S - 1e-6; b++) {
		w->from_t = s->t - s->dt;
		w->intervals++;
		if (!(st = port_status(s, port)))
			continue;
		for (k = 0; k < 6; k++)
			w->sum.cls[k] += st->cls[k];
		for (k = 0; k < OBS_SNAP_GRPC; k++)
			w->sum.grpc[k] += st->grpc[k];
		w->sum.grpc_none += st->grpc_none;
		for (k = 0; k < st->ncodes; k++)
			add_code(w, &st->code[k]);
	}
}

static uint64_t final_responses(const struct obs_snap_status *st)
{
	return st->cls[2] + st->cls[3] + st->cls[4] + st->cls[5];
}

static uint64_t grpc_calls(const struct obs_snap_status *st)
{
	uint64_t n = st->grpc_none;
	size_t k;

	for (k = 0; k < OBS_SNAP_GRPC; k++)
		n += st->grpc[k];
	return n;
}

static uint64_t grpc_not_ok(const struct obs_snap_status *st)
{
	return grpc_calls(st) - st->grpc[LL_GRPC_OK];
}

/* "404: 2,000, 403: 3" into buf: the window's codes of class cls, the most first, with their
 * counts into ev's "codes"; at most 3 named. */
static void codes_text(const struct seen *w, unsigned int cls, char *buf, size_t len, json_t *ev)
{
	struct obs_snap_code c[WINDOW_CODES];
	size_t n = 0, i, j, off = 0;
	char num[32], key[8];

	for (i = 0; i < w->ncodes; i++)
		if (w->codes[i].code / 100 == cls) {
			for (j = n++; j > 0 && c[j - 1].n < w->codes[i].n; j--)
				c[j] = c[j - 1];
			c[j] = w->codes[i];
		}
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "%u", c[i].code);
		json_object_set_new(json_object_get(ev, "codes"), key,
				    json_integer((json_int_t)c[i].n));
		if (i < 3 && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%u: %s", i ? ", " : "",
						c[i].code, obs_rule_num(c[i].n, num, sizeof(num)));
	}
	if (n > 3 && off < len)
		snprintf(buf + off, len - off, ", ...");
}

/* "RESOURCE_EXHAUSTED: 500, no grpc-status: 3" into buf, and each into ev's "grpc_status". */
static void grpc_text(const struct seen *w, char *buf, size_t len, json_t *ev)
{
	size_t off = 0, k, named = 0, best;
	uint64_t left[OBS_SNAP_GRPC];
	char num[32];

	memcpy(left, w->sum.grpc, sizeof(left));
	left[LL_GRPC_OK] = 0;
	buf[0] = '\0';
	for (k = 0; k < OBS_SNAP_GRPC; k++)
		if (left[k])
			json_object_set_new(json_object_get(ev, "grpc_status"),
					    ll_grpc_status_name((unsigned)k),
					    json_integer((json_int_t)left[k]));
	for (;;) {
		for (best = 0, k = 1; k < OBS_SNAP_GRPC; k++)
			if (left[k] > left[best])
				best = k;
		if (!left[best] || named == 3 || off >= len)
			break;
		off += (size_t)snprintf(buf + off, len - off, "%s%s: %s", named++ ? ", " : "",
					ll_grpc_status_name((unsigned)best),
					obs_rule_num(left[best], num, sizeof(num)));
		left[best] = 0;
	}
	if (w->sum.grpc_none && off < len)
		snprintf(buf + off, len - off, "%sno grpc-status: %s", off ? ", " : "",
			 obs_rule_num(w->sum.grpc_none, num, sizeof(num)));
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* "100%", "2.5%", "0.41%" */
static const char *pct_text(double p, char *buf, size_t len)
{
	snprintf(buf, len, p >= 9.95 ? "%.0f%%" : p >= 0.995 ? "%.1f%%" : "%.2f%%", p);
	return buf;
}

/* A part of the text at *off of buf ("; " before all but the first). */
static void __attribute__((format(printf, 4, 5)))
part(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	if (*off)
		*off += (size_t)snprintf(buf + *off, len - *off, "; ");
	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	*off += n > 0 ? (size_t)n : 0;
}

/* The parts that hold on one port, said in one finding. now: its latest interval's statuses. */
static void port_rule(const struct obs_snap_hist *h, const struct obs_snap_status *now,
		      struct obs_findings *out)
{
	const struct obs_snap *latest = obs_snap_at(h, 0);
	char key[24], text[400] = "", codes[120], a[32], b[16];
	uint64_t http, calls, bad;
	static const struct {
		unsigned int cls;
		const char *who, *why;
	} errs[] = {
		{5, "server", "the server failed them, its log says why"},
		{4, "client", "clients ask for what the server does not have or will not give them"},
	};
	bool c5, c4, g;
	struct seen w;
	int k;
	size_t off = 0;
	json_t *ev;

	window(h, now->port, &w);
	http = final_responses(&w.sum);
	calls = grpc_calls(&w.sum);
	bad = grpc_not_ok(&w.sum);
	c5 = http >= OBS_RULE_ERR_MIN && now->cls[5] &&
	     pct(w.sum.cls[5], http) >= OBS_RULE_ERR_5XX_PCT;
	c4 = http >= OBS_RULE_ERR_MIN && now->cls[4] &&
	     pct(w.sum.cls[4], http) >= OBS_RULE_ERR_4XX_PCT;
	g = calls >= OBS_RULE_ERR_MIN && grpc_not_ok(now) &&
	    pct(bad, calls) >= OBS_RULE_ERR_GRPC_PCT;
	if (!c5 && !c4 && !g)
		return;
	ev = json_pack("{s:i, s:f, s:I, s:I, s:I, s:f, s:f, s:o, s:I, s:I, s:f, s:o}", "port",
		       (int)now->port, "window_s", latest->t - w.from_t, "responses",
		       (json_int_t)http, "errors_4xx", (json_int_t)w.sum.cls[4], "errors_5xx",
		       (json_int_t)w.sum.cls[5], "share_4xx_pct", pct(w.sum.cls[4], http),
		       "share_5xx_pct", pct(w.sum.cls[5], http), "codes", json_object(),
		       "grpc_calls", (json_int_t)calls, "grpc_not_ok", (json_int_t)bad,
		       "share_grpc_pct", pct(bad, calls), "grpc_status", json_object());
	for (k = 0; k < 2; k++) {
		if (!(k ? c4 : c5))
			continue;
		codes_text(&w, errs[k].cls, codes, sizeof(codes), ev);
		part(text, sizeof(text), &off, "%s of %s HTTP/2 responses were %s errors (%s): %s",
		     pct_text(pct(w.sum.cls[errs[k].cls], http), b, sizeof(b)),
		     obs_rule_num(http, a, sizeof(a)), errs[k].who, codes, errs[k].why);
	}
	if (g) {
		grpc_text(&w, codes, sizeof(codes), ev);
		part(text, sizeof(text), &off, "%s of %s gRPC calls ended not OK (%s)",
		     pct_text(pct(bad, calls), b, sizeof(b)), obs_rule_num(calls, a, sizeof(a)),
		     codes);
	}
	snprintf(key, sizeof(key), "tcp/%u", now->port);
	obs_findings_add(out, "error_responses", OBS_SEV_WARNING, key, ev,
			 "responses: on %s, over the last %.1f s, %s (statuses are read for HTTP/2 "
			 "and gRPC only)", key, latest->t - w.from_t, text);
}

void obs_rule_error_responses(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	size_t i;

	for (i = 0; i < now->nstatus; i++)
		port_rule(h, &now->status[i], out);
}
