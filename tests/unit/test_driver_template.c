// SPDX-License-Identifier: MIT
/* Request templates (driver/config/template.c): layout, fixed widths, ranges, zipf skew, bad fields. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "config/template.h"

static void test_layout(void **state)
{
	struct drv_tpl t;
	struct drv_tpl_ctx c = {.rng = 1, .seq = 3, .stride = 2};
	char out[128], err[128];
	unsigned i;
	long v;

	(void)state;
	assert_int_equal(drv_tpl_parse(&t, "GET k:{{rand:5-250}} s={{seq}}\r\n", 32, err,
				       sizeof(err)), 0);
	assert_int_equal(t.nfields, 2);
	/* "GET k:" + 3 digits + " s=" + 10 digits + CRLF */
	assert_int_equal(t.len, 6 + 3 + 3 + 10 + 2);
	for (i = 0; i < 1000; i++) {
		drv_tpl_expand(&t, &c, out);
		out[t.len] = '\0';
		assert_memory_equal(out, "GET k:", 6);
		v = strtol(out + 6, NULL, 10);
		assert_true(v >= 5 && v <= 250);
		assert_int_equal(strtol(out + 12, NULL, 10), 3 + 2 * i); /* seq, stride 2 */
		assert_memory_equal(out + t.len - 2, "\r\n", 2);
	}
	drv_tpl_free(&t);
	assert_int_equal(drv_tpl_parse(&t, "plain", 5, err, sizeof(err)), 0);
	assert_int_equal(t.nfields, 0);
	drv_tpl_expand(&t, &c, out);
	assert_memory_equal(out, "plain", 5);
	drv_tpl_free(&t);
}

static void test_zipf(void **state)
{
	struct drv_tpl t;
	struct drv_tpl_ctx c = {.rng = 42};
	char out[16], err[128];
	unsigned hist[1001] = {0}, i;
	long v;

	(void)state;
	assert_int_equal(drv_tpl_parse(&t, "{{zipf:1000:1}}", 15, err, sizeof(err)), 0);
	assert_int_equal(t.len, 4);
	for (i = 0; i < 200000; i++) {
		drv_tpl_expand(&t, &c, out);
		out[4] = '\0';
		v = strtol(out, NULL, 10);
		assert_true(v >= 1 && v <= 1000);
		hist[v]++;
	}
	/* s = 1 over 1000: P(1) = 1 / H(1000) = 0.1336, P(2) = P(1) / 2 */
	assert_true(hist[1] > 200000 * 0.125 && hist[1] < 200000 * 0.142);
	assert_true(hist[2] > hist[1] * 0.45 && hist[2] < hist[1] * 0.55);
	assert_true(hist[1000] < hist[1] / 200);
	drv_tpl_free(&t);
	/* s = 0: uniform */
	assert_int_equal(drv_tpl_parse(&t, "{{zipf:10:0}}", 13, err, sizeof(err)), 0);
	memset(hist, 0, sizeof(hist));
	for (i = 0; i < 100000; i++) {
		drv_tpl_expand(&t, &c, out);
		out[2] = '\0';
		hist[strtol(out, NULL, 10) % 1001]++;
	}
	for (i = 1; i <= 10; i++)
		assert_true(hist[i] > 9000 && hist[i] < 11000);
	drv_tpl_free(&t);
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
		"{{rand:9-1}}", "{{rand:1}}", "{{zipf:0:1}}", "{{zipf:10:-1}}", "{{nope}}", "{{seq",
		"{{zipf:20000000:1}}", "{{rand:1-2x}}",
	};
	struct drv_tpl t;
	char err[160];
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_not_equal(drv_tpl_parse(&t, bad[i], strlen(bad[i]), err, sizeof(err)), 0);
		assert_true(err[0] != '\0');
	}
}

LL_TEST_MAIN(test_layout, test_zipf, test_bad)
