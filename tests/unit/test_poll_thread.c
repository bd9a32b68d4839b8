// SPDX-License-Identifier: MIT
/*
 * The reader thread of h2_status.c and trace.c (observer/sources/poll_thread.c): it runs its
 * step until stopped, its stop joins it once, and a stop with no thread says so.
 */
#include <stdatomic.h>
#include <time.h>
#include "ll_test.h"
#include "sources/poll_thread.h"

static void count(void *arg)
{
	struct timespec ts = {0, 1000000L};

	atomic_fetch_add((atomic_int *)arg, 1);
	nanosleep(&ts, NULL);
}

static void test_runs_until_stopped(void **state)
{
	struct obs_poll_thread t = {0};
	struct timespec ts = {0, 1000000L};
	atomic_int steps = 0;
	int seen;

	assert_int_equal(obs_poll_thread_start(&t, count, &steps), 0);
	while (atomic_load(&steps) < 3)
		nanosleep(&ts, NULL);
	assert_true(obs_poll_thread_stop(&t));
	seen = atomic_load(&steps);
	nanosleep(&ts, NULL);
	assert_int_equal(atomic_load(&steps), seen); /* joined: no step after the stop */
	assert_false(obs_poll_thread_stop(&t));
}

static void test_stop_without_start(void **state)
{
	struct obs_poll_thread t = {0};

	assert_false(obs_poll_thread_stop(&t));
}

LL_TEST_MAIN(test_runs_until_stopped, test_stop_without_start)
