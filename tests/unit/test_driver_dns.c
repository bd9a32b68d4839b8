// SPDX-License-Identifier: MIT
/* DNS (driver/dns/): a reply over TCP whole and split at every byte, malformed; a UDP message and
 * its RCODE; the --requests-file queries. */
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
#include "driver_frame_feed.h"
#include "config/parse.h"
#include "dns/dns_frame.h"
#include "dns/dns_request.h"

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

/* A record line through DNS's record hook over scheme: 1 and its bytes (*n), 0, or -EINVAL with
 * a message. */
static int record(enum drv_resp_rule rule, enum ll_scheme scheme, const char *line, uint8_t *out,
		  size_t *n, char *err)
{
	struct drv_config cfg;
	char buf[512], *src = NULL;
	int r;

	drv_config_init(&cfg);
	cfg.resp_rule = rule;
	cfg.url.scheme = scheme;
	snprintf(buf, sizeof(buf), "%s", line);
	err[0] = '\0';
	*n = 0;
	r = drv_dns_record(&cfg, buf, &src, n, err, 256);
	if (r == 1) {
		assert_true(*n <= 64);
		memcpy(out, src, *n);
	}
	free(src);
	return r;
}

/* --requests-file with --response dns: dnsperf's NAME TYPE as a query, id 0 and RD, one question
 * of class IN; over tcp:// after its length; bad lines named. */
static void test_dns_record(void **state)
{
	static const uint8_t a[] = "\x00\x00\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
				   "\x01" "a\x07" "example\x03" "com\x00" "\x00\x01\x00\x01";
	static const uint8_t mx[] = "\x00\x00\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
				    "\x01" "b\x00" "\x00\x0f\x00\x01";
	char err[256], label[80];
	uint8_t out[64];
	size_t n;

	(void)state;
	assert_int_equal(record(DRV_RESP_DNS, LL_SCHEME_UDP, "a.example.com A", out, &n, err), 1);
	assert_int_equal(n, sizeof(a) - 1);
	assert_memory_equal(out, a, n);
	assert_int_equal(record(DRV_RESP_DNS, LL_SCHEME_TCP, "a.example.com. a", out, &n, err), 1);
	assert_int_equal(n, sizeof(a) - 1 + 2);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], sizeof(a) - 1);
	assert_memory_equal(out + 2, a, sizeof(a) - 1);
	assert_int_equal(record(DRV_RESP_DNS, LL_SCHEME_UDP, "b MX", out, &n, err), 1);
	assert_memory_equal(out, mx, sizeof(mx) - 1);
	assert_int_equal(record(DRV_RESP_RESP, LL_SCHEME_TCP, "b MX", out, &n, err), 0);
	assert_int_equal(record(DRV_RESP_DNS, LL_SCHEME_UDP, "b BOGUS", out, &n, err), -EINVAL);
	assert_string_equal(err, "expected NAME TYPE (A, AAAA, MX, TXT, NS, ...)");
	assert_int_equal(record(DRV_RESP_DNS, LL_SCHEME_UDP, "b", out, &n, err), -EINVAL);
	assert_int_equal(record(DRV_RESP_DNS, LL_SCHEME_UDP, "{{seq}}.b A", out, &n, err), -EINVAL);
	memset(label, 'a', 64);
	snprintf(label + 64, sizeof(label) - 64, ".com A");
	assert_int_equal(record(DRV_RESP_DNS, LL_SCHEME_UDP, label, out, &n, err), -EINVAL);
	assert_non_null(strstr(err, ": a label over 63 bytes"));
}

LL_TEST_MAIN(test_dns, test_dns_record)
