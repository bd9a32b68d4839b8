// SPDX-License-Identifier: MIT
/*
 * Bounded fuzzing of the resp, memcache and dns framings: random bytes and mutations of valid
 * responses, fed in random splits, for LL_FUZZ_SECONDS (default 10) seconds. Every feed must
 * take at least one byte and at most what it was given, and end in one of: complete (with a
 * known verdict), malformed (a counted error), or waiting for more (a timeout in the driver).
 * Never a hang or a crash (the run is under ctest's timeout and, in CI, the sanitizers if on).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "ll_test.h"
#include "dns/dns_frame.h"
#include "framing/frame.h"
#include "memcache/memcache_frame.h"
#include "redis/redis_frame.h"
#include "results/stats.h"

static const char *const x_corpus[3][8] = {
	{"+PONG\r\n", "-ERR x\r\n", "$5\r\nhello\r\n", "*2\r\n$3\r\nfoo\r\n:1\r\n",
	 "%1\r\n+a\r\n*1\r\n$-1\r\n", "|1\r\n+k\r\n+v\r\n#t\r\n", "!3\r\nERR\r\n", "*-1\r\n"},
	{"STORED\r\n", "VALUE k 0 5\r\nhello\r\nEND\r\n", "END\r\n", "SERVER_ERROR x\r\n",
	 "STAT a 1\r\nEND\r\n", "VA 2 t\r\nhi\r\n", "CLIENT_ERROR bad\r\n", "12\r\n"},
	{"\x00\x0c\x12\x34\x81\x80\x00\x00\x00\x00\x00\x00\x00\x00",
	 "\x00\x0e\x12\x34\x81\x83\x00\x01\x00\x00\x00\x00\x00\x00zz",
	 "\x00\x0d\x00\x01\x85\x82\x00\x00\x00\x00\x00\x00\x00\x00\x01", NULL, NULL, NULL, NULL,
	 NULL},
};
static const size_t x_dns_len[3] = {14, 16, 15};

static uint64_t x_rng = LL_TEST_SEED;

static uint64_t x_rand(void)
{
	return ll_xorshift(&x_rng);
}

static double x_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Build one input: a valid response (or two), random bytes, or a mutated response. */
static size_t x_input(int k, uint8_t *buf, size_t cap)
{
	size_t n = 0, len, i, m;
	const char *c;
	int j;

	for (j = 0; j < 1 + (int)(x_rand() % 3); j++) {
		i = x_rand() % 8;
		c = x_corpus[k][i];
		if (!c) {
			i = x_rand() % 3;
			c = x_corpus[k][i];
		}
		len = k == 2 ? x_dns_len[i] : strlen(c);
		if (n + len > cap)
			break;
		memcpy(buf + n, c, len);
		n += len;
	}
	switch (x_rand() % 4) {
	case 0: /* random bytes */
		n = x_rand() % 64;
		for (i = 0; i < n; i++)
			buf[i] = (uint8_t)x_rand();
		break;
	case 1: /* flip bytes */
		for (m = 1 + x_rand() % 3; m-- && n;)
			buf[x_rand() % n] = (uint8_t)x_rand();
		break;
	case 2: /* truncate */
		if (n)
			n = x_rand() % n;
		break;
	default: /* as is */
		break;
	}
	return n;
}

/* A fresh parser of kind k (0 RESP, 1 memcached, 2 DNS), for the next response. */
static void x_reset(struct drv_frame *f, int k)
{
	if (k == 0)
		drv_resp_reset(f);
	else if (k == 1)
		drv_mc_reset(f);
	else
		drv_dns_reset(f);
}

static void test_fuzz(void **state)
{
	const char *env = getenv("LL_FUZZ_SECONDS");
	double secs = env ? atof(env) : 10.0, t0 = x_now();
	uint64_t runs = 0, out[3][3] = {{0}};
	struct drv_frame st; /* the parser's state, in its app.ext */
	enum drv_app_verdict v;
	uint8_t buf[512];
	size_t n, i, c, u;
	int k, res;

	(void)state;
	while (x_now() - t0 < secs) {
		for (int batch = 0; batch < 1000; batch++, runs++) {
			k = (int)(x_rand() % 3);
			n = x_input(k, buf, sizeof(buf));
			i = 0;
			res = 0;
			x_reset(&st, k);
			while (i < n) {
				c = 1 + x_rand() % (n - i);
				v = DRV_APP_OK;
				if (k == 0)
					u = drv_resp_feed(&st, buf + i, c, &res, &v);
				else if (k == 1)
					u = drv_mc_feed(&st, buf + i, c, &res, &v);
				else
					u = drv_dns_feed(&st, buf + i, c, &res, &v);
				assert_true(u >= 1 && u <= c);
				assert_true(res == 0 || res == 1 || res == DRV_E_MALFORMED);
				assert_true(v <= DRV_APP_DNS_RCODE);
				i += u;
				if (res == 1) { /* pipelined: the next response starts here */
					out[k][0]++;
					x_reset(&st, k);
				} else if (res) {
					out[k][1]++;
					break;
				} else {
					assert_int_equal(u, c);
				}
			}
			if (!res)
				out[k][2]++;
		}
	}
	printf("fuzz: %llu inputs in %.1f s; complete/malformed/waiting: resp %llu/%llu/%llu, "
	       "memcache %llu/%llu/%llu, dns %llu/%llu/%llu\n",
	       (unsigned long long)runs, x_now() - t0, (unsigned long long)out[0][0],
	       (unsigned long long)out[0][1], (unsigned long long)out[0][2],
	       (unsigned long long)out[1][0], (unsigned long long)out[1][1],
	       (unsigned long long)out[1][2], (unsigned long long)out[2][0],
	       (unsigned long long)out[2][1], (unsigned long long)out[2][2]);
	for (k = 0; k < 3; k++) { /* every outcome was reached: the fuzzer exercised the parser */
		assert_true(out[k][0] > 0);
		assert_true(out[k][1] > 0);
	}
}

LL_TEST_MAIN(test_fuzz)
