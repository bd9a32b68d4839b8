// SPDX-License-Identifier: MIT
/*
 * The floor of a sleeping pacer on this machine: a thread that sleeps until each of N evenly
 * spaced times, as a minimal C loop with nothing else to do. It shows what any timer design
 * can reach here, before a load generator adds anything (bench/pacer_bench.sh prints it).
 *
 *   timer_floor PERIOD_US EARLY_US SECONDS [MODE]
 *
 * MODE timerfd (default): timerfd armed at an absolute CLOCK_MONOTONIC time, EARLY_US before the
 * due time, waited for in epoll_wait (as the driver's waker does); periodic: the same timerfd
 * armed once with an interval of PERIOD_US (no timerfd_settime per wake-up); nanosleep:
 * clock_nanosleep TIMER_ABSTIME. Either way the thread then spins on the clock to the due time, so nothing is
 * early; the lag is how late it got there. Timer slack is 1 ns.
 *
 * Prints lag p50/p90/p99/p99.9, thread CPU per wake-up, and what the scheduler did to the thread
 * (voluntary and involuntary switches, time runnable without a CPU from schedstat): few
 * involuntary switches and a tail of tens of us is the timer wake-up itself. On x86 it also
 * times `cpuid`, which always exits to the hypervisor in a VM: what one VM exit costs here (a
 * wake-up from idle takes several: the halt, the timer interrupt, reprogramming the timer).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "floor.h"

static uint64_t runq_ns(void)
{
	unsigned long long run = 0, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &wait) != 2)
			wait = 0;
		fclose(f);
	}
	return wait;
}

/* ns per cpuid instruction (a VM exit under a hypervisor), 0 where there is none */
static double exit_ns(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d, i;
	uint64_t t0 = floor_ns(CLOCK_MONOTONIC);

	for (i = 0; i < 10000; i++)
		__cpuid(0, a, b, c, d);
	(void)a, (void)b, (void)c, (void)d;
	return (double)(floor_ns(CLOCK_MONOTONIC) - t0) / 10000;
#else
	return 0;
#endif
}

int main(int argc, char **argv)
{
	uint64_t period, early, n, i, at, w, now, x, t0, c0, c1, q0, q1, *lag;
	struct epoll_event ev = {.events = EPOLLIN}, e;
	struct itimerspec its;
	struct rusage r0, r1;
	bool sleep_mode, periodic;
	int tfd, ep;

	if (argc < 4) {
		fprintf(stderr, "usage: timer_floor PERIOD_US EARLY_US SECONDS "
				"[timerfd|periodic|nanosleep]\n");
		return 64;
	}
	period = strtoull(argv[1], NULL, 10) * 1000ULL;
	early = strtoull(argv[2], NULL, 10) * 1000ULL;
	n = (uint64_t)(strtod(argv[3], NULL) * 1e9 / (double)(period ? period : 1));
	sleep_mode = argc > 4 && !strcmp(argv[4], "nanosleep");
	periodic = argc > 4 && !strcmp(argv[4], "periodic");
	if (!period || !n || early >= period) {
		fprintf(stderr, "timer_floor: bad period, early offset or duration\n");
		return 64;
	}
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	ep = epoll_create1(0);
	lag = calloc(n, sizeof(*lag));
	if (tfd < 0 || ep < 0 || !lag || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev)) {
		perror("timer_floor");
		return 1;
	}
	t0 = floor_ns(CLOCK_MONOTONIC) + 1000000ULL;
	c0 = floor_ns(CLOCK_THREAD_CPUTIME_ID);
	q0 = runq_ns();
	getrusage(RUSAGE_THREAD, &r0);
	if (periodic) {
		memset(&its, 0, sizeof(its));
		its.it_value.tv_sec = (time_t)((t0 - early) / 1000000000ULL);
		its.it_value.tv_nsec = (long)((t0 - early) % 1000000000ULL);
		its.it_interval.tv_nsec = (long)period;
		timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
	}
	for (i = 0; i < n; i++) {
		at = t0 + i * period;
		w = at - early;
		if (floor_ns(CLOCK_MONOTONIC) < w) {
			memset(&its, 0, sizeof(its));
			its.it_value.tv_sec = (time_t)(w / 1000000000ULL);
			its.it_value.tv_nsec = (long)(w % 1000000000ULL);
			if (periodic) {
				while (read(tfd, &x, sizeof(x)) != sizeof(x))
					while (epoll_wait(ep, &e, 1, -1) < 1)
						;
			} else if (sleep_mode) {
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &its.it_value, NULL);
			} else {
				timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
				while (epoll_wait(ep, &e, 1, -1) < 1)
					;
				(void)!read(tfd, &x, sizeof(x));
			}
		}
		while ((now = floor_ns(CLOCK_MONOTONIC)) < at)
			;
		lag[i] = now - at;
	}
	c1 = floor_ns(CLOCK_THREAD_CPUTIME_ID);
	q1 = runq_ns();
	getrusage(RUSAGE_THREAD, &r1);
	qsort(lag, n, sizeof(*lag), floor_cmp);
	printf("%s period %lluus early %lluus: lag p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f us; "
	       "CPU %.1f us per wake-up; %ld voluntary, %ld involuntary switches; "
	       "runnable without a CPU %.1f ms; %llu wake-ups; cpuid %.2f us\n",
	       sleep_mode ? "nanosleep" : periodic ? "periodic" : "timerfd", (unsigned long long)(period / 1000),
	       (unsigned long long)(early / 1000), lag[n / 2] / 1e3, lag[n * 9 / 10] / 1e3,
	       lag[n * 99 / 100] / 1e3, lag[n * 999 / 1000] / 1e3, (double)(c1 - c0) / 1e3 / n,
	       r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw, (double)(q1 - q0) / 1e6,
	       (unsigned long long)n, exit_ns() / 1e3);
	free(lag);
	return 0;
}
