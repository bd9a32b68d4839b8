// SPDX-License-Identifier: MIT
/*
 * The refserver's pure gRPC parts (tools/refserver/grpc_wire.c): the status table, --grpc-status
 * CODE:N, the request checks, the message scan over any split of the body, the method counts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "grpc_wire.h"

static void test_status_names(void **state)
{
	/* the codes of grpc's doc/statuscodes.md, by number */
	static const char *const want[RS_GRPC_NSTATUS] = {
		"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
		"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
		"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
		"UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
	};
	int i, code;

	for (i = 0; i < RS_GRPC_NSTATUS; i++) {
		assert_string_equal(rs_grpc_status_name(i), want[i]);
		code = -1;
		assert_int_equal(rs_grpc_status_parse(want[i], &code), 0);
		assert_int_equal(code, i);
	}
	assert_null(rs_grpc_status_name(-1));
	assert_null(rs_grpc_status_name(RS_GRPC_NSTATUS));
	assert_int_equal(RS_GRPC_UNIMPLEMENTED, 12);
	assert_int_equal(RS_GRPC_INTERNAL, 13);
}

static void test_status_parse(void **state)
{
	static const struct {
		const char *in;
		int code;
	} good[] = {
		{"0", 0}, {"8", 8}, {"16", 16}, {"resource_exhausted", 8}, {"Unavailable", 14},
	};
	static const char *const bad[] = {"", "17", "-1", "OKAY", "8x", " 8", "RESOURCE EXHAUSTED",
					  "0x8", "99999999999999999999"};
	size_t i;
	int code;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		code = -1;
		assert_int_equal(rs_grpc_status_parse(good[i].in, &code), 0);
		assert_int_equal(code, good[i].code);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		code = -1;
		if (!rs_grpc_status_parse(bad[i], &code))
			fail_msg("status '%s' was accepted as %d", bad[i], code);
	}
	assert_int_equal(rs_grpc_status_parse(NULL, &code), -EINVAL);
}

static void test_status_every(void **state)
{
	static const char *const bad[] = {"FOO:3", "8", "8:", ":10", "8:0", "8:-1", "8:x",
					  "RESOURCE_EXHAUSTED:10:2", "17:10", "8:4294967296",
					  "8:10 "};
	uint64_t every = 0;
	size_t i;
	int code = -1;

	assert_int_equal(rs_grpc_status_every_parse("8:10", &code, &every), 0);
	assert_int_equal(code, 8);
	assert_int_equal(every, 10);
	assert_int_equal(rs_grpc_status_every_parse("UNAVAILABLE:1", &code, &every), 0);
	assert_int_equal(code, 14);
	assert_int_equal(every, 1);
	assert_int_equal(rs_grpc_status_every_parse("0:4294967295", &code, &every), 0);
	assert_int_equal(code, 0);
	assert_int_equal(every, 4294967295u);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		code = 99;
		every = 99;
		if (!rs_grpc_status_every_parse(bad[i], &code, &every))
			fail_msg("--grpc-status '%s' was accepted", bad[i]);
		/* nothing written on failure */
		assert_int_equal(code, 99);
		assert_int_equal(every, 99);
	}
	assert_int_equal(rs_grpc_status_every_parse(NULL, &code, &every), -EINVAL);
}

#define S(lit) lit, sizeof(lit) - 1

/* check() of each string in the NULL-terminated list is want (the string in the message if not) */
static void each(bool (*check)(const char *, size_t), const char *const *list, bool want)
{
	for (; *list; list++)
		if (check(*list, strlen(*list)) != want)
			fail_msg("\"%s\" is %s", *list, want ? "refused" : "taken");
}

static void test_content_type(void **state)
{
	static const char *const ok[] = {"application/grpc", "application/grpc+proto",
					 "application/grpc;charset=utf-8", "Application/GRPC", NULL};
	static const char *const bad[] = {"application/grpcx", "application/grpc-web",
					  "application/json", "application/grp", "", NULL};

	each(rs_grpc_content_type_ok, ok, true);
	each(rs_grpc_content_type_ok, bad, false);
}

static void test_path(void **state)
{
	static const char *const ok[] = {"/kv.Store/Put", "/S/M", "/grpc.health.v1.Health/Check",
					 NULL};
	static const char *const bad[] = {"/", "/kv.Store", "/kv.Store/", "//Put", "/a/b/c",
					  "kv.Store/Put", "", NULL};

	each(rs_grpc_path_ok, ok, true);
	each(rs_grpc_path_ok, bad, false);
}

/* two messages (6 bytes, then empty) and a third cut short */
static const uint8_t body[] = {0, 0, 0, 0, 6, 0x0a, 1, 'a', 0x12, 1, 'b', /* message 1 */
			       0, 0, 0, 0, 0,				/* message 2, empty */
			       1, 0, 0, 0, 2, 'x'};			/* 1 of 2 bytes */

static void test_scan_every_split(void **state)
{
	const size_t whole = 16; /* the first two messages */
	struct rs_grpc_scan s;
	size_t cut, n;

	/* the same answer whatever the pieces: each split into two, then byte by byte */
	for (cut = 0; cut <= whole; cut++) {
		memset(&s, 0, sizeof(s));
		rs_grpc_scan_feed(&s, body, cut);
		rs_grpc_scan_feed(&s, body + cut, whole - cut);
		assert_true(rs_grpc_scan_complete(&s));
		assert_int_equal(s.messages, 2);
	}
	memset(&s, 0, sizeof(s));
	for (n = 0; n < sizeof(body); n++) {
		rs_grpc_scan_feed(&s, body + n, 1);
		/* complete exactly between messages */
		assert_int_equal(rs_grpc_scan_complete(&s), n + 1 == 11 || n + 1 == 16);
	}
	assert_int_equal(s.messages, 2);
	assert_false(rs_grpc_scan_complete(&s));

	/* no body: complete, no message; a prefix alone: not complete */
	memset(&s, 0, sizeof(s));
	assert_true(rs_grpc_scan_complete(&s));
	rs_grpc_scan_feed(&s, body, 4);
	assert_false(rs_grpc_scan_complete(&s));
	assert_int_equal(s.messages, 0);
}

static void test_methods(void **state)
{
	static struct rs_grpc_methods t, u;
	char path[RS_GRPC_PATH_MAX + 8];
	unsigned i;

	memset(&t, 0, sizeof(t));
	rs_grpc_methods_count(&t, S("/kv.Store/Put"));
	rs_grpc_methods_count(&t, S("/kv.Store/Get"));
	rs_grpc_methods_count(&t, S("/kv.Store/Put"));
	/* a prefix of a known path is another path */
	rs_grpc_methods_count(&t, S("/kv.Store/P"));
	assert_int_equal(t.n, 3);
	assert_string_equal(t.m[0].path, "/kv.Store/Put");
	assert_int_equal(t.m[0].calls, 2);
	assert_int_equal(t.m[1].calls, 1);
	assert_int_equal(t.m[2].calls, 1);

	/* too long to keep, or beyond the table: counted in other, never lost */
	memset(path, 'a', sizeof(path));
	rs_grpc_methods_count(&t, path, RS_GRPC_PATH_MAX);
	assert_int_equal(t.other, 1);
	for (i = 0; i < RS_GRPC_METHODS_MAX + 5; i++) {
		snprintf(path, sizeof(path), "/s.S/M%u", i);
		rs_grpc_methods_count(&t, path, strlen(path));
	}
	assert_int_equal(t.n, RS_GRPC_METHODS_MAX);
	/* the long one, and the 69 new paths less the 61 that fitted */
	assert_int_equal(t.other, 1 + 8);

	/* merged: the same paths add up; a path that no longer fits goes to other */
	memset(&u, 0, sizeof(u));
	rs_grpc_methods_count(&u, S("/x.Y/Z"));
	rs_grpc_methods_count(&u, S("/kv.Store/Put"));
	rs_grpc_methods_merge(&u, &t);
	assert_string_equal(u.m[1].path, "/kv.Store/Put");
	assert_int_equal(u.m[1].calls, 3);
	assert_int_equal(u.n, RS_GRPC_METHODS_MAX);
	assert_int_equal(u.other, t.other + 1);
}

LL_TEST_MAIN(test_status_names, test_status_parse, test_status_every, test_content_type,
	     test_path, test_scan_every_split, test_methods)
