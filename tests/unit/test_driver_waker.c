// SPDX-License-Identifier: MIT
/* The waker: the early offset it learns, and sends on a real loop never before their time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <uv.h>
#include "drv.h"
#include "waker.h"

static void test_early_offset(void **state)
{
	struct drv_sched s;
	uint32_t i;

	assert_int_equal(drv_sched_init(&s, NULL, 4), 0);
	assert_int_equal(s.early_ns, 0);
	/* 30 us wake-ups: wake 30 us early */
	for (i = 0; i < 40; i++)
		drv_sched_note_latency(&s, 30000);
	assert_int_equal(s.early_ns, 30000);
	/* a few preempted wake-ups (ms) do not move it: the 75th percentile of the last 32 */
	for (i = 0; i < 7; i++)
		drv_sched_note_latency(&s, 5000000);
	assert_int_equal(s.early_ns, 30000);
	/* a machine that got slower: it follows, up to the cap */
	for (i = 0; i < 32; i++)
		drv_sched_note_latency(&s, 20000 + i * 1000);
	assert_int_equal(s.early_ns, 20000 + 24 * 1000);
	for (i = 0; i < 32; i++)
		drv_sched_note_latency(&s, 10000000);
	assert_int_equal(s.early_ns, DRV_SCHED_EARLY_MAX);
	drv_sched_fini(&s);
}

#define X_N 200
#define X_GAP_NS 37000ULL /* not a multiple of anything the loop does */

struct x_ent {
	struct drv_sched_ent e;
	struct x_run *run;
};

struct x_run {
	struct drv_sched sched;
	struct x_ent ents[X_N];
	int64_t late[X_N];
	uint32_t fired;
};

static void x__on_due(struct drv_sched_ent *e)
{
	struct x_ent *x = container_of(e, struct x_ent, e);
	struct x_run *r = x->run;

	r->late[x - r->ents] = (int64_t)(uv_hrtime() - e->at);
	if (++r->fired == X_N)
		drv_sched_close(&r->sched);
}

static int x__cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* 200 sends 37 us apart, queued at once: each fires once, in order, never early. */
static void test_run_never_early(void **state)
{
	struct x_run *r = calloc(1, sizeof(*r));
	uv_loop_t loop;
	uint64_t t0;
	uint32_t i;

	assert_non_null(r);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(drv_sched_init(&r->sched, &loop, X_N), 0);
	t0 = uv_hrtime() + 2000000;
	for (i = 0; i < X_N; i++) {
		r->ents[i].run = r;
		r->late[i] = -1;
		drv_sched_add(&r->sched, &r->ents[i].e, t0 + i * X_GAP_NS, x__on_due);
	}
	assert_int_equal(drv_sched_run(&r->sched, &loop), 0);
	assert_int_equal(r->fired, X_N);
	for (i = 0; i < X_N; i++)
		assert_true(r->late[i] >= 0); /* never before its time */
	qsort(r->late, X_N, sizeof(r->late[0]), x__cmp);
	print_message("late p0 %lld p50 %lld p99 %lld wakes %llu polls %llu\n", (long long)r->late[0], (long long)r->late[X_N / 2], (long long)r->late[X_N * 99 / 100], (unsigned long long)r->sched.wakes, (unsigned long long)r->sched.polls);
	/* the median lateness: generous, the machine is shared (it was tens of us with a timer
	 * per send) */
	assert_true(r->late[X_N / 2] < 5000000);
	assert_int_equal(uv_loop_close(&loop), 0);
	drv_sched_fini(&r->sched);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_early_offset),
		cmocka_unit_test(test_run_never_early),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
