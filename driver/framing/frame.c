// SPDX-License-Identifier: MIT
/* Response framing rules for stream protocols (tcp://, native http://), and the protocols'
 * framings (frame_ext.h) driven by rule. Parsing only. */
#include <string.h>
#include "base/drv.h"
#include "framing/frame.h"
#include "base/errors.h"
#include "config/app.h"

void drv_frame_delim_table(const char *d, size_t n, uint8_t *fail)
{
	size_t j, k = 0;

	if (!n)
		return;
	fail[0] = 0;
	for (j = 1; j < n; j++) {
		while (k && d[j] != d[k])
			k = fail[k - 1];
		if (d[j] == d[k])
			k++;
		fail[j] = (uint8_t)k;
	}
}

const struct drv_frame_ext *drv_frame_ext_for(enum drv_resp_rule rule)
{
	const struct drv_frame_ext *x = NULL;
	const struct drv_app *a;
	unsigned i;

	for (i = 0; (a = drv_app_at(i)); i++) /* a protocol's framing, by the rule it is */
		if (a->frame && a->frame->rule == rule)
			x = a->frame;
	return x;
}

void drv_frame_rule_init(struct drv_frame_rule *r, const struct drv_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->rule = cfg->resp_rule;
	r->ext = drv_frame_ext_for(r->rule);
	r->fixed = cfg->resp_fixed;
	r->prefix = cfg->resp_rule == DRV_RESP_LP4 ? 4 : cfg->resp_prefix;
	memcpy(r->delim, cfg->resp_delim, sizeof(r->delim));
	r->delim_len = cfg->resp_delim_len;
	drv_frame_delim_table(r->delim, r->delim_len, r->delim_fail);
	r->head = cfg->method && !strcmp(cfg->method, "HEAD");
}

int drv__frame_app_feed(const struct drv_frame_rule *r, struct drv_frame *f, const char *p,
			size_t n, size_t *used)
{
	const uint8_t *b = (const uint8_t *)p;
	enum drv_app_verdict v = (enum drv_app_verdict)f->verdict;
	int res = DRV_E_MALFORMED;

	*used = r->ext ? r->ext->feed(f, b, n, &res, &v) : 0; /* a protocol's (frame_ext.h) */
	f->verdict = (uint8_t)v;
	if (res < 0)
		return res;
	f->done = res == 1;
	return 0;
}

static int on_headers_complete(http_parser *p)
{
	struct drv_frame *f = container_of(p, struct drv_frame, hp);

	/* 1: no body follows (HEAD); the parser then completes the message */
	return f->head ? 1 : 0;
}

static int on_message_complete(http_parser *p)
{
	struct drv_frame *f = container_of(p, struct drv_frame, hp);

	f->done = true;
	f->status = (uint16_t)p->status_code;
	f->keep_alive = http_should_keep_alive(p) != 0;
	http_parser_pause(p, 1); /* anything after this is not ours */
	return 0;
}

static const http_parser_settings http = {
	.on_headers_complete = on_headers_complete,
	.on_message_complete = on_message_complete,
};

void drv_frame_reset(const struct drv_frame_rule *r, struct drv_frame *f)
{
	f->left = r->rule == DRV_RESP_FIXED ? r->fixed : 0;
	f->got = 0;
	f->done = false;
	f->status = 0;
	f->keep_alive = true;
	if (r->rule == DRV_RESP_HTTP) {
		http_parser_init(&f->hp, HTTP_RESPONSE);
		f->head = r->head; /* read by on_headers_complete */
	}
	f->verdict = DRV_APP_OK;
	if (r->ext) /* a protocol's: for LDAP its engine then says what answers its request */
		r->ext->reset(f);
}

static int prefixed(const struct drv_frame_rule *r, struct drv_frame *f, const uint8_t *p,
		       size_t n)
{
	uint64_t len = 0;
	unsigned i;

	while (f->got < r->prefix && n) {
		f->pre[f->got++] = *p++;
		n--;
		if (f->got < r->prefix)
			continue;
		for (i = 0; i < r->prefix; i++)
			len = len << 8 | f->pre[i];
		if (len > DRV_FRAME_MAX_BODY) /* framed, but more than we take: not a short one */
			return DRV_E_TOO_LARGE;
		f->left = len;
	}
	if (f->got < r->prefix)
		return 0;
	if (n > f->left)
		return DRV_E_MALFORMED;
	f->left -= n;
	f->done = !f->left;
	return 0;
}

/* Knuth-Morris-Pratt: overlapping delimiters ("aab" in "aaab") are found at their first end. */
static int delim(const struct drv_frame_rule *r, struct drv_frame *f, const uint8_t *p,
		    size_t n)
{
	const uint8_t *d = (const uint8_t *)r->delim;
	size_t i, k = f->got;

	for (i = 0; i < n; i++) {
		if (f->done)
			return DRV_E_MALFORMED;
		while (k && p[i] != d[k])
			k = r->delim_fail[k - 1];
		if (p[i] == d[k])
			k++;
		f->left = 1; /* started */
		if (k == r->delim_len)
			f->done = true;
	}
	f->got = (uint8_t)k;
	return 0;
}

int drv_frame_feed(const struct drv_frame_rule *r, struct drv_frame *f, const char *p, size_t n)
{
	size_t used;
	int err;

	if (f->done && n)
		return DRV_E_MALFORMED;
	switch (r->rule) {
	case DRV_RESP_LP4:
	case DRV_RESP_PREFIX:
		return prefixed(r, f, (const uint8_t *)p, n);
	case DRV_RESP_FIXED:
		if (n > f->left)
			return DRV_E_MALFORMED;
		f->left -= n;
		f->done = !f->left;
		return 0;
	case DRV_RESP_DELIM:
		return delim(r, f, (const uint8_t *)p, n);
	case DRV_RESP_RESP:
	case DRV_RESP_MEMCACHE:
	case DRV_RESP_DNS:
	case DRV_RESP_LDAP:
		err = drv__frame_app_feed(r, f, p, n, &used);
		return err ? err : used == n ? 0 : DRV_E_MALFORMED;
	case DRV_RESP_HTTP:
		used = http_parser_execute(&f->hp, &http, p, n);
		if (f->done) /* 100..999 are counted as they are; under 100 is not HTTP */
			return used == n && f->status >= 100 ? 0 : DRV_E_MALFORMED;
		if (HTTP_PARSER_ERRNO(&f->hp) == HPE_HEADER_OVERFLOW)
			return DRV_E_TOO_LARGE;
		if (HTTP_PARSER_ERRNO(&f->hp) != HPE_OK || used != n)
			return DRV_E_MALFORMED;
		return 0;
	}
	return DRV_E_MALFORMED;
}

size_t drv__frame_http_execute(struct drv_frame *f, const char *p, size_t n)
{
	return http_parser_execute(&f->hp, &http, p, n);
}

void drv_frame_free(const struct drv_frame_rule *r, struct drv_frame *f)
{
	if (r->ext && r->ext->free)
		r->ext->free(f);
}

int drv_frame_eof(const struct drv_frame_rule *r, struct drv_frame *f)
{
	if (f->done)
		return 0;
	if (r->rule == DRV_RESP_HTTP) {
		http_parser_execute(&f->hp, &http, NULL, 0);
		if (f->done) {
			f->keep_alive = false;
			return 0;
		}
	}
	return DRV_E_SHORT;
}
