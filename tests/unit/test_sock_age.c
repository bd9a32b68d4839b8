// SPDX-License-Identifier: MIT
/*
 * CLOSE_WAIT and FIN_WAIT2 ageing across censuses (observer/sources/sock_age.c): a socket is
 * old when two walks OBS_SOCK_AGE_OLD_S apart or more saw it in the same state; a state change
 * restarts its clock; a FIN_WAIT2 whose peer sits unaccepted is the accept queue's, not a leak.
 * No root, no kernel: the walks are fed by hand as census.c feeds them from sock_diag.
 */
#include <stdlib.h>
#include <string.h>
#include "ll_test.h"
#include "sources/sock_age.h"

static int setup(void **state)
{
	*state = obs_sock_age_new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	obs_sock_age_free(*state);
	return 0;
}

/* One walk at now_s over n sockets (cookie, CLOSE_WAIT or not), the first on target port 3. */
static void walk(struct obs_sock_age *a, struct obs_sock_age_counts *cs, double now_s, size_t n,
		 const uint64_t *cookie, const bool *cw)
{
	size_t i;

	obs_sock_age_begin(a, now_s);
	for (i = 0; i < n; i++) {
		assert_true(obs_sock_age_track(a, cookie[i], cw[i], 1000 + cookie[i]));
		if (i == 0)
			obs_sock_age_port(a, 3);
	}
	obs_sock_age_end(a, cs);
}

static void test_old_after_two_walks(void **state)
{
	struct obs_sock_age *a = *state;
	struct obs_sock_age_counts cs;
	const uint64_t ck[] = {7, 3, 9};
	const bool st[] = {true, true, false}; /* CLOSE_WAIT, CLOSE_WAIT, FIN_WAIT2 */

	walk(a, &cs, 10.0, 3, ck, st);
	assert_int_equal(cs.young, 3); /* first seen now */
	assert_int_equal(cs.close_wait_old + cs.fin_wait2_old, 0);
	/* 0.2 s later: still young */
	walk(a, &cs, 10.2, 3, ck, st);
	assert_int_equal(cs.young, 3);
	/* OBS_SOCK_AGE_OLD_S after the first sight: old, counted per port for the first */
	walk(a, &cs, 10.0 + OBS_SOCK_AGE_OLD_S, 3, ck, st);
	assert_int_equal(cs.young, 0);
	assert_int_equal(cs.close_wait_old, 2);
	assert_int_equal(cs.fin_wait2_old, 1);
	assert_int_equal(cs.port_close_wait_old[3], 1);
	assert_int_equal(cs.port_fin_wait2_old[3], 0);
}

static void test_gone_or_moved_starts_again(void **state)
{
	struct obs_sock_age *a = *state;
	struct obs_sock_age_counts cs;
	const uint64_t ck[] = {5, 6};
	const bool st[] = {false, true};   /* FIN_WAIT2, CLOSE_WAIT */
	const bool moved[] = {true, true}; /* 5 went from FIN_WAIT2 to CLOSE_WAIT */

	walk(a, &cs, 1.0, 2, ck, st);
	/* cookie 5 changed state; cookie 6 is missing from this walk */
	walk(a, &cs, 2.0, 1, ck, moved);
	assert_int_equal(cs.young, 1);
	assert_int_equal(cs.close_wait_old, 0);
	/* 6 comes back: its clock started again (it was not in the walk before) */
	walk(a, &cs, 3.0, 2, ck, moved);
	assert_int_equal(cs.close_wait_old, 1); /* 5, in CLOSE_WAIT since 2.0 */
	assert_int_equal(cs.young, 1);
}

static void test_peer_unaccepted(void **state)
{
	struct obs_sock_age *a = *state;
	struct obs_sock_age_counts cs;
	int k;

	for (k = 0; k < 2; k++) {
		obs_sock_age_begin(a, 5.0 + k);
		assert_true(obs_sock_age_track(a, 11, false, 0xabc));
		assert_true(obs_sock_age_track(a, 12, false, 0xdef));
		/* the server side of 0xabc is a child in CLOSE_WAIT no one accepted */
		assert_true(obs_sock_age_unaccepted(a, 0xabc));
		obs_sock_age_end(a, &cs);
	}
	assert_int_equal(cs.peer_queued, 1);
	assert_int_equal(cs.fin_wait2_old, 1);
}

static void test_tables_are_bounded(void **state)
{
	struct obs_sock_age *a = *state;
	struct obs_sock_age_counts cs;
	uint64_t i;

	obs_sock_age_begin(a, 1.0);
	for (i = 0; i < OBS_SOCK_AGE_TRACK; i++)
		assert_true(obs_sock_age_track(a, i, true, 0));
	assert_false(obs_sock_age_track(a, i, true, 0));
	for (i = 0; i < OBS_SOCK_AGE_UNACC; i++)
		assert_true(obs_sock_age_unaccepted(a, i));
	assert_false(obs_sock_age_unaccepted(a, i));
	obs_sock_age_end(a, &cs);
	assert_int_equal(cs.young, OBS_SOCK_AGE_TRACK);
}

LL_TEST_MAIN_EACH(setup, teardown, test_old_after_two_walks, test_gone_or_moved_starts_again,
		  test_peer_unaccepted, test_tables_are_bounded)
