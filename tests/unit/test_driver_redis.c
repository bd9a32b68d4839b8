// SPDX-License-Identifier: MIT
/* redis (driver/redis/): the RESP framing whole, split at every byte, malformed, pipelined; its
 * --requests-file records. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_apps.h"
#include "driver_frame_feed.h"
#include "config/parse.h"
#include "redis/redis_frame.h"
#include "redis/redis_request.h"

static const struct drv_frame_ext *const x = &drv_redis_frame;

static const struct x_text texts[] = {
	{"+PONG\r\n", DRV_APP_OK},
	{"-ERR unknown command 'X'\r\n", DRV_APP_RESP_ERROR},
	{":1000\r\n", DRV_APP_OK},
	{"$5\r\nhello\r\n", DRV_APP_OK},
	{"$0\r\n\r\n", DRV_APP_OK},
	{"$-1\r\n", DRV_APP_OK},
	{"*-1\r\n", DRV_APP_OK},
	{"*0\r\n", DRV_APP_OK},
	/* a bulk holding CRLFs: what delim:\r\n got wrong */
	{"$6\r\na\r\nb\r\n\r\n", DRV_APP_OK},
	{"*2\r\n$3\r\nfoo\r\n$-1\r\n", DRV_APP_OK},
	/* nested: [[1, [2, "x"]], -err inside is content] */
	{"*3\r\n*2\r\n:1\r\n*2\r\n:2\r\n+x\r\n-ERR inner\r\n*0\r\n", DRV_APP_OK},
	/* RESP3 */
	{"%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", DRV_APP_OK},
	{"~2\r\n#t\r\n,1.5\r\n", DRV_APP_OK},
	{"_\r\n", DRV_APP_OK},
	{"(3492890328409238509324850943850943825024385\r\n", DRV_APP_OK},
	{"=15\r\ntxt:Some string\r\n", DRV_APP_OK},
	{"!21\r\nSYNTAX invalid syntax\r\n", DRV_APP_RESP_ERROR},
	{"|1\r\n+key\r\n+val\r\n:7\r\n", DRV_APP_OK},
	{">2\r\n+message\r\n+hi\r\n", DRV_APP_OK},
	{"PONG\r\n", X_MALFORMED},		    /* no type byte */
	{"+PONG\n", X_MALFORMED},		    /* bare LF */
	{"+PONG\rX", X_MALFORMED},		    /* CR without LF */
	{"$5\r\nhelloXX", X_MALFORMED},		    /* bulk without its CRLF */
	{"$x\r\n", X_MALFORMED},		    /* not a number */
	{"$\r\n", X_MALFORMED},			    /* no digits */
	{"$-2\r\n", X_MALFORMED},		    /* only -1 is null */
	{"%-1\r\n", X_MALFORMED},
	{"$99999999999999999999\r\n", X_MALFORMED}, /* too many digits */
	{"$999999999999\r\n", X_MALFORMED},	    /* over the bulk bound */
	{"*9999999999999\r\n", X_MALFORMED},	    /* over the count bound */
	{"*1\r\n?\r\n", X_MALFORMED},
	{"*2\r\n:1\r\n", X_INCOMPLETE},
	{"$10\r\nhello", X_INCOMPLETE},
	{"+PON", X_INCOMPLETE},
};

static void test_resp(void **state)
{
	(void)state;
	x_cases(x, texts, sizeof(texts) / sizeof(texts[0]));
}

/* Pipelined: the parser stops at the end of the first value. */
static void test_resp_stops(void **state)
{
	static const char two[] = "+OK\r\n$1\r\nx\r\n";
	struct outcome o;

	(void)state;
	o = x_run(x, two, sizeof(two) - 1, 0);
	assert_int_equal(o.res, 1);
	assert_int_equal(o.used, 5);
	o = x_run(x, two + 5, sizeof(two) - 6, 0);
	assert_int_equal(o.res, 1);
	assert_int_equal(o.used, sizeof(two) - 6);
}

/* drv_frame_feed_some over --response resp: it stops at the end of its response. */
static void test_resp_feed_some(void **state)
{
	struct drv_config cfg;
	struct drv_frame_rule r;
	struct drv_frame f;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(feed_some_one(&cfg, DRV_RESP_RESP, &r, &f, "-ERR x\r\n:1\r\n", 12), 8);
	assert_int_equal(drv_frame_verdict_err(&f), DRV_E_RESP);
	/* drv_frame_feed keeps its one-response rule: a byte past the end is malformed */
	drv_frame_reset(&r, &f);
	assert_int_equal(drv_frame_feed(&r, &f, "+OK\r\n+", 6), DRV_E_MALFORMED);
}

/* A record line through redis's record hook: 1 and its bytes, 0, or -EINVAL with a message. */
static int record(enum drv_resp_rule rule, const char *line, char *out, size_t cap, char *err)
{
	struct drv_config cfg;
	char buf[256], *src = NULL;
	size_t n = 0;
	int r;

	drv_config_init(&cfg);
	cfg.resp_rule = rule;
	snprintf(buf, sizeof(buf), "%s", line);
	err[0] = '\0';
	r = drv_redis_record(&cfg, buf, &src, &n, err, 256);
	if (r == 1) {
		assert_true(n < cap);
		memcpy(out, src, n);
		out[n] = '\0';
	}
	free(src);
	return r;
}

/* --requests-file with --response resp: a command line as a RESP array, each argument's length
 * its expanded one; a line in RESP already, or another rule, is not redis's to make. */
static void test_resp_record(void **state)
{
	char out[256], err[256];

	(void)state;
	assert_int_equal(record(DRV_RESP_RESP, "SET key v", out, sizeof(out), err), 1);
	assert_string_equal(out, "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$1\r\nv\r\n");
	assert_int_equal(record(DRV_RESP_RESP, "SET 'a b' {{rand:1-99}}", out, sizeof(out), err), 1);
	assert_string_equal(out, "*3\r\n$3\r\nSET\r\n$3\r\na b\r\n$2\r\n{{rand:1-99}}\r\n");
	assert_int_equal(record(DRV_RESP_RESP, "*1\r\n$4\r\nPING\r\n", out, sizeof(out), err), 0);
	assert_int_equal(record(DRV_RESP_DELIM, "PING", out, sizeof(out), err), 0);
	assert_int_equal(record(DRV_RESP_RESP, "", out, sizeof(out), err), -EINVAL);
	assert_string_equal(err, "an empty command");
	assert_int_equal(record(DRV_RESP_RESP, "GET key:{{rand:9-1}}", out, sizeof(out), err),
			 -EINVAL);
	assert_non_null(strstr(err, "{{rand:9-1}}"));
}

LL_TEST_MAIN(test_resp, test_resp_stops, test_resp_feed_some, test_resp_record)
