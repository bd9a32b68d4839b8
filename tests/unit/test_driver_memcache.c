// SPDX-License-Identifier: MIT
/* memcached (driver/memcache/): the text protocol's framing whole, split at every byte,
 * malformed; a reply's first line over UDP. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_frame_feed.h"
#include "memcache/memcache_frame.h"

static const struct drv_frame_ext *const x = &drv_memcache_frame;

static const struct x_text texts[] = {
	{"STORED\r\n", DRV_APP_OK},
	{"NOT_FOUND\r\n", DRV_APP_OK},
	{"DELETED\r\n", DRV_APP_OK},
	{"END\r\n", DRV_APP_OK},
	{"42\r\n", DRV_APP_OK},
	{"VERSION 1.6.18\r\n", DRV_APP_OK},
	{"VALUE k 0 5\r\nhello\r\nEND\r\n", DRV_APP_OK},
	/* data holding CRLF and END: only the byte count says where it ends */
	{"VALUE k 0 7\r\nEND\r\n\r\n\r\nEND\r\n", DRV_APP_OK},
	{"VALUE a 1 1 77\r\nx\r\nVALUE b 2 0 78\r\n\r\nEND\r\n", DRV_APP_OK},
	{"STAT pid 1\r\nSTAT uptime 2\r\nEND\r\n", DRV_APP_OK},
	{"VA 2 f0\r\nhi\r\n", DRV_APP_OK},
	{"HD\r\n", DRV_APP_OK},
	{"ERROR\r\n", DRV_APP_MC_CLIENT},
	{"CLIENT_ERROR bad data chunk\r\n", DRV_APP_MC_CLIENT},
	{"SERVER_ERROR out of memory storing object\r\n", DRV_APP_MC_SERVER},
	{"\r\n", X_MALFORMED},				 /* empty line */
	{"stored\r\n", X_MALFORMED},			 /* lower case */
	{"STORED\n", X_MALFORMED},			 /* bare LF */
	{"STORED\rX", X_MALFORMED},
	{"VALUE k 0 x\r\n", X_MALFORMED},		 /* size not a number */
	{"VALUE k 0\r\n", X_MALFORMED},			 /* no size */
	{"VALUE k 0 2\r\nhiXX", X_MALFORMED},		 /* data without its CRLF */
	{"VALUE k 0 1\r\nx\r\nSTORED\r\n", X_MALFORMED}, /* only VALUE or END after VALUE */
	{"STAT a 1\r\nERROR\r\n", X_MALFORMED},
	{" STORED\r\n", X_MALFORMED},
	{"VALUE k 0 99999999999999\r\n", X_MALFORMED},
	{"VALUE k 0 5\r\nhello\r\n", X_INCOMPLETE},
	{"STAT pid 1\r\n", X_INCOMPLETE},
	{"STOR", X_INCOMPLETE},
};

static void test_memcache(void **state)
{
	(void)state;
	x_cases(x, texts, sizeof(texts) / sizeof(texts[0]));
}

static void test_memcache_long_line(void **state)
{
	char line[DRV_MC_MAX_LINE + 16];

	(void)state;
	memset(line, 'A', sizeof(line));
	x_malformed(x, line, sizeof(line));
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

LL_TEST_MAIN(test_memcache, test_memcache_long_line, test_memcache_first_line)
