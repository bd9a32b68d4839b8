// SPDX-License-Identifier: MIT
/*
 * The application framings (resp, memcache, dns) behind struct drv_frame, and
 * drv_frame_feed_some(): every rule stopped at the end of one response, for pipelining.
 */
#include "config.h"
#include "drv.h"
#include "frame.h"
#include "stats.h"
#include "worker.h"

int drv_app_verdict_err(enum drv_app_verdict v)
{
	switch (v) {
	case DRV_APP_OK:
		return 0;
	case DRV_APP_RESP_ERROR:
		return DRV_E_RESP;
	case DRV_APP_MC_CLIENT:
		return DRV_E_MC_CLIENT;
	case DRV_APP_MC_SERVER:
		return DRV_E_MC_SERVER;
	case DRV_APP_DNS_RCODE:
		return DRV_E_DNS_RCODE;
	}
	return DRV_E_MALFORMED;
}

/* A data block and its CRLF (frame_app.h). */
size_t drv_app_block(uint8_t *st, uint8_t data, uint64_t *left, const uint8_t *p, size_t n,
		     int *r)
{
	size_t i = 0;
	uint8_t c;

	if (*st == data) {
		i = drv_app_skip(left, n);
		if (*left)
			return i;
		*st = data + 1;
	}
	while (i < n) {
		c = p[i++];
		if (*st == data + 1 && c == '\r') {
			*st = data + 2;
			continue;
		}
		*r = *st == data + 2 && c == '\n' ? 1 : DRV_E_MALFORMED;
		return i;
	}
	return i;
}

void drv_frame_app_reset(const struct drv_frame_rule *r, struct drv_frame *f)
{
	switch (r->rule) {
	case DRV_RESP_RESP:
		drv_resp_reset(&f->app.resp);
		break;
	case DRV_RESP_MEMCACHE:
		drv_mc_reset(&f->app.mc);
		break;
	case DRV_RESP_DNS:
		drv_dns_reset(&f->app.dns);
		break;
	default:
		break;
	}
}

int drv_frame_app_feed(const struct drv_frame_rule *r, struct drv_frame *f, const char *p,
		       size_t n, size_t *used)
{
	const uint8_t *b = (const uint8_t *)p;
	enum drv_app_verdict v = (enum drv_app_verdict)f->verdict;
	int res = DRV_E_MALFORMED;

	*used = 0;
	switch (r->rule) {
	case DRV_RESP_RESP:
		*used = drv_resp_feed(&f->app.resp, b, n, &res, &v);
		break;
	case DRV_RESP_MEMCACHE:
		*used = drv_mc_feed(&f->app.mc, b, n, &res, &v);
		break;
	case DRV_RESP_DNS:
		*used = drv_dns_feed(&f->app.dns, b, n, &res, &v, &f->rcode);
		break;
	default:
		break;
	}
	f->verdict = (uint8_t)v;
	if (res < 0)
		return res;
	f->done = res == 1;
	return 0;
}

static inline size_t x__min(size_t a, uint64_t b)
{
	return a < b ? a : (size_t)b;
}

int drv_frame_feed_some(const struct drv_frame_rule *r, struct drv_frame *f, const char *p,
			size_t n, size_t *used)
{
	size_t i = 0, k;
	int err = 0;

	*used = 0;
	if (f->done)
		return n ? DRV_E_MALFORMED : 0;
	switch (r->rule) {
	case DRV_RESP_RESP:
	case DRV_RESP_MEMCACHE:
	case DRV_RESP_DNS:
		return drv_frame_app_feed(r, f, p, n, used);
	case DRV_RESP_HTTP:
		k = drv__frame_http_execute(f, p, n);
		*used = k;
		if (f->done)
			return f->status >= 100 ? 0 : DRV_E_MALFORMED;
		if (HTTP_PARSER_ERRNO(&f->hp) == HPE_HEADER_OVERFLOW)
			return DRV_E_TOO_LARGE;
		if (HTTP_PARSER_ERRNO(&f->hp) != HPE_OK || k != n)
			return DRV_E_MALFORMED;
		return 0;
	case DRV_RESP_LP4:
	case DRV_RESP_PREFIX:
	case DRV_RESP_FIXED:
	case DRV_RESP_DELIM:
		while (i < n && !f->done && !err) {
			if (r->rule == DRV_RESP_DELIM || f->got < r->prefix)
				k = 1; /* a delimiter's end, a prefix's bytes: one at a time */
			else
				k = x__min(n - i, f->left);
			err = drv_frame_feed(r, f, p + i, k);
			i += k;
		}
		*used = i;
		return err;
	}
	return DRV_E_MALFORMED;
}

int drv_tcp_app_outcome(struct drv_worker *w, const struct drv_ticket *t,
			const struct drv_frame *f)
{
	struct drv_stats *st = drv_worker_stats(w, t);
	int err = drv_frame_verdict_err(f);

	if (f->verdict == DRV_APP_DNS_RCODE || (!err && w->cfg->resp_rule == DRV_RESP_DNS))
		st->dns_rcode[f->rcode & 15]++;
	if (err)
		drv_worker_error(w, t, err);
	else
		drv_counter_add(&st->requests, 1);
	return err;
}
