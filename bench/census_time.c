// SPDX-License-Identifier: MIT
/*
 * Times the observer's socket census (observer/features/census.c) on the sockets there are now:
 * N censuses in a row, each one's wall time and the CPU it took in user space and in the kernel
 * (sock_diag's walk and fill), from getrusage. bench/scale.py runs it inside the benchmark's
 * namespace while the connections are held.
 *
 * usage: census_time PORT [N]    (build: see bench/scale.py)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include "census.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void cpu(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	static struct obs_census cs;
	struct obs_census_ctx *c;
	double t0, u0, s0, u1, s1;
	uint16_t port;
	int i, n;

	if (argc < 2) {
		fprintf(stderr, "usage: census_time PORT [N]\n");
		return 64;
	}
	port = (uint16_t)atoi(argv[1]);
	n = argc > 2 ? atoi(argv[2]) : 3;
	c = obs_census_new("census_time", -1, &port, 1);
	if (!c)
		return 1;
	for (i = 0; i < n; i++) {
		cpu(&u0, &s0);
		t0 = now();
		if (obs_census_take(c, &cs)) {
			fprintf(stderr, "census failed\n");
			return 1;
		}
		cpu(&u1, &s1);
		printf("{\"sockets\": %llu, \"established\": %llu, \"time_wait\": %llu, "
		       "\"wall_ms\": %.1f, \"user_ms\": %.1f, \"sys_ms\": %.1f, \"groups\": %zu}\n",
		       (unsigned long long)cs.sockets, (unsigned long long)cs.state[1],
		       (unsigned long long)cs.state[6], (now() - t0) * 1e3, (u1 - u0) * 1e3,
		       (s1 - s0) * 1e3, cs.ngroups);
	}
	obs_census_free(c);
	return 0;
}
