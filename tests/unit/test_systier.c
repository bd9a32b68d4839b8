// SPDX-License-Identifier: MIT
/*
 * The syscall tier's decisions in AUTO mode (observer/kernel/systier.c, obs_systier_plan()): a
 * sample one interval in OBS_SYSTIER_SAMPLE_EVERY (brief: its first OBS_SYSTIER_SAMPLE_MS), held
 * on under pressure and OBS_SYSTIER_LINGER intervals after; and the lead, which turns on
 * connection tracking's handshake stamps an interval before a sample and keeps them an interval
 * after the tier detached, and while an accept queue builds, and is off the rest of the time. No
 * root, no kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "kernel/systier.h"

/* One tick, applied as obs_systier_tick() applies it. */
static struct obs_systier_step tick_soon(struct obs_systier_state *st, bool pressure, bool soon)
{
	struct obs_systier_step s;

	st->ticks++;
	s = obs_systier_plan(st, pressure, soon);
	st->linger = s.linger;
	if (!s.brief)
		st->attached = s.want;
	return s;
}

static struct obs_systier_step tick(struct obs_systier_state *st, bool pressure)
{
	return tick_soon(st, pressure, false);
}

static void test_brief_samples_lead(void **state)
{
	struct obs_systier_state st = {.brief = true};
	unsigned int i, on = 0, briefs = 0;
	struct obs_systier_step s;
	bool sample;

	(void)state;
	for (i = 1; i <= 3 * OBS_SYSTIER_SAMPLE_EVERY; i++) {
		s = tick(&st, false);
		sample = i % OBS_SYSTIER_SAMPLE_EVERY == OBS_SYSTIER_SAMPLE_EVERY / 2;

		assert_int_equal(s.brief, sample);
		assert_false(st.attached); /* a brief sample is the child's to end */
		/* the stamps: from the interval before the sample through the sample's own */
		assert_int_equal(s.lead,
				 sample || (i + 1) % OBS_SYSTIER_SAMPLE_EVERY ==
						   OBS_SYSTIER_SAMPLE_EVERY / 2);
		on += s.lead;
		briefs += s.brief;
	}
	assert_int_equal(briefs, 3);
	assert_int_equal(on, 6); /* 2 intervals in 10 */
}

static void test_whole_samples_lead(void **state)
{
	struct obs_systier_state st = {0};
	unsigned int half = OBS_SYSTIER_SAMPLE_EVERY / 2, i;
	struct obs_systier_step s;

	(void)state;
	for (i = 1; i < half - 1; i++)
		assert_false(tick(&st, false).lead);
	s = tick(&st, false); /* the interval before the sample */
	assert_true(s.lead);
	assert_false(s.want);
	s = tick(&st, false); /* the sample: attached for the whole interval */
	assert_true(s.want && s.lead && st.attached);
	s = tick(&st, false); /* detached, the stamps kept an interval more */
	assert_true(!s.want && s.lead && !st.attached);
	s = tick(&st, false);
	assert_false(s.lead);
}

static void test_pressure_lingers(void **state)
{
	struct obs_systier_state st = {.brief = true};
	struct obs_systier_step s;
	unsigned int i;

	(void)state;
	tick(&st, false);
	s = tick(&st, true); /* pressure: at once, for good, whatever the tick */
	assert_true(s.want && !s.brief && s.lead && st.attached);
	assert_int_equal(st.linger, OBS_SYSTIER_LINGER);
	for (i = 0; i < OBS_SYSTIER_LINGER; i++) {
		s = tick(&st, false);
		/* the sample's tick falls in the linger: no brief sample inside an attach */
		assert_true(s.want && !s.brief && s.lead && st.attached);
	}
	s = tick(&st, false); /* the linger is over: detach, keep the stamps an interval */
	assert_true(!s.want && s.lead && !st.attached);
	s = tick(&st, false);
	assert_false(s.want || s.lead);
}

/* An accept queue building (features/pressure.c): the stamps, not the tier, until it is pressure. */
static void test_pressure_soon(void **state)
{
	struct obs_systier_state st = {.brief = true};
	struct obs_systier_step s;

	(void)state;
	tick(&st, false);
	s = tick_soon(&st, false, true);
	assert_true(s.lead && !s.want && !s.brief && !st.attached);
	s = tick_soon(&st, true, true); /* it became pressure: attached, the stamps on before */
	assert_true(s.lead && s.want && st.attached);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_brief_samples_lead),
		cmocka_unit_test(test_whole_samples_lead),
		cmocka_unit_test(test_pressure_lingers),
		cmocka_unit_test(test_pressure_soon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
