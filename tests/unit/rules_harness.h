/* SPDX-License-Identifier: MIT */
/*
 * What the findings-rule tests share (tests/unit/test_rules_*.c): a run's snapshot history and
 * findings, a fresh snapshot with a Debian host's defaults, and assertions on the findings.
 */
#ifndef LOADLENS_TEST_RULES_HARNESS_H
#define LOADLENS_TEST_RULES_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "rules/findings_log.h"
#include "rules/findings_out.h"
#include "rules/rules.h"

/*
 * RULES_TEST(name) { ... }: a cmocka test whose body has the run `r` (a fresh one per test:
 * LL_TEST_MAIN_EACH(rh_setup, rh_teardown, ...)).
 */
#define RULES_TEST(name)                                                        \
	static void name##_on(struct run *r);                                   \
	static void name(void **state)                                          \
	{                                                                       \
		name##_on(*state);                                              \
	}                                                                       \
	static void name##_on(struct run *r)

/* each test file uses some of these */
#define RH_UNUSED __attribute__((unused))

struct run {
	struct obs_snap_hist h;
	struct obs_findings fs;
};

RH_UNUSED static int rh_setup(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	*state = r;
	return r ? 0 : -1;
}

RH_UNUSED static int rh_teardown(void **state)
{
	struct run *r = *state;

	obs_findings_clear(&r->fs);
	free(r);
	return 0;
}

/* A fresh interval at t (1 s long) with the defaults of a Debian host. */
RH_UNUSED static struct obs_snap *rh_snap(struct run *r, double t)
{
	struct obs_snap *s = obs_snap_next(&r->h);

	s->t = t;
	s->dt = 1.0;
	s->tw_reuse = 2;
	s->fin_timeout_s = 60;
	s->max_tw_buckets = 65536;
	s->max_procs = 64;
	s->range = 28232;
	s->file_max = 9223372036854775807ULL;
	s->file_nr = 2000;
	snprintf(s->netns_name, sizeof(s->netns_name), "net:[4026531840]");
	return s;
}

/* A fresh interval at t with a socket census. */
RH_UNUSED static struct obs_snap *rh_census(struct run *r, double t)
{
	struct obs_snap *s = rh_snap(r, t);

	s->census = true;
	return s;
}

/* A request-timing slot on port 8000 with 500 requests, the given socket-queue wait and service
 * p50 (the other fields zero), added to s. */
RH_UNUSED static void rh_req_slot(struct obs_snap *s, double queue_ns, double service_ns)
{
	struct obs_snap_slot *sl = &s->slot[s->nslots++];

	sl->port = 8000;
	sl->requests = 500;
	sl->queue_p50_ns = queue_ns;
	sl->service_p50_ns = service_ns;
	s->requests_on = true;
}

/* memcached's UDP socket on port 11211 read by 8 threads (5,400 switches between them), unpaired
 * datagrams read while all of them were serving: a request-timing slot added to s. */
RH_UNUSED static struct obs_snap_slot *rh_udp_shared(struct obs_snap *s, uint64_t unpaired)
{
	struct obs_snap_slot *sl;

	rh_req_slot(s, 10e3, 2e3);
	sl = &s->slot[s->nslots - 1];
	sl->port = 11211;
	sl->udp = true;
	sl->udp_multi_reader_sockets = 1;
	sl->udp_reader_switches = 5400;
	sl->udp_readers = 8;
	sl->udp_unpaired = unpaired;
	return sl;
}

/* --runq's figures in s: n wake-ups of the serving threads timed, waiting p50 and p99 ns. */
RH_UNUSED static void rh_runq(struct obs_snap *s, uint64_t n, double p50, double p99)
{
	s->runq_on = true;
	s->runq_count = n;
	s->runq_p50_ns = p50;
	s->runq_p99_ns = p99;
}

/* Run every rule on the history; returns the findings of warning or worse. */
RH_UNUSED static size_t rh_run(struct run *r)
{
	size_t i, n = 0;

	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	for (i = 0; i < r->fs.n; i++)
		n += r->fs.f[i].severity >= OBS_SEV_WARNING;
	return n;
}

RH_UNUSED static void rh_print(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->fs.n; i++)
		print_message("  %s/%s %s: %s\n", r->fs.f[i].kind,
			      obs_severity_name(r->fs.f[i].severity), r->fs.f[i].key,
			      r->fs.f[i].text);
}

RH_UNUSED static void rh_silent(struct run *r)
{
	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	if (r->fs.n) {
		rh_print(r);
		fail_msg("a healthy run has %zu findings", r->fs.n);
	}
}

RH_UNUSED static const struct obs_finding *rh_expect(struct run *r, const char *kind,
						     const char *key)
{
	const struct obs_finding *f;

	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	f = obs_findings_find(&r->fs, kind, key);
	if (!f) {
		rh_print(r);
		fail_msg("no %s finding (%s)", kind, key ? key : "any key");
	}
	return f;
}

RH_UNUSED static json_int_t rh_ev_int(const struct obs_finding *f, const char *name)
{
	json_t *v = json_object_get(f->evidence, name);

	if (!v)
		fail_msg("%s: no evidence '%s'", f->kind, name);
	return json_is_integer(v) ? json_integer_value(v) : (json_int_t)json_number_value(v);
}

RH_UNUSED static void rh_group(struct obs_snap *s, uint32_t in_use, uint32_t tw, uint32_t fw2,
			       bool lo)
{
	struct obs_snap_group *g = &s->group[s->ngroups++];

	snprintf(g->src, sizeof(g->src), lo ? "127.0.0.1" : "10.0.0.2");
	snprintf(g->dst, sizeof(g->dst), lo ? "127.0.0.1" : "10.0.0.1");
	g->dport = 8080;
	g->loopback = lo;
	g->in_use = in_use;
	g->time_wait = tw;
	g->fin_wait2 = fw2;
	s->groups_total = s->ngroups;
}

RH_UNUSED static struct obs_snap_proc *rh_proc(struct obs_snap *s, uint32_t pid, int64_t open,
					       int64_t soft)
{
	struct obs_snap_proc *p = &s->proc[s->nprocs++];

	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "python3");
	p->watched = true;
	p->open = open;
	p->soft = soft;
	p->hard = 4 * soft;
	return p;
}

/* A census in s with tcp_tw_reuse REUSE and one loopback port group: IN_USE ports, TW of them in
 * TIME_WAIT. */
RH_UNUSED static void rh_ports_in(struct obs_snap *s, int reuse, uint32_t in_use, uint32_t tw)
{
	s->census = true;
	s->tw_reuse = reuse;
	rh_group(s, in_use, tw, 0, true);
}

/* The same in a fresh interval at t. */
RH_UNUSED static struct obs_snap *rh_ports(struct run *r, double t, int reuse, uint32_t in_use,
					   uint32_t tw)
{
	struct obs_snap *s = rh_snap(r, t);

	rh_ports_in(s, reuse, in_use, tw);
	return s;
}

/* Push the interval just filled; the rules must stay silent on the history so far. */
RH_UNUSED static void rh_healthy(struct run *r)
{
	obs_snap_push(&r->h);
	rh_silent(r);
}

/* Push the interval just filled; the rules must find KIND (under KEY, or any key if NULL). */
RH_UNUSED static const struct obs_finding *rh_sick(struct run *r, const char *kind,
						   const char *key)
{
	obs_snap_push(&r->h);
	return rh_expect(r, kind, key);
}

/* Push the interval just filled and run every rule on the history: the findings in r->fs. */
RH_UNUSED static void rh_pushed(struct run *r)
{
	obs_snap_push(&r->h);
	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
}

/* What one interval of a scenario holds: set on s, the fresh interval at time t (rh_snap's). */
typedef void rh_fill_fn(struct obs_snap *s, int t);

/* Intervals FROM..TO, 1 s apart at t = FROM..TO, each filled by FILL and pushed. */
RH_UNUSED static void rh_intervals(struct run *r, int from, int to, rh_fill_fn *fill)
{
	int t;

	for (t = from; t <= to; t++) {
		fill(rh_snap(r, t), t);
		obs_snap_push(&r->h);
	}
}

/* The same, the rules silent on the history after each interval. */
RH_UNUSED static void rh_healthy_intervals(struct run *r, int from, int to, rh_fill_fn *fill)
{
	int t;

	for (t = from; t <= to; t++) {
		rh_intervals(r, t, t, fill);
		rh_silent(r);
	}
}

/* A new run: an empty snapshot history. */
RH_UNUSED static void rh_restart(struct run *r)
{
	memset(&r->h, 0, sizeof(r->h));
}

/* A rule's two cases: HEALTHY's intervals 1..N_HEALTHY, the rules silent after each; then a new
 * run of SICK's 1..N_SICK, on which they find KIND (under KEY, or any key if NULL): its finding. */
RH_UNUSED static const struct obs_finding *rh_healthy_then_sick(struct run *r, rh_fill_fn *healthy,
								int n_healthy, rh_fill_fn *sick,
								int n_sick, const char *kind,
								const char *key)
{
	rh_healthy_intervals(r, 1, n_healthy, healthy);
	rh_restart(r);
	rh_intervals(r, 1, n_sick, sick);
	return rh_expect(r, kind, key);
}

/* One more listening or connecting port in the census. */
RH_UNUSED static void rh_port(struct obs_snap *s, struct obs_snap_port p)
{
	s->port[s->nports++] = p;
}

/* connect() failed n times with EADDRNOTAVAIL in this interval. */
/* A holder of the connections of rh_group's loopback group (127.0.0.1 -> 127.0.0.1:8080), as a
 * holders pass at time t counted them; the group's in_use is the census' count then. */
RH_UNUSED static struct obs_snap_holder *rh_holder(struct obs_snap *s, double t, uint32_t in_use,
						   uint32_t pid, const char *comm,
						   uint64_t conns)
{
	struct obs_snap_holders *hs = &s->holders;
	struct obs_snap_holder *q = &hs->holder[hs->n++];

	hs->on = true;
	hs->t = t;
	snprintf(hs->of.src, sizeof(hs->of.src), "127.0.0.1");
	snprintf(hs->of.dst, sizeof(hs->of.dst), "127.0.0.1");
	hs->of.dport = 8080;
	hs->of.in_use = in_use;
	q->pid = pid;
	snprintf(q->comm, sizeof(q->comm), "%s", comm);
	q->conns = conns;
	return q;
}

RH_UNUSED static void rh_connect_failed(struct obs_snap *s, uint64_t n)
{
	s->fails[OBS_SNAP_EADDRNOTAVAIL] = n;
	s->fails_sys[OBS_SNAP_EADDRNOTAVAIL] = "connect";
}

#endif /* LOADLENS_TEST_RULES_HARNESS_H */
