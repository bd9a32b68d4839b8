// SPDX-License-Identifier: MIT
/*
 * Times the observer's socket census (observer/sources/census.c) on the sockets there are now:
 * N censuses in a row with each mechanism (the TCP iterator that counts in the kernel, and
 * sock_diag's one message per socket), each one's wall time and the CPU it took in user space
 * and in the kernel, from getrusage. bench/scale.py runs it inside the benchmark's namespace
 * while the connections are held.
 *
 * --compare takes both censuses of the same sockets (after a first one and OBS_SOCK_AGE_OLD_S,
 * so that ageing has an answer) and prints every field that differs; exit 1 if any does, 77 if
 * the iterator does not load here. tests/integration/test_census_iter.sh holds the sockets still.
 *
 * usage: census_time [--mech iter|sock_diag|both] PORT... [-n N]
 *        census_time --compare PORT...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "loadlens/cli.h"
#include "sources/census.h"

#define PROG "census_time"

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

static int timed(struct obs_census_ctx *c, int n)
{
	static struct obs_census cs;
	double t0, u0, s0, u1, s1;
	int i;

	for (i = 0; i < n; i++) {
		cpu(&u0, &s0);
		t0 = now();
		if (obs_census_take(c, &cs)) {
			fprintf(stderr, PROG ": census failed\n");
			return 1;
		}
		cpu(&u1, &s1);
		printf("{\"mech\": \"%s\", \"sockets\": %llu, \"established\": %llu, "
		       "\"time_wait\": %llu, \"wall_ms\": %.1f, \"user_ms\": %.1f, \"sys_ms\": %.1f, "
		       "\"groups\": %zu}\n",
		       obs_census_mechanism(c), (unsigned long long)cs.sockets,
		       (unsigned long long)cs.state[1], (unsigned long long)cs.state[6],
		       (now() - t0) * 1e3, (u1 - u0) * 1e3, (s1 - s0) * 1e3, cs.ngroups);
		fflush(stdout);
	}
	return 0;
}

#define DIFF(field)                                                                              \
	do {                                                                                     \
		if (a->field != b->field) {                                                      \
			printf("differs: %s sock_diag %llu iter %llu\n", #field,                 \
			       (unsigned long long)a->field, (unsigned long long)b->field);      \
			bad++;                                                                   \
		}                                                                                \
	} while (0)

/* Every field of two censuses of the same sockets, took_ms aside. */
static int differ(const struct obs_census *a, const struct obs_census *b)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < OBS_TCP_STATES; i++)
		DIFF(state[i]);
	DIFF(sockets);
	DIFF(port_lo);
	DIFF(port_hi);
	DIFF(ntop);
	DIFF(ngroups);
	DIFF(groups_capped);
	for (i = 0; i < a->ntop && i < b->ntop; i++) {
		DIFF(top[i].in_use);
		DIFF(top[i].time_wait);
		DIFF(top[i].fin_wait2);
		DIFF(top[i].dport);
		DIFF(top[i].family);
		if (memcmp(a->top[i].saddr, b->top[i].saddr, 16) ||
		    memcmp(a->top[i].daddr, b->top[i].daddr, 16)) {
			printf("differs: top[%zu] addresses\n", i);
			bad++;
		}
	}
	DIFF(nports);
	for (i = 0; i < a->nports; i++) {
		DIFF(ports[i].port);
		DIFF(ports[i].server_side);
		DIFF(ports[i].close_wait);
		DIFF(ports[i].fin_wait2);
		DIFF(ports[i].time_wait);
		DIFF(ports[i].close_wait_old);
		DIFF(ports[i].fin_wait2_old);
	}
	DIFF(close_wait_old);
	DIFF(fin_wait2_old);
	DIFF(fin_wait2_peer_queued);
	DIFF(aging_young);
	DIFF(close_wait_untracked);
	DIFF(unaccepted_untracked);
	DIFF(listeners_untracked);
	DIFF(nno_listener);
	DIFF(nlisten);
	DIFF(listen_queued);
	DIFF(listen_qlen_max);
	return bad;
}

static void show(const char *what, const struct obs_census *cs)
{
	char g[128];
	size_t i;

	printf("%s: %llu sockets", what, (unsigned long long)cs->sockets);
	for (i = 0; i < OBS_TCP_STATES; i++)
		if (cs->state[i])
			printf(" %s %llu", obs_census_tcp_state_names[i],
			       (unsigned long long)cs->state[i]);
	printf("; %zu groups", cs->ngroups);
	for (i = 0; i < cs->ntop; i++)
		printf("; %s in_use %u tw %u fw2 %u",
		       obs_census_port_group_text(&cs->top[i], g, sizeof(g)), cs->top[i].in_use,
		       cs->top[i].time_wait, cs->top[i].fin_wait2);
	for (i = 0; i < cs->nports; i++)
		printf("; port %u cw %u (old %u) fw2 %u (old %u) tw %u", cs->ports[i].port,
		       cs->ports[i].close_wait, cs->ports[i].close_wait_old, cs->ports[i].fin_wait2,
		       cs->ports[i].fin_wait2_old, cs->ports[i].time_wait);
	printf("; unaccepted-peer fw2 %llu, young %llu\n",
	       (unsigned long long)cs->fin_wait2_peer_queued, (unsigned long long)cs->aging_young);
}

static int compare(struct obs_census_ctx *c)
{
	static struct obs_census first, a, b;
	int bad;

	if (obs_census_use_iter(c, true)) {
		printf("skip: the census' TCP iterator does not load here\n");
		return 77;
	}
	/* a first census starts the ageing clock: both below see the same ages */
	if (obs_census_take(c, &first))
		return 1;
	usleep((useconds_t)(OBS_SOCK_AGE_OLD_S * 1e6) + 200000);
	obs_census_use_iter(c, false);
	if (obs_census_take(c, &a))
		return 1;
	obs_census_use_iter(c, true);
	if (obs_census_take(c, &b))
		return 1;
	show("sock_diag", &a);
	show("bpf_iter ", &b);
	bad = differ(&a, &b);
	printf("%s: %d fields differ, sock_diag %.1f ms, bpf_iter %.1f ms\n",
	       bad ? "FAIL" : "ok", bad, a.took_ms, b.took_ms);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint16_t ports[OBS_MAX_PORTS];
	const char *mech = "both";
	struct obs_census_ctx *c;
	bool cmp = false;
	size_t nports = 0;
	int i, n = 3, rc = 0;
	long v;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--compare")) {
			cmp = true;
		} else if (!strcmp(argv[i], "--mech") && i + 1 < argc) {
			mech = argv[++i];
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			n = atoi(argv[++i]);
		} else {
			errno = 0;
			v = strtol(argv[i], NULL, 10);
			if (errno || v < 1 || v > 65535 || nports == OBS_MAX_PORTS)
				break;
			ports[nports++] = (uint16_t)v;
		}
	}
	if (i < argc || !nports || n < 1 ||
	    (strcmp(mech, "both") && strcmp(mech, "iter") && strcmp(mech, "sock_diag"))) {
		fprintf(stderr, "usage: " PROG " [--mech iter|sock_diag|both] PORT... [-n N]\n"
				"       " PROG " --compare PORT...\n");
		return 64;
	}
	c = obs_census_new(PROG, -1, ports, nports);
	if (!c)
		return 1;
	if (cmp) {
		rc = compare(c);
	} else {
		if (strcmp(mech, "sock_diag") && !obs_census_use_iter(c, true))
			rc = timed(c, n);
		else if (!strcmp(mech, "iter"))
			fprintf(stderr, PROG ": the TCP iterator does not load here\n"), rc = 1;
		if (!rc && strcmp(mech, "iter") && !obs_census_use_iter(c, false))
			rc = timed(c, n);
	}
	obs_census_free(c);
	return rc;
}
