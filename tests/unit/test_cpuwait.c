// SPDX-License-Identifier: MIT
/*
 * The time no thread could run on the targets' CPUs (observer/sources/cpuwait.c): /proc/stat's
 * per-CPU lines give steal, and interrupts + softirqs, each counted only where the kernel's build
 * keeps it out of the threads' run time; the total line and the others are not CPUs. Then the
 * same read on this host: it grows, never shrinks. No root, no kernel feature.
 */
#include <sched.h>
#include <stdint.h>
#include "ll_test.h"
#include "sources/cpuwait.h"

static void test_stat_line(void **state)
{
	unsigned int cpu = 99;
	uint64_t lost = 0;
	const char *l0 = "cpu0 1124061 12602 423344 1999571 4088 7 62958 191536 0 0\n";
	const unsigned int both = OBS_CPUWAIT_STEAL | OBS_CPUWAIT_IRQ;

	(void)state;
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	assert_true(obs_cpuwait_stat_line(l0, both, &cpu, &lost));
	assert_int_equal(cpu, 0);
	assert_int_equal(lost, 7 + 62958 + 191536);
	assert_true(obs_cpuwait_stat_line(l0, OBS_CPUWAIT_STEAL, &cpu, &lost));
	assert_int_equal(lost, 191536);
	assert_true(obs_cpuwait_stat_line(l0, OBS_CPUWAIT_IRQ, &cpu, &lost));
	assert_int_equal(lost, 7 + 62958);
	assert_true(obs_cpuwait_stat_line(l0, 0, &cpu, &lost));
	assert_int_equal(lost, 0);
	assert_true(obs_cpuwait_stat_line("cpu13 1 2 3 4 5 6 7 8", both, &cpu, &lost));
	assert_int_equal(cpu, 13);
	assert_int_equal(lost, 6 + 7 + 8);
	/* the total over all CPUs, other lines, a line cut short */
	assert_false(obs_cpuwait_stat_line("cpu  2217084 24412 893319 3955540 17255 0 129179", both,
					   &cpu, &lost));
	assert_false(obs_cpuwait_stat_line("intr 123456 0 9 0", both, &cpu, &lost));
	assert_false(obs_cpuwait_stat_line("ctxt 99", both, &cpu, &lost));
	assert_false(obs_cpuwait_stat_line("cpu1 1 2 3 4 5", both, &cpu, &lost));
}

/* A kernel's config lines: only the two options set to y count. */
static void test_kconfig_line(void **state)
{
	(void)state;
	assert_int_equal(obs_cpuwait_kconfig_line("CONFIG_PARAVIRT_TIME_ACCOUNTING=y\n"),
			 OBS_CPUWAIT_STEAL);
	assert_int_equal(obs_cpuwait_kconfig_line("CONFIG_IRQ_TIME_ACCOUNTING=y\n"),
			 OBS_CPUWAIT_IRQ);
	assert_int_equal(obs_cpuwait_kconfig_line("# CONFIG_IRQ_TIME_ACCOUNTING is not set\n"), 0);
	assert_int_equal(obs_cpuwait_kconfig_line("CONFIG_HAVE_IRQ_TIME_ACCOUNTING=y\n"), 0);
	assert_int_equal(obs_cpuwait_kconfig_line("CONFIG_TICK_CPU_ACCOUNTING=y\n"), 0);
}

static void test_lost_here(void **state)
{
	cpu_set_t set, none;
	uint64_t a, b;

	(void)state;
	CPU_ZERO(&none);
	CPU_ZERO(&set);
	assert_true(obs_cpuwait_mask(0, &set));
	assert_true(CPU_COUNT(&set) > 0);
	assert_true(obs_cpuwait_lost_ns(&set, OBS_CPUWAIT_STEAL | OBS_CPUWAIT_IRQ, &a));
	assert_true(obs_cpuwait_lost_ns(&set, OBS_CPUWAIT_STEAL | OBS_CPUWAIT_IRQ, &b));
	assert_true(b >= a);
	/* no CPU asked for, or nothing kept out of run time: read, nothing summed */
	assert_true(obs_cpuwait_lost_ns(&none, OBS_CPUWAIT_STEAL | OBS_CPUWAIT_IRQ, &a));
	assert_int_equal(a, 0);
	assert_true(obs_cpuwait_lost_ns(&set, 0, &a));
	assert_int_equal(a, 0);
}

LL_TEST_MAIN(test_stat_line, test_kconfig_line, test_lost_here)
