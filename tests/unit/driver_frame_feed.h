/* SPDX-License-Identifier: MIT */
/*
 * Feeding an application framing (framing/frame_ext.h's reset and feed: redis/, memcache/, dns/)
 * its bytes whole and split at every chunk size, for the tests named after each protocol:
 *
 *   x_run(x, s, n, chunk)            fed in chunks of chunk bytes (0: whole) until complete or
 *                                    malformed: what it came to
 *   x_complete(x, s, n, v)           complete at exactly n, whole and at every split, verdict v
 *   x_malformed(x, s, n)             malformed
 *   x_incomplete(x, s, n)            waiting, every byte taken
 *   COMPLETE(), MALFORMED(), INCOMPLETE()  the same of a string literal
 *   x_cases(x, texts, n)             a table of texts and what each must be
 *   feed_some_one(cfg, rule, ...)    a fresh response of a rule through drv_frame_feed_some
 *
 * (After cmocka.h.)
 */
#ifndef LOADLENS_TEST_DRIVER_FRAME_FEED_H
#define LOADLENS_TEST_DRIVER_FRAME_FEED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "config/config.h"
#include "framing/frame.h"
#include "framing/frame_ext.h"
#include "framing/response.h"

struct outcome {
	int res;       /* 1 complete, <0 malformed, 0 incomplete */
	size_t used;   /* bytes taken in all */
	enum drv_app_verdict v;
	uint8_t rcode;
};

/* Feed s in chunks of `chunk` bytes (0: whole) until complete or malformed; the parser's state
 * in a frame's app.ext. */
static inline struct outcome x_run(const struct drv_frame_ext *x, const char *s, size_t n,
				   size_t chunk)
{
	struct drv_frame fr;
	struct outcome o = {0};
	size_t i = 0, c, u;

	memset(&fr, 0, sizeof(fr));
	x->reset(&fr);
	o.v = DRV_APP_OK;
	while (i < n) {
		c = chunk && chunk < n - i ? chunk : n - i;
		u = x->feed(&fr, (const uint8_t *)s + i, c, &o.res, &o.v);
		o.rcode = fr.rcode;
		assert_true(u <= c);
		assert_true(u > 0); /* progress: never a hang */
		i += u;
		if (o.res)
			break;
		assert_int_equal(u, c); /* incomplete: everything was taken */
	}
	o.used = i;
	return o;
}

/* Complete at exactly its length, whole or split at every chunk size, with verdict v. */
static inline void x_complete(const struct drv_frame_ext *x, const char *s, size_t n,
			      enum drv_app_verdict v)
{
	struct outcome o;
	size_t chunk;

	for (chunk = 0; chunk <= n; chunk++) {
		o = x_run(x, s, n, chunk);
		assert_int_equal(o.res, 1);
		assert_int_equal(o.used, n);
		assert_int_equal(o.v, v);
	}
}

#define COMPLETE(x, lit, v) x_complete(x, lit, sizeof(lit) - 1, v)

static inline void x_malformed(const struct drv_frame_ext *x, const char *s, size_t n)
{
	struct outcome o = x_run(x, s, n, 0);

	assert_int_equal(o.res, DRV_E_MALFORMED);
}

#define MALFORMED(x, lit) x_malformed(x, lit, sizeof(lit) - 1)

static inline void x_incomplete(const struct drv_frame_ext *x, const char *s, size_t n)
{
	struct outcome o = x_run(x, s, n, 0);

	assert_int_equal(o.res, 0);
	assert_int_equal(o.used, n);
}

#define INCOMPLETE(x, lit) x_incomplete(x, lit, sizeof(lit) - 1)

/* A framing's text and what it must be: complete with a verdict, X_MALFORMED or X_INCOMPLETE. */
#define X_MALFORMED (-1)
#define X_INCOMPLETE (-2)
struct x_text {
	const char *text; /* no NUL in it */
	int want;
};

/* Each of the n texts as COMPLETE(), MALFORMED() or INCOMPLETE() checks it. */
static inline void x_cases(const struct drv_frame_ext *x, const struct x_text *t, size_t n)
{
	size_t i;

	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		if (t[i].want == X_MALFORMED)
			x_malformed(x, t[i].text, strlen(t[i].text));
		else if (t[i].want == X_INCOMPLETE)
			x_incomplete(x, t[i].text, strlen(t[i].text));
		else
			x_complete(x, t[i].text, strlen(t[i].text),
				   (enum drv_app_verdict)t[i].want);
	}
}

/* cfg with its rule set to rule (its other fields as set before), a fresh response fed the n
 * bytes at p by drv_frame_feed_some: complete; the bytes it took. */
static inline size_t feed_some_one(struct drv_config *cfg, enum drv_resp_rule rule,
				   struct drv_frame_rule *r, struct drv_frame *f, const char *p,
				   size_t n)
{
	size_t used;

	cfg->resp_rule = rule;
	drv_frame_rule_init(r, cfg);
	drv_frame_reset(r, f);
	assert_int_equal(drv_frame_feed_some(r, f, p, n, &used), 0);
	assert_true(f->done);
	return used;
}

#endif /* LOADLENS_TEST_DRIVER_FRAME_FEED_H */
