// SPDX-License-Identifier: MIT
/*
 * The time no thread could run on the targets' CPUs (observer/sources/cpuwait.c): /proc/stat's
 * per-CPU lines give steal, and interrupts + softirqs, each counted only where the kernel's build
 * keeps it out of the threads' run time, and idle + iowait as the time no thread ran; the total
 * line and the others are not CPUs. Then the same read on this host: it grows, never shrinks.
 * No root, no kernel feature.
 */
#include <sched.h>
#include <stdint.h>
#include "ll_test.h"
#include "sources/cpuwait.h"

static void test_stat_line(void **state)
{
	unsigned int cpu = 99;
	uint64_t lost = 0, idle = 0;
	const char *l0 = "cpu0 1124061 12602 423344 1999571 4088 7 62958 191536 0 0\n";
	const unsigned int both = OBS_CPUWAIT_STEAL | OBS_CPUWAIT_IRQ;

	(void)state;
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	assert_true(obs_cpuwait_stat_line(l0, both, &cpu, &lost, &idle));
	assert_int_equal(cpu, 0);
	assert_int_equal(lost, 7 + 62958 + 191536);
	assert_int_equal(idle, 1999571 + 4088);
	assert_true(obs_cpuwait_stat_line(l0, OBS_CPUWAIT_STEAL, &cpu, &lost, &idle));
	assert_int_equal(lost, 191536);
	assert_true(obs_cpuwait_stat_line(l0, OBS_CPUWAIT_IRQ, &cpu, &lost, &idle));
	assert_int_equal(lost, 7 + 62958);
	assert_true(obs_cpuwait_stat_line(l0, 0, &cpu, &lost, &idle));
	assert_int_equal(lost, 0);
	assert_true(obs_cpuwait_stat_line("cpu13 1 2 3 4 5 6 7 8", both, &cpu, &lost, &idle));
	assert_int_equal(cpu, 13);
	assert_int_equal(lost, 6 + 7 + 8);
	assert_int_equal(idle, 4 + 5);
	/* the total over all CPUs, other lines, a line cut short */
	assert_false(obs_cpuwait_stat_line("cpu  2217084 24412 893319 3955540 17255 0 129179", both,
					   &cpu, &lost, &idle));
	assert_false(obs_cpuwait_stat_line("intr 123456 0 9 0", both, &cpu, &lost, &idle));
	assert_false(obs_cpuwait_stat_line("ctxt 99", both, &cpu, &lost, &idle));
	assert_false(obs_cpuwait_stat_line("cpu1 1 2 3 4 5", both, &cpu, &lost, &idle));
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
	uint64_t a, b, ia, ib;

	(void)state;
	CPU_ZERO(&none);
	CPU_ZERO(&set);
	assert_true(obs_cpuwait_mask(0, &set));
	assert_true(CPU_COUNT(&set) > 0);
	assert_true(obs_cpuwait_stat_ns(&set, OBS_CPUWAIT_STEAL | OBS_CPUWAIT_IRQ, &a, &ia));
	assert_true(obs_cpuwait_stat_ns(&set, OBS_CPUWAIT_STEAL | OBS_CPUWAIT_IRQ, &b, &ib));
	assert_true(b >= a);
	assert_true(ib >= ia);
	/* no CPU asked for: read, nothing summed; nothing kept out of run time: no loss, the
	 * idle time still (a host up for a while has some) */
	assert_true(obs_cpuwait_stat_ns(&none, OBS_CPUWAIT_STEAL | OBS_CPUWAIT_IRQ, &a, &ia));
	assert_int_equal(a, 0);
	assert_int_equal(ia, 0);
	assert_true(obs_cpuwait_stat_ns(&set, 0, &a, &ia));
	assert_int_equal(a, 0);
	assert_true(ia > 0);
}

LL_TEST_MAIN(test_stat_line, test_kconfig_line, test_lost_here)
