// SPDX-License-Identifier: MIT
/* Response framing: delimiters that overlap themselves, split reads, HTTP status codes, a
 * pipelined stream fed one response at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "config/parse.h"
#include "framing/frame.h"
#include "driver_frame_feed.h"
#include "results/stats.h"

static void delim_rule(struct drv_frame_rule *r, const char *d)
{
	struct drv_config cfg;

	drv_config_init(&cfg);
	cfg.resp_rule = DRV_RESP_DELIM;
	cfg.resp_delim_len = strlen(d);
	memcpy(cfg.resp_delim, d, cfg.resp_delim_len);
	drv_frame_rule_init(r, &cfg);
}

/* Feed s one byte at a time (the worst split); returns the byte count when done, or -1. */
static int feed_bytes(const struct drv_frame_rule *r, struct drv_frame *f, const char *s)
{
	size_t i, n = strlen(s);

	drv_frame_reset(r, f);
	for (i = 0; i < n; i++) {
		assert_int_equal(drv_frame_feed(r, f, s + i, 1), 0);
		if (f->done)
			return (int)(i + 1);
	}
	return -1;
}

static void test_delim_overlap(void **state)
{
	static const struct {
		const char *delim, *resp;
		int end; /* bytes up to and including the first delimiter; -1 = none */
	} cases[] = {
		{"aab", "aaab", 4},
		{"aab", "aaaaaab", 7},
		{"abab", "abaabab", 7},
		{"abac", "ababac", 6},
		{"\r\n", "+OK\r\n", 5},
		{"\r\n\r\n", "x\r\n\r\r\n\r\n", 8},
		{"aa", "ba", -1},
		{"aab", "abab", -1},
	};
	struct drv_frame_rule r;
	struct drv_frame f;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		delim_rule(&r, cases[i].delim);
		assert_int_equal(feed_bytes(&r, &f, cases[i].resp), cases[i].end);
		/* the same in one read */
		drv_frame_reset(&r, &f);
		if (cases[i].end < 0) {
			assert_int_equal(drv_frame_feed(&r, &f, cases[i].resp,
							strlen(cases[i].resp)), 0);
			assert_false(f.done);
		} else {
			assert_int_equal(drv_frame_feed(&r, &f, cases[i].resp,
							(size_t)cases[i].end), 0);
			assert_true(f.done);
		}
	}
}

static void test_delim_trailing(void **state)
{
	struct drv_frame_rule r;
	struct drv_frame f;

	delim_rule(&r, "aab");
	drv_frame_reset(&r, &f);
	/* a byte after the end of the response breaks the framing */
	assert_int_equal(drv_frame_feed(&r, &f, "aaabx", 5), DRV_E_MALFORMED);
}

static void test_table(void **state)
{
	uint8_t fail[8];

	drv_frame_delim_table("aabaaab", 7, fail);
	assert_int_equal(fail[0], 0);
	assert_int_equal(fail[1], 1);
	assert_int_equal(fail[2], 0);
	assert_int_equal(fail[3], 1);
	assert_int_equal(fail[4], 2);
	assert_int_equal(fail[5], 2);
	assert_int_equal(fail[6], 3);
}

static void http_rule(struct drv_frame_rule *r)
{
	struct drv_config cfg;

	drv_config_init(&cfg);
	cfg.resp_rule = DRV_RESP_HTTP;
	drv_frame_rule_init(r, &cfg);
}

static void test_http_status(void **state)
{
	static const char *const codes[] = {"100", "200", "404", "599", "600", "999"};
	struct drv_frame_rule r;
	struct drv_frame f;
	char resp[128];
	size_t i;

	http_rule(&r);
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		snprintf(resp, sizeof(resp), "HTTP/1.1 %s X\r\nContent-Length: 2\r\n\r\nok",
			 codes[i]);
		drv_frame_reset(&r, &f);
		assert_int_equal(drv_frame_feed(&r, &f, resp, strlen(resp)), 0);
		assert_true(f.done);
		assert_int_equal(f.status, atoi(codes[i]));
		assert_true(f.status < DRV_STATUS_MAX);
	}
}

static void test_http_garbage(void **state)
{
	static const char junk[] = "\x01\x02garbage, not HTTP\r\n\r\n";
	struct drv_frame_rule r;
	struct drv_frame f;

	http_rule(&r);
	drv_frame_reset(&r, &f);
	assert_int_equal(drv_frame_feed(&r, &f, junk, sizeof(junk) - 1), DRV_E_MALFORMED);
	assert_int_equal(drv_err_class(DRV_E_MALFORMED), DRV_ERR_SHORT);
}

/* Headers past the parser's limit are their own class, as with the curl engine. */
static void test_http_huge_headers(void **state)
{
	static char buf[256 * 1024];
	struct drv_frame_rule r;
	struct drv_frame f;
	size_t n;
	int err = 0;

	http_rule(&r);
	drv_frame_reset(&r, &f);
	n = (size_t)snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\nX-Big: ");
	memset(buf + n, 'x', 200 * 1024);
	n += 200 * 1024;
	err = drv_frame_feed(&r, &f, buf, n);
	assert_int_equal(err, DRV_E_TOO_LARGE);
	assert_int_equal(drv_err_class(err), DRV_ERR_TOO_LARGE);
}

/* A length prefix over DRV_FRAME_MAX_BODY (256 MiB) is too_large, not short_response; at the
 * limit it is taken, whole or split. */
static void test_prefix_too_large(void **state)
{
	static const unsigned char gib[4] = {0x40, 0, 0, 0};	  /* 1 GiB */
	static const unsigned char at_max[4] = {0x10, 0, 0, 0}; /* 256 MiB */
	struct drv_frame_rule r;
	struct drv_config cfg;
	struct drv_frame f;
	int err;

	(void)state;
	drv_config_init(&cfg);
	cfg.resp_rule = DRV_RESP_LP4;
	drv_frame_rule_init(&r, &cfg);
	drv_frame_reset(&r, &f);
	err = drv_frame_feed(&r, &f, (const char *)gib, 4);
	assert_int_equal(err, DRV_E_TOO_LARGE);
	assert_int_equal(drv_err_class(err), DRV_ERR_TOO_LARGE);
	drv_frame_reset(&r, &f);
	assert_int_equal(drv_frame_feed(&r, &f, (const char *)gib, 3), 0); /* split prefix */
	assert_int_equal(drv_frame_feed(&r, &f, (const char *)gib + 3, 1), DRV_E_TOO_LARGE);
	drv_frame_reset(&r, &f);
	assert_int_equal(drv_frame_feed(&r, &f, (const char *)at_max, 4), 0);
	assert_false(f.done);
	/* an 8-byte prefix of 2^63 too */
	cfg.resp_rule = DRV_RESP_PREFIX;
	cfg.resp_prefix = 8;
	drv_frame_rule_init(&r, &cfg);
	drv_frame_reset(&r, &f);
	assert_int_equal(drv_frame_feed(&r, &f, "\x80\0\0\0\0\0\0\0", 8), DRV_E_TOO_LARGE);
}

/* drv_frame_feed_some over the older rules: each stops at the end of its response (redis's:
 * test_driver_redis.c). */
static void test_feed_some(void **state)
{
	struct drv_config cfg;
	struct drv_frame_rule r;
	struct drv_frame f;
	static const char http2[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
				    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
	size_t used;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	memcpy(cfg.resp_delim, "\r\n", 2);
	cfg.resp_delim_len = 2;
	assert_int_equal(feed_some_one(&cfg, DRV_RESP_DELIM, &r, &f, "+OK\r\n+OK\r\n", 10), 5);

	cfg.resp_prefix = 2;
	assert_int_equal(feed_some_one(&cfg, DRV_RESP_PREFIX, &r, &f, "\x00\x01x\x00\x00", 5), 3);

	cfg.method = "GET";
	used = feed_some_one(&cfg, DRV_RESP_HTTP, &r, &f, http2, sizeof(http2) - 1);
	assert_int_equal(f.status, 200);
	assert_int_equal(used, 40);
	drv_frame_reset(&r, &f);
	assert_int_equal(drv_frame_feed_some(&r, &f, http2 + used, sizeof(http2) - 1 - used,
					     &used), 0);
	assert_true(f.done);
	assert_int_equal(f.status, 404);
}

LL_TEST_MAIN(test_delim_overlap, test_delim_trailing, test_table, test_http_status,
	     test_http_garbage, test_http_huge_headers, test_prefix_too_large, test_feed_some)
