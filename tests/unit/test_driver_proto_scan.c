// SPDX-License-Identifier: MIT
/*
 * How deep a .proto nests (driver/grpc/proto_scan.c): brackets counted as libprotobuf's
 * tokenizer would see them (not in comments or strings), the scan stopped and the line named
 * past the limit, and a 16,000-deep file (the one that crashed libprotobuf) measured without
 * recursion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "grpc/proto_scan.h"

static unsigned depth(const char *s)
{
	return drv_proto_depth(s, strlen(s), DRV_PROTO_MAX_DEPTH, NULL);
}

/* a text and the depth drv_proto_depth() finds in it */
struct depth_case {
	const char *text;
	unsigned depth;
};

static void test_depth(void **state)
{
	static const struct depth_case cases[] = {
		{"", 0},
		{"syntax = \"proto3\";\npackage a;\n", 0},
		{"message A { string s = 1; }", 1},
		{"message A { message B { map<string, int32> m = 1; } }", 3},
		{"service S { rpc M(A) returns (B); }", 2},
		{"message A { int32 n = 1 [default = 5]; }", 2},
		/* an option's text-format value nests with { and < */
		{"option (o) = { a: < b: { c: 1 } > };", 3},
		/* closers without openers do not go below 0 */
		{"}}} message A { }", 1},
		/* brackets in comments and strings do not count */
		{"// {{{{\nmessage A {}", 1},
		{"/* {{{{\n{{{ */ message A {}", 1},
		{"option o = \"{{{{\"; message A {}", 1},
		{"option o = '{{\\'{{'; message A {}", 1},
		{"option o = \"a\\\"{{\"; message A {}", 1},
		/* unterminated: a string ends at its line, a comment at the end */
		{"option o = \"{{\nmessage A {}", 1},
		{"message A {} /* {{{", 1},
		{"message A {} \"\\", 1},
		{"/", 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (depth(cases[i].text) != cases[i].depth)
			print_message("case %zu: \"%s\"\n", i, cases[i].text);
		assert_int_equal(depth(cases[i].text), cases[i].depth);
	}
}

/* n nested messages, as in issue 59 */
static char *nested(unsigned n)
{
	size_t len = 64 + (size_t)n * 16;
	char *s = malloc(len), *p = s;
	unsigned i;

	assert_non_null(s);
	p += sprintf(p, "syntax = \"proto3\";\npackage d;\n");
	for (i = 0; i < n; i++)
		p += sprintf(p, "message A {\n");
	for (i = 0; i < n; i++)
		*p++ = '}';
	*p = '\0';
	return s;
}

static void test_limit(void **state)
{
	char *s = nested(16000);
	unsigned line = 0;

	(void)state;
	/* stops at the first level past the limit, on its line (line 3 holds the first) */
	assert_int_equal(drv_proto_depth(s, strlen(s), DRV_PROTO_MAX_DEPTH, &line),
			 DRV_PROTO_MAX_DEPTH + 1);
	assert_int_equal(line, 3 + DRV_PROTO_MAX_DEPTH);
	assert_int_equal(drv_proto_depth(s, strlen(s), 20000, NULL), 16000);
	free(s);
	s = nested(DRV_PROTO_MAX_DEPTH);
	line = 0;
	assert_int_equal(drv_proto_depth(s, strlen(s), DRV_PROTO_MAX_DEPTH, &line),
			 DRV_PROTO_MAX_DEPTH);
	assert_int_equal(line, 0); /* not past the limit: untouched */
	free(s);
}

LL_TEST_MAIN(test_depth, test_limit)
