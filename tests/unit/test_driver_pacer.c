// SPDX-License-Identifier: MIT
/* The pacer: -n shares, the open-loop schedule over slots, threads and shards, warm-up. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "config/parse.h"
#include "scheduling/pacer.h"

static void test_shares(void **state)
{
	uint64_t g, sum = 0;

	for (g = 0; g < 7; g++)
		sum += drv_pacer_share(100, 7, g);
	assert_int_equal(sum, 100);
	assert_int_equal(drv_pacer_share(100, 7, 0), 15);
	assert_int_equal(drv_pacer_share(100, 7, 6), 14);
}

/* drv_config_init's configuration with CONNS connections */
static void config(struct drv_config *cfg, uint64_t conns)
{
	drv_config_init(cfg);
	cfg->connections = conns;
}

/* The pacer of the slots from FIRST (one of them) under CFG, its schedule started at START. */
static void pacer_start(struct drv_pacer *p, const struct drv_config *cfg, uint32_t first,
			uint64_t start)
{
	assert_int_equal(drv_pacer_init(p, cfg, first, 1), 0);
	drv_pacer_set_start(p, start);
}

/* How many more requests P lets go at NOW before it is done (at most 100). */
static int requests_left(struct drv_pacer *p, uint64_t now)
{
	struct drv_ticket t;
	int n = 0;

	while (drv_pacer_next(p, 0, now, &t) != DRV_PACE_DONE && n < 100)
		n++;
	return n;
}

static void test_closed(void **state)
{
	struct drv_config cfg;
	struct drv_pacer p;
	struct drv_ticket t;

	config(&cfg, 2);
	cfg.requests = 5;
	cfg.delay_ns = 1000;
	pacer_start(&p, &cfg, 1, 100);
	/* slot 1 of 2 gets 2 of 5; the first request goes now, later ones after the think time */
	assert_int_equal(drv_pacer_next(&p, 0, 500, &t), DRV_PACE_GO);
	assert_int_equal(t.intended, 500);
	assert_int_equal(drv_pacer_next(&p, 0, 600, &t), DRV_PACE_WAIT);
	assert_int_equal(t.intended, 1600);
	assert_int_equal(requests_left(&p, 700), 0);
	drv_pacer_fini(&p);
}

/* Every intended time over all slots, threads and shards: an even stream at the rate. */
static void test_open_schedule(void **state)
{
	const uint64_t conns = 3, shards = 2, per_slot = 50;
	const double rate = 1000.0; /* 1 ms apart overall */
	uint64_t *times, n = 0, i, s, sh;
	struct drv_config cfg;
	struct drv_pacer p;
	struct drv_ticket t;

	times = calloc(conns * shards * per_slot, sizeof(*times));
	assert_non_null(times);
	for (sh = 0; sh < shards; sh++) {
		config(&cfg, conns);
		cfg.rate = rate;
		cfg.duration_ns = per_slot * conns * shards * 1000000ULL;
		cfg.shard_index = (uint32_t)sh;
		cfg.shard_count = (uint32_t)shards;
		for (s = 0; s < conns; s++) { /* one "thread" per slot */
			pacer_start(&p, &cfg, (uint32_t)s, 0);
			while (drv_pacer_next(&p, 0, 0, &t) != DRV_PACE_DONE)
				times[n++] = t.intended;
			drv_pacer_fini(&p);
		}
	}
	assert_int_equal(n, conns * shards * per_slot);
	/* sorted, they are exactly k ms for k = 0..n-1 */
	for (i = 0; i < n; i++) {
		uint64_t k = times[i] / 1000000ULL;

		assert_int_equal(times[i] % 1000000ULL, 0);
		assert_true(k < n);
		times[i] = k;
	}
	{
		char *seen = calloc(n, 1);

		assert_non_null(seen);
		for (i = 0; i < n; i++) {
			assert_false(seen[times[i]]);
			seen[times[i]] = 1;
		}
		free(seen);
	}
	free(times);
}

static void test_open_wait_go(void **state)
{
	struct drv_config cfg;
	struct drv_pacer p;
	struct drv_ticket t;

	config(&cfg, 1);
	cfg.rate = 1000; /* 1 ms */
	cfg.requests = 3;
	cfg.warmup_ns = 2000000; /* the first two are warm and do not use up -n */
	pacer_start(&p, &cfg, 0, 10000000);
	assert_int_equal(drv_pacer_next(&p, 0, 10000000, &t), DRV_PACE_GO);
	assert_true(t.warm);
	assert_int_equal(drv_pacer_next(&p, 0, 10000000, &t), DRV_PACE_WAIT);
	assert_int_equal(t.intended, 11000000);
	assert_true(t.warm);
	/* late: the schedule holds, the request goes now with its intended time in the past */
	assert_int_equal(drv_pacer_next(&p, 0, 20000000, &t), DRV_PACE_GO);
	assert_int_equal(t.intended, 12000000);
	assert_false(t.warm);
	assert_int_equal(drv_pacer_next(&p, 0, 20000000, &t), DRV_PACE_GO);
	assert_int_equal(drv_pacer_next(&p, 0, 20000000, &t), DRV_PACE_GO);
	assert_int_equal(drv_pacer_next(&p, 0, 20000000, &t), DRV_PACE_DONE);
	drv_pacer_fini(&p);
}

static void test_deadline(void **state)
{
	struct drv_config cfg;
	struct drv_pacer p;

	config(&cfg, 1);
	cfg.rate = 1000;
	cfg.duration_ns = 10000000; /* 10 ms at 1 ms apart: exactly 10 requests */
	pacer_start(&p, &cfg, 0, 5);
	assert_int_equal(requests_left(&p, 0), 10);
	drv_pacer_stop(&p);
	drv_pacer_fini(&p);
}

LL_TEST_MAIN(test_shares, test_closed, test_open_schedule, test_open_wait_go, test_deadline)
