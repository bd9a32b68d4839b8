// SPDX-License-Identifier: MIT
/*
 * Counting requests in the bytes of one read (include/loadlens/payload.h: the code the kernel's
 * payload sampling runs): pipelined batches of RESP, HTTP/1.1 and memcached text count one per
 * request; a single request, however many lines, counts one; binary reads are not counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/payload.h"

static __u8 buf[LL_PL_SCAN + 8];

/* Count s repeated `times` (the read), as the kernel would: the first LL_PL_SCAN bytes. */
static __u32 count(const char *s, int times, __u64 *len)
{
	size_t n = strlen(s), off = 0;
	int k;

	memset(buf, 0, sizeof(buf));
	*len = (__u64)n * (__u64)times;
	for (k = 0; k < times && off < LL_PL_SCAN; k++) {
		size_t c = n < LL_PL_SCAN - off ? n : LL_PL_SCAN - off;

		memcpy(buf + off, s, c);
		off += c;
	}
	return ll_pl_count(buf, (__u32)off);
}

static void test_resp_batches(void **state)
{
	const char *set = "*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n$3\r\nxxx\r\n";
	const char *get = "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n";
	char mix[256];
	__u64 len;
	__u32 c;

	(void)state;
	assert_int_equal(count(set, 1, &len), 1);
	assert_int_equal(count(set, 16, &len), 16); /* redis-benchmark -P 16 */
	assert_int_equal(count(get, 4, &len), 4);
	/* a GET after a SET: "*2" and "*3" are both commands (digits match any digit) */
	snprintf(mix, sizeof(mix), "%s%s%s", set, get, set);
	assert_int_equal(count(mix, 1, &len), 3);
	/* a batch longer than the bytes looked at: 64 x 45 bytes, counted by length */
	c = count(set, 64, &len);
	assert_int_equal(c, (LL_PL_SCAN - 4) / strlen(set) + 1);
	assert_true(ll_pl_extrapolate(c, LL_PL_SCAN, len) >= 63 &&
		    ll_pl_extrapolate(c, LL_PL_SCAN, len) <= 66);
	/* one request longer than looked at stays one */
	assert_int_equal(ll_pl_extrapolate(1, LL_PL_SCAN, 100000), 1);
}

static void test_http_and_memcached(void **state)
{
	const char *get = "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: x\r\n"
			  "Accept: */*\r\n\r\n";
	const char *post = "POST /api HTTP/1.1\r\nHost: h\r\nContent-Length: 28\r\n\r\n"
			   "GET is a word\nGET me a line";
	__u64 len;

	(void)state;
	assert_int_equal(count(get, 1, &len), 1); /* keep-alive: one per read */
	assert_int_equal(count(get, 8, &len), 8); /* HTTP/1.1 pipelining */
	/* a body whose lines begin like another method: not the read's first bytes */
	assert_int_equal(count(post, 1, &len), 1);
	assert_int_equal(count("get scenario\r\n", 1, &len), 1);
	assert_int_equal(count("get k1\r\nget k2\r\nget k3\r\n", 1, &len), 3);
	/* LF-only lines count the same */
	assert_int_equal(count("GET / HTTP/1.0\n\nGET / HTTP/1.0\n\n", 1, &len), 2);
	/* a read that begins in the middle of a request: its first bytes are no request's
	 * start, the requests after it are not counted (a lower bound, never more) */
	assert_int_equal(count("xx\r\n*3\r\n$3\r\nSET\r\n*3\r\n$3\r\nSET\r\n", 1, &len), 1);
}

static void test_binary_and_short(void **state)
{
	static const __u8 h2_headers[] = {0x00, 0x00, 0x0c, 0x01, 0x05, 0x00, 0x00, 0x00, 0x01,
					  0x0a, 0x00, 0x00, 0x0c, 0x01, 0x05, 0x00, 0x00, 0x00};
	const char *preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
	__u64 len;

	(void)state;
	/* HTTP/2 frames: binary, even where a frame header follows a 0x0a byte */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, h2_headers, sizeof(h2_headers));
	assert_int_equal(ll_pl_count(buf, sizeof(h2_headers)), LL_PL_BINARY);
	/* the HTTP/2 preface is text, and one */
	assert_int_equal(count(preface, 1, &len), 1);
	/* TLS records */
	memcpy(buf, "\x16\x03\x01\x02\x00\x01", 6);
	assert_int_equal(ll_pl_count(buf, 6), LL_PL_BINARY);
	/* too short to tell, and longer than the scratch buffer */
	assert_int_equal(ll_pl_count((const __u8 *)"GE", 2), LL_PL_BINARY);
	assert_int_equal(ll_pl_count(buf, LL_PL_SCAN + 1), LL_PL_BINARY);
	/* an echo payload of repeated lines counts as requests: the documented limit */
	assert_int_equal(count("abcd\n", 3, &len), 3);
}

LL_TEST_MAIN(test_resp_batches, test_http_and_memcached, test_binary_and_short)
