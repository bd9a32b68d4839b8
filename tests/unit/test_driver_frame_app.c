// SPDX-License-Identifier: MIT
/* The resp, memcache and dns framings (driver/redis/, memcache/, dns/): whole, split at every
 * byte, malformed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_apps.h"
#include "dns/dns_frame.h"
#include "framing/frame.h"
#include "memcache/memcache_frame.h"
#include "redis/redis_frame.h"
#include "udp/udp_memcache.h"
#include "framing/response.h"
#include "results/stats.h"

enum kind { K_RESP, K_MC, K_DNS };

struct outcome {
	int res;       /* 1 complete, <0 malformed, 0 incomplete */
	size_t used;   /* bytes taken in all */
	enum drv_app_verdict v;
	uint8_t rcode;
};

static struct drv_frame fr; /* the parser's state, in its app.ext */

static void x_reset(enum kind k)
{
	fr.rcode = 0;
	if (k == K_RESP)
		drv_resp_reset(&fr);
	else if (k == K_MC)
		drv_mc_reset(&fr);
	else
		drv_dns_reset(&fr);
}

static size_t x_feed(enum kind k, const uint8_t *p, size_t n, int *res, enum drv_app_verdict *v,
		     uint8_t *rc)
{
	size_t u;

	if (k == K_RESP)
		return drv_resp_feed(&fr, p, n, res, v);
	if (k == K_MC)
		return drv_mc_feed(&fr, p, n, res, v);
	u = drv_dns_feed(&fr, p, n, res, v);
	*rc = fr.rcode;
	return u;
}

/* Feed s in chunks of `chunk` bytes (0: whole) until complete or malformed. */
static struct outcome x_run(enum kind k, const char *s, size_t n, size_t chunk)
{
	struct outcome o = {0};
	size_t i = 0, c, u;

	x_reset(k);
	o.v = DRV_APP_OK;
	while (i < n) {
		c = chunk && chunk < n - i ? chunk : n - i;
		u = x_feed(k, (const uint8_t *)s + i, c, &o.res, &o.v, &o.rcode);
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
static void x_complete(enum kind k, const char *s, size_t n, enum drv_app_verdict v)
{
	struct outcome o;
	size_t chunk;

	for (chunk = 0; chunk <= n; chunk++) {
		o = x_run(k, s, n, chunk);
		assert_int_equal(o.res, 1);
		assert_int_equal(o.used, n);
		assert_int_equal(o.v, v);
	}
}

#define COMPLETE(k, lit, v) x_complete(k, lit, sizeof(lit) - 1, v)

static void x_malformed(enum kind k, const char *s, size_t n)
{
	struct outcome o = x_run(k, s, n, 0);

	assert_int_equal(o.res, DRV_E_MALFORMED);
}

#define MALFORMED(k, lit) x_malformed(k, lit, sizeof(lit) - 1)

static void x_incomplete(enum kind k, const char *s, size_t n)
{
	struct outcome o = x_run(k, s, n, 0);

	assert_int_equal(o.res, 0);
	assert_int_equal(o.used, n);
}

#define INCOMPLETE(k, lit) x_incomplete(k, lit, sizeof(lit) - 1)

/* A framing's text and what it must be: complete with a verdict, X_MALFORMED or X_INCOMPLETE. */
#define X_MALFORMED (-1)
#define X_INCOMPLETE (-2)
static const struct {
	enum kind k;
	const char *text; /* no NUL in it */
	int want;
} x_texts[] = {
	/* RESP */
	{K_RESP, "+PONG\r\n", DRV_APP_OK},
	{K_RESP, "-ERR unknown command 'X'\r\n", DRV_APP_RESP_ERROR},
	{K_RESP, ":1000\r\n", DRV_APP_OK},
	{K_RESP, "$5\r\nhello\r\n", DRV_APP_OK},
	{K_RESP, "$0\r\n\r\n", DRV_APP_OK},
	{K_RESP, "$-1\r\n", DRV_APP_OK},
	{K_RESP, "*-1\r\n", DRV_APP_OK},
	{K_RESP, "*0\r\n", DRV_APP_OK},
	/* a bulk holding CRLFs: what delim:\r\n got wrong */
	{K_RESP, "$6\r\na\r\nb\r\n\r\n", DRV_APP_OK},
	{K_RESP, "*2\r\n$3\r\nfoo\r\n$-1\r\n", DRV_APP_OK},
	/* nested: [[1, [2, "x"]], -err inside is content] */
	{K_RESP, "*3\r\n*2\r\n:1\r\n*2\r\n:2\r\n+x\r\n-ERR inner\r\n*0\r\n", DRV_APP_OK},
	/* RESP3 */
	{K_RESP, "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", DRV_APP_OK},
	{K_RESP, "~2\r\n#t\r\n,1.5\r\n", DRV_APP_OK},
	{K_RESP, "_\r\n", DRV_APP_OK},
	{K_RESP, "(3492890328409238509324850943850943825024385\r\n", DRV_APP_OK},
	{K_RESP, "=15\r\ntxt:Some string\r\n", DRV_APP_OK},
	{K_RESP, "!21\r\nSYNTAX invalid syntax\r\n", DRV_APP_RESP_ERROR},
	{K_RESP, "|1\r\n+key\r\n+val\r\n:7\r\n", DRV_APP_OK},
	{K_RESP, ">2\r\n+message\r\n+hi\r\n", DRV_APP_OK},
	{K_RESP, "PONG\r\n", X_MALFORMED},		    /* no type byte */
	{K_RESP, "+PONG\n", X_MALFORMED},		    /* bare LF */
	{K_RESP, "+PONG\rX", X_MALFORMED},		    /* CR without LF */
	{K_RESP, "$5\r\nhelloXX", X_MALFORMED},		    /* bulk without its CRLF */
	{K_RESP, "$x\r\n", X_MALFORMED},		    /* not a number */
	{K_RESP, "$\r\n", X_MALFORMED},			    /* no digits */
	{K_RESP, "$-2\r\n", X_MALFORMED},		    /* only -1 is null */
	{K_RESP, "%-1\r\n", X_MALFORMED},
	{K_RESP, "$99999999999999999999\r\n", X_MALFORMED}, /* too many digits */
	{K_RESP, "$999999999999\r\n", X_MALFORMED},	    /* over the bulk bound */
	{K_RESP, "*9999999999999\r\n", X_MALFORMED},	    /* over the count bound */
	{K_RESP, "*1\r\n?\r\n", X_MALFORMED},
	{K_RESP, "*2\r\n:1\r\n", X_INCOMPLETE},
	{K_RESP, "$10\r\nhello", X_INCOMPLETE},
	{K_RESP, "+PON", X_INCOMPLETE},
	/* memcache */
	{K_MC, "STORED\r\n", DRV_APP_OK},
	{K_MC, "NOT_FOUND\r\n", DRV_APP_OK},
	{K_MC, "DELETED\r\n", DRV_APP_OK},
	{K_MC, "END\r\n", DRV_APP_OK},
	{K_MC, "42\r\n", DRV_APP_OK},
	{K_MC, "VERSION 1.6.18\r\n", DRV_APP_OK},
	{K_MC, "VALUE k 0 5\r\nhello\r\nEND\r\n", DRV_APP_OK},
	/* data holding CRLF and END: only the byte count says where it ends */
	{K_MC, "VALUE k 0 7\r\nEND\r\n\r\n\r\nEND\r\n", DRV_APP_OK},
	{K_MC, "VALUE a 1 1 77\r\nx\r\nVALUE b 2 0 78\r\n\r\nEND\r\n", DRV_APP_OK},
	{K_MC, "STAT pid 1\r\nSTAT uptime 2\r\nEND\r\n", DRV_APP_OK},
	{K_MC, "VA 2 f0\r\nhi\r\n", DRV_APP_OK},
	{K_MC, "HD\r\n", DRV_APP_OK},
	{K_MC, "ERROR\r\n", DRV_APP_MC_CLIENT},
	{K_MC, "CLIENT_ERROR bad data chunk\r\n", DRV_APP_MC_CLIENT},
	{K_MC, "SERVER_ERROR out of memory storing object\r\n", DRV_APP_MC_SERVER},
	{K_MC, "\r\n", X_MALFORMED},			       /* empty line */
	{K_MC, "stored\r\n", X_MALFORMED},		       /* lower case */
	{K_MC, "STORED\n", X_MALFORMED},		       /* bare LF */
	{K_MC, "STORED\rX", X_MALFORMED},
	{K_MC, "VALUE k 0 x\r\n", X_MALFORMED},		       /* size not a number */
	{K_MC, "VALUE k 0\r\n", X_MALFORMED},		       /* no size */
	{K_MC, "VALUE k 0 2\r\nhiXX", X_MALFORMED},	       /* data without its CRLF */
	{K_MC, "VALUE k 0 1\r\nx\r\nSTORED\r\n", X_MALFORMED}, /* only VALUE or END after VALUE */
	{K_MC, "STAT a 1\r\nERROR\r\n", X_MALFORMED},
	{K_MC, " STORED\r\n", X_MALFORMED},
	{K_MC, "VALUE k 0 99999999999999\r\n", X_MALFORMED},
	{K_MC, "VALUE k 0 5\r\nhello\r\n", X_INCOMPLETE},
	{K_MC, "STAT pid 1\r\n", X_INCOMPLETE},
	{K_MC, "STOR", X_INCOMPLETE},
};

/* Each of x_texts[]' texts of kind k as COMPLETE(), MALFORMED() or INCOMPLETE() checks it. */
static void x_cases(enum kind k)
{
	const char *t;
	size_t i, n = 0;

	for (i = 0; i < sizeof(x_texts) / sizeof(x_texts[0]); i++) {
		if (x_texts[i].k != k)
			continue;
		n++;
		t = x_texts[i].text;
		if (x_texts[i].want == X_MALFORMED)
			x_malformed(k, t, strlen(t));
		else if (x_texts[i].want == X_INCOMPLETE)
			x_incomplete(k, t, strlen(t));
		else
			x_complete(k, t, strlen(t), (enum drv_app_verdict)x_texts[i].want);
	}
	assert_true(n > 0);
}

static void test_resp(void **state)
{
	(void)state;
	x_cases(K_RESP);
}

/* Pipelined: the parser stops at the end of the first value. */
static void test_resp_stops(void **state)
{
	static const char two[] = "+OK\r\n$1\r\nx\r\n";
	struct outcome o;

	(void)state;
	o = x_run(K_RESP, two, sizeof(two) - 1, 0);
	assert_int_equal(o.res, 1);
	assert_int_equal(o.used, 5);
	o = x_run(K_RESP, two + 5, sizeof(two) - 6, 0);
	assert_int_equal(o.res, 1);
	assert_int_equal(o.used, sizeof(two) - 6);
}

static void test_memcache(void **state)
{
	(void)state;
	x_cases(K_MC);
}

static void test_memcache_long_line(void **state)
{
	char line[DRV_MC_MAX_LINE + 16];

	(void)state;
	memset(line, 'A', sizeof(line));
	x_malformed(K_MC, line, sizeof(line));
}

static void test_memcache_first_line(void **state)
{
	(void)state;
	assert_int_equal(drv_mc_first_line((const uint8_t *)"SERVER_ERROR x\r\n", 16),
			 DRV_APP_MC_SERVER);
	assert_int_equal(drv_mc_first_line((const uint8_t *)"ERROR\r\n", 7), DRV_APP_MC_CLIENT);
	assert_int_equal(drv_mc_first_line((const uint8_t *)"ERRORS\r\n", 8), DRV_APP_OK);
	assert_int_equal(drv_mc_first_line((const uint8_t *)"VALUE k 0 1\r\n", 13), DRV_APP_OK);
}

static void test_dns(void **state)
{
	/* length 12, id 0x1234, flags QR|RD|RA, rcode 0 / 3 */
	static const char ok[] = "\x00\x0c\x12\x34\x81\x80\x00\x00\x00\x00\x00\x00\x00\x00";
	static const char nx[] = "\x00\x0e\x12\x34\x81\x83\x00\x00\x00\x00\x00\x00\x00\x00zz";
	static const char query[] = "\x00\x0c\x12\x34\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00";
	static const char tiny[] = "\x00\x05\x12\x34\x81\x80\x00";
	struct outcome o;
	uint8_t rc = 99;

	(void)state;
	COMPLETE(K_DNS, ok, DRV_APP_OK);
	COMPLETE(K_DNS, nx, DRV_APP_DNS_RCODE);
	o = x_run(K_DNS, nx, sizeof(nx) - 1, 1);
	assert_int_equal(o.rcode, 3);
	MALFORMED(K_DNS, query); /* QR clear: not a response */
	MALFORMED(K_DNS, tiny);	 /* shorter than a header */
	INCOMPLETE(K_DNS, "\x00\x20\x12\x34\x81\x80");
	assert_int_equal(drv_dns_message((const uint8_t *)nx + 2, 14, &rc), 0);
	assert_int_equal(rc, 3);
	assert_int_equal(drv_dns_message((const uint8_t *)query + 2, 12, &rc), DRV_E_MALFORMED);
	assert_int_equal(drv_dns_message((const uint8_t *)ok + 2, 11, &rc), DRV_E_MALFORMED);
	assert_string_equal(drv_dns_rcode_name(3), "NXDOMAIN");
	assert_string_equal(drv_dns_rcode_name(5), "REFUSED");
}

/* cfg with its rule set to rule (its other fields as set before), a fresh response fed the n
 * bytes at p by drv_frame_feed_some: complete; the bytes it took. */
static size_t feed_some_one(struct drv_config *cfg, enum drv_resp_rule rule,
			    struct drv_frame_rule *r, struct drv_frame *f, const char *p, size_t n)
{
	size_t used;

	cfg->resp_rule = rule;
	drv_frame_rule_init(r, cfg);
	drv_frame_reset(r, f);
	assert_int_equal(drv_frame_feed_some(r, f, p, n, &used), 0);
	assert_true(f->done);
	return used;
}

/* drv_frame_feed_some over the older rules: each stops at the end of its response. */
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

	assert_int_equal(feed_some_one(&cfg, DRV_RESP_RESP, &r, &f, "-ERR x\r\n:1\r\n", 12), 8);
	assert_int_equal(drv_frame_verdict_err(&f), DRV_E_RESP);
	/* drv_frame_feed keeps its one-response rule: a byte past the end is malformed */
	drv_frame_reset(&r, &f);
	assert_int_equal(drv_frame_feed(&r, &f, "+OK\r\n+", 6), DRV_E_MALFORMED);
}

LL_TEST_MAIN(test_resp, test_resp_stops, test_memcache, test_memcache_long_line,
	     test_memcache_first_line, test_dns, test_feed_some)
