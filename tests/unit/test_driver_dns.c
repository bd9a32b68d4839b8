// SPDX-License-Identifier: MIT
/* DNS (driver/dns/): a reply over TCP whole and split at every byte, malformed; a UDP message and
 * its RCODE. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_frame_feed.h"
#include "dns/dns_frame.h"

static const struct drv_frame_ext *const x = &drv_dns_frame;

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
	COMPLETE(x, ok, DRV_APP_OK);
	COMPLETE(x, nx, DRV_APP_DNS_RCODE);
	o = x_run(x, nx, sizeof(nx) - 1, 1);
	assert_int_equal(o.rcode, 3);
	MALFORMED(x, query); /* QR clear: not a response */
	MALFORMED(x, tiny);  /* shorter than a header */
	INCOMPLETE(x, "\x00\x20\x12\x34\x81\x80");
	assert_int_equal(drv_dns_message((const uint8_t *)nx + 2, 14, &rc), 0);
	assert_int_equal(rc, 3);
	assert_int_equal(drv_dns_message((const uint8_t *)query + 2, 12, &rc), DRV_E_MALFORMED);
	assert_int_equal(drv_dns_message((const uint8_t *)ok + 2, 11, &rc), DRV_E_MALFORMED);
	assert_string_equal(drv_dns_rcode_name(3), "NXDOMAIN");
	assert_string_equal(drv_dns_rcode_name(5), "REFUSED");
}

LL_TEST_MAIN(test_dns)
