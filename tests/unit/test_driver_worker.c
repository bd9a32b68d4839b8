// SPDX-License-Identifier: MIT
/* The "not sent" count: requests of a slot's open-loop schedule before -d that were never taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "ll_test.h"
#include "config/parse.h"
#include "scheduling/pacer.h"
#include "scheduling/worker.h"

/* 4 slots at 1000/s for 1 s: slot g sends at (g + 4k) ms, so 250 each before the deadline. */
static void pacer(struct drv_pacer *p, uint64_t requests, uint64_t warmup_ns)
{
	struct drv_config cfg;

	drv_config_init(&cfg);
	cfg.connections = 4;
	cfg.rate = 1000;
	cfg.duration_ns = 1000000000ULL;
	cfg.requests = requests;
	cfg.warmup_ns = warmup_ns;
	assert_int_equal(drv_pacer_init(p, &cfg, 0, 4), 0);
	drv_pacer_set_start(p, 5000);
}

static void test_untaken_all(void **state)
{
	struct drv_pacer p;
	uint64_t g, sum = 0;

	pacer(&p, 0, 0);
	for (g = 0; g < 4; g++)
		sum += drv_worker_untaken(&p, (uint32_t)g);
	assert_int_equal(sum, 1000);
	drv_pacer_fini(&p);
}

static void test_untaken_after_some(void **state)
{
	struct drv_pacer p;
	struct drv_ticket t;
	int i;

	pacer(&p, 0, 0);
	for (i = 0; i < 10; i++)
		drv_pacer_next(&p, 0, 0, &t);
	assert_int_equal(drv_worker_untaken(&p, 0), 240);
	assert_int_equal(drv_worker_untaken(&p, 3), 250);
	/* every request before the deadline taken: nothing left */
	while (drv_pacer_next(&p, 1, UINT64_MAX / 2, &t) != DRV_PACE_DONE)
		;
	assert_int_equal(drv_worker_untaken(&p, 1), 0);
	drv_pacer_fini(&p);
}

static void test_untaken_capped_by_n(void **state)
{
	struct drv_pacer p;

	pacer(&p, 500, 0); /* 125 per slot */
	assert_int_equal(drv_worker_untaken(&p, 0), 125);
	assert_int_equal(drv_worker_untaken(&p, 2), 125);
	drv_pacer_fini(&p);
}

static void test_untaken_warmup(void **state)
{
	struct drv_pacer p;

	/* warm-up 0.5 s: the counted window is 0.5 s .. 1.5 s, still 250 per slot */
	pacer(&p, 0, 500000000ULL);
	assert_int_equal(drv_worker_untaken(&p, 0), 250);
	assert_int_equal(drv_worker_untaken(&p, 3), 250);
	drv_pacer_fini(&p);
}

static void test_untaken_closed_loop(void **state)
{
	struct drv_config cfg;
	struct drv_pacer p;

	drv_config_init(&cfg);
	cfg.connections = 2;
	cfg.duration_ns = 1000000000ULL;
	assert_int_equal(drv_pacer_init(&p, &cfg, 0, 2), 0);
	assert_int_equal(drv_worker_untaken(&p, 0), 0);
	drv_pacer_fini(&p);
}

LL_TEST_MAIN(test_untaken_all, test_untaken_after_some, test_untaken_capped_by_n,
	     test_untaken_warmup, test_untaken_closed_loop)
