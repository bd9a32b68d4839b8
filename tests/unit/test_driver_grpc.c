// SPDX-License-Identifier: MIT
/* The pure HTTP/2 and gRPC pieces: grpc-status names, parsing and hints, grpc-timeout, and the
 * hints of the HTTP/2 error classes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_err_classes.h"
#include "base/errors.h"
#include "loadlens/grpc_status.h"
#include "results/stats.h"

static void test_status_names(void **state)
{
	static const char *const want[] = {
		"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
		"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
		"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
		"UNAUTHENTICATED",
	};
	unsigned i;

	for (i = 0; i < LL_GRPC_CODES; i++) {
		assert_string_equal(ll_grpc_status_name(i), want[i]);
		assert_int_equal(ll_grpc_status_from_name(want[i]), (int)i);
		assert_true(strlen(ll_grpc_status_hint(i)) > 10);
		assert_null(strchr(ll_grpc_status_hint(i), '\n'));
	}
	assert_string_equal(ll_grpc_status_name(LL_GRPC_OTHER), "other");
	assert_null(ll_grpc_status_name(LL_GRPC_OTHER + 1));
	assert_int_equal(ll_grpc_status_from_name("8"), 8);
	assert_int_equal(ll_grpc_status_from_name("resource_exhausted"), 8);
	assert_int_equal(ll_grpc_status_from_name("17"), -1);
	assert_int_equal(ll_grpc_status_from_name("8x"), -1);
	assert_int_equal(ll_grpc_status_from_name("NOPE"), -1);
	assert_int_equal(ll_grpc_status_from_name(""), -1);
	assert_int_equal(ll_grpc_status_from_name(NULL), -1);
	assert_non_null(strstr(ll_grpc_status_hint(4), "grpc-timeout"));
	assert_non_null(strstr(ll_grpc_status_hint(12), "/package.Service/Method"));
}

static void test_status_parse(void **state)
{
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"0", 1), 0);
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"14", 2), 14);
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"16", 2), 16);
	/* a code gRPC does not define: counted apart, not dropped */
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"17", 2), LL_GRPC_OTHER);
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"4294967296", 10), LL_GRPC_OTHER);
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"", 0), -1);
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"OK", 2), -1);
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"-1", 2), -1);
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"12345678901", 11), -1);
	/* not NUL-terminated: only len bytes are read */
	assert_int_equal(ll_grpc_status_parse((const uint8_t *)"89", 1), 8);
}

static void test_timeout(void **state)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} t[] = {
		{1, "1n"},
		{99999999, "99999999n"},
		{100000000, "100000u"},	     /* 100 ms: the finest unit in 8 digits */
		{5000000000ULL, "5000000u"}, /* the default --timeout, 5 s */
		{250000001, "250001u"},	     /* rounded up: never less time than asked */
		{100000000000ULL, "100000m"},
		{100000000000000ULL, "100000S"},
		{6000000000000000ULL, "6000000S"},
		{600000000000000000ULL, "10000000M"},
		{UINT64_MAX, "5124096H"},
	};
	char buf[16];
	size_t i, n;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n = ll_grpc_timeout(t[i].ns, buf, sizeof(buf));
		if (n != strlen(t[i].want) || strcmp(buf, t[i].want))
			fail_msg("%llu ns: '%s', want '%s'", (unsigned long long)t[i].ns, buf,
				 t[i].want);
		assert_true(n <= 9); /* at most 8 digits and the unit */
	}
	assert_int_equal(ll_grpc_timeout(0, buf, sizeof(buf)), 0); /* no header */
	assert_int_equal(ll_grpc_timeout(1000, buf, 3), 0);	     /* no room: none */
}

/* Each HTTP/2 cause has its own class, name and one-line hint. */
static void test_h2_causes(void **state)
{
	static const struct drv_err_case t[] = {
		{DRV_E_H2_RST, DRV_ERR_H2_RST, "h2_rst_stream", "REFUSED_STREAM"},
		{DRV_E_H2_GOAWAY, DRV_ERR_H2_GOAWAY, "h2_goaway_refused", "GOAWAY"},
		{DRV_E_H2_PROTOCOL, DRV_ERR_H2_PROTOCOL, "h2_protocol", "malformed"},
		{DRV_E_NOT_H2, DRV_ERR_NOT_H2, "not_h2", "h2c preface"},
		{DRV_E_GRPC, DRV_ERR_GRPC, "grpc_status", "grpc status line"},
	};
	struct drv_stats s;
	char buf[400];

	assert_int_equal(drv_stats_init(&s), 0);
	check_err_classes(&s, t, sizeof(t) / sizeof(t[0]), "127.0.0.1:8080");
	assert_non_null(strstr(drv_err_hint(DRV_ERR_NOT_H2, &s, "127.0.0.1:8080", buf,
					    sizeof(buf)),
			       "127.0.0.1:8080"));
	drv_stats_fini(&s);
}

/* The servers' stream limit merges as the smallest, the peak as the largest, counts add. */
static void test_h2_merge(void **state)
{
	struct drv_stats a, b;

	assert_int_equal(drv_stats_init(&a), 0);
	assert_int_equal(drv_stats_init(&b), 0);
	a.h2_max_streams = 100;
	a.h2_max_streams_set = 1;
	a.h2_peak_streams = 10;
	a.h2_rst[2] = 3;
	a.grpc_status[8] = 5;
	b.h2_peak_streams = 4; /* b saw no limit announced */
	b.h2_rst[2] = 1;
	b.h2_goaway = 2;
	b.grpc_status[8] = 1;
	drv_stats_merge(&b, &a);
	assert_int_equal(b.h2_max_streams, 100);
	assert_int_equal(b.h2_max_streams_set, 1);
	assert_int_equal(b.h2_peak_streams, 10);
	assert_int_equal(b.h2_rst[2], 4);
	assert_int_equal(b.h2_goaway, 2);
	assert_int_equal(b.grpc_status[8], 6);
	a.h2_max_streams = 1;
	drv_stats_merge(&b, &a);
	assert_int_equal(b.h2_max_streams, 1);
	drv_stats_fini(&a);
	drv_stats_fini(&b);
}

LL_TEST_MAIN(test_status_names, test_status_parse, test_timeout, test_h2_causes, test_h2_merge)
