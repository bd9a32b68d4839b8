// SPDX-License-Identifier: MIT
/*
 * The findings rules (observer/rules/) on synthetic snapshots: each failure of issue 9 that is a
 * rule's, as a sick run that must fire and a healthy one that must stay silent. No root, no kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "findings_log.h"
#include "findings_out.h"
#include "rules.h"

struct run {
	struct obs_snap_hist h;
	struct obs_findings fs;
};

static int x__setup(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	*state = r;
	return r ? 0 : -1;
}

static int x__teardown(void **state)
{
	struct run *r = *state;

	obs_findings_clear(&r->fs);
	free(r);
	return 0;
}

/* A fresh interval at t (1 s long) with the defaults of a Debian host. */
static struct obs_snap *x__snap(struct run *r, double t)
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

/* Run every rule on the history; returns the findings of warning or worse. */
static size_t x__run(struct run *r)
{
	size_t i, n = 0;

	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	for (i = 0; i < r->fs.n; i++)
		n += r->fs.f[i].severity >= OBS_SEV_WARNING;
	return n;
}

static void x__print(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->fs.n; i++)
		print_message("  %s/%s %s: %s\n", r->fs.f[i].kind,
			      obs_severity_name(r->fs.f[i].severity), r->fs.f[i].key,
			      r->fs.f[i].text);
}

static void x__silent(struct run *r)
{
	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	if (r->fs.n) {
		x__print(r);
		fail_msg("a healthy run has %zu findings", r->fs.n);
	}
}

static const struct obs_finding *x__expect(struct run *r, const char *kind, const char *key)
{
	const struct obs_finding *f;

	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	f = obs_findings_find(&r->fs, kind, key);
	if (!f) {
		x__print(r);
		fail_msg("no %s finding (%s)", kind, key ? key : "any key");
	}
	return f;
}

static json_int_t x__ev_int(const struct obs_finding *f, const char *name)
{
	json_t *v = json_object_get(f->evidence, name);

	if (!v)
		fail_msg("%s: no evidence '%s'", f->kind, name);
	return json_is_integer(v) ? json_integer_value(v) : (json_int_t)json_number_value(v);
}

static void x__group(struct obs_snap *s, uint32_t in_use, uint32_t tw, uint32_t fw2, bool lo)
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

static struct obs_snap_proc *x__proc(struct obs_snap *s, uint32_t pid, int64_t open, int64_t soft)
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

/* -c 16 keep-alive: 16 connections close at the end, 16 sockets in TIME_WAIT. */
static void test_keepalive_end_is_silent(void **state)
{
	struct run *r = *state;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 10; t++) {
		s = x__snap(r, t);
		s->census = true;
		s->accepted = t == 1 ? 16 : 0;
		s->state[OBS_SNAP_ESTABLISHED] = 32;
		x__group(s, 16, 0, 0, true);
		x__proc(s, 100, 40, 1024);
		obs_snap_push(&r->h);
		x__silent(r);
	}
	s = x__snap(r, 10.5);
	s->census = true;
	s->final = true;
	s->dt = 0.5;
	s->tw_entries = 62; /* 16 in half a second: "62/s at the peak" */
	s->state[OBS_SNAP_TIME_WAIT] = 16;
	x__group(s, 16, 16, 0, true);
	x__proc(s, 100, 24, 1024);
	obs_snap_push(&r->h);
	x__silent(r);
}

/* A CLOSE_WAIT leak on the server: the client holds 600 orphans in FIN_WAIT2, 0 in TIME_WAIT. */
static void test_fin_wait2_is_not_time_wait(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	/* client closes at a high rate: FIN_WAIT2 at every census, none of them for long */
	for (t = 1; t <= 10; t++) {
		s = x__snap(r, t);
		s->census = true;
		s->state[OBS_SNAP_FIN_WAIT2] = 400;
		s->fin_wait2_old = 3;
		s->port[0] = (struct obs_snap_port){.port = 8080, .fin_wait2 = 400,
						    .fin_wait2_old = 3};
		s->nports = 1;
		obs_snap_push(&r->h);
		x__silent(r);
	}
	memset(&r->h, 0, sizeof(r->h));
	for (t = 1; t <= 10; t++) {
		s = x__snap(r, t);
		s->census = true;
		s->tw_entries = 60; /* what FIN_WAIT2 -> CLOSE looks like from the state tracepoint */
		s->state[OBS_SNAP_FIN_WAIT2] = 60 * t;
		s->fin_wait2_old = 60 * (t - 1);
		s->port[0] = (struct obs_snap_port){.port = 8080, .fin_wait2 = 60 * t,
						    .fin_wait2_old = 60 * (t - 1)};
		s->nports = 1;
		x__group(s, 60 * t, 0, 60 * t, true);
		obs_snap_push(&r->h);
	}
	f = x__expect(r, "fin_wait2_orphans", "port 8080");
	assert_int_equal(x__ev_int(f, "count"), 600);
	assert_int_equal(x__ev_int(f, "port"), 8080);
	assert_non_null(strstr(f->text, "600 connections on port 8080 closed by this side wait in "
					"FIN_WAIT2 for a peer that never closes; they are freed after "
					"tcp_fin_timeout (60 s)"));
	assert_null(strstr(f->text, "TIME_WAIT"));
	assert_null(obs_findings_find(&r->fs, "time_wait", NULL));
	assert_null(obs_findings_find(&r->fs, "port_exhaustion", NULL)); /* 2% of the range */
}

/* Connection: close churn against nginx: the server holds 17,641 in TIME_WAIT; no client here. */
static void test_server_time_wait_costs_no_ports(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 10; t++) {
		s = x__snap(r, t);
		s->census = true;
		s->accepted = 17000;
		s->tw_entries = t == 5 ? 178889 / 3 : 17000; /* a one-second peak */
		s->state[OBS_SNAP_TIME_WAIT] = 17641;
		s->port[0] = (struct obs_snap_port){.port = 80, .time_wait = 17641,
						    .server_side = true};
		s->nports = 1;
		obs_snap_push(&r->h);
		x__silent(r);
	}
	/* it costs memory once near tcp_max_tw_buckets: then said so, as memory */
	s = x__snap(r, 11);
	s->census = true;
	s->max_tw_buckets = 20000;
	s->state[OBS_SNAP_TIME_WAIT] = 17641;
	s->port[0] = (struct obs_snap_port){.port = 80, .time_wait = 17641, .server_side = true};
	s->nports = 1;
	obs_snap_push(&r->h);
	f = x__expect(r, "time_wait", NULL);
	assert_non_null(strstr(f->text, "MB of kernel memory"));
	assert_non_null(strstr(f->text, "not ports"));
	assert_null(strstr(f->text, "ephemeral"));
	assert_null(obs_findings_find(&r->fs, "port_exhaustion", NULL));
}

/* 300 ports, 300 connections/s succeed, all closed into TIME_WAIT: reused with tcp_tw_reuse. */
static void x__tw_reuse_run(struct run *r, int reuse, bool loopback)
{
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 6; t++) {
		s = x__snap(r, t);
		s->tw_reuse = reuse;
		s->range = 300;
		s->census = true;
		s->tw_entries = 300;
		s->state[OBS_SNAP_TIME_WAIT] = 300;
		x__group(s, 300, 298, 0, loopback);
		obs_snap_push(&r->h);
	}
}

static void test_tw_reuse_honoured(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;

	x__tw_reuse_run(r, 2, true); /* the default, on loopback */
	x__silent(r);
	memset(&r->h, 0, sizeof(r->h));
	x__tw_reuse_run(r, 1, false);
	x__silent(r);
	memset(&r->h, 0, sizeof(r->h));
	x__tw_reuse_run(r, 2, false); /* 2 is loopback only */
	f = x__expect(r, "port_exhaustion", "10.0.0.2 -> 10.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_WARNING);
	assert_int_equal(x__ev_int(f, "in_use"), 300);
	assert_non_null(strstr(f->text, "tcp_tw_reuse 2"));
	memset(&r->h, 0, sizeof(r->h));
	x__tw_reuse_run(r, 0, true);
	f = x__expect(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(x__ev_int(f, "range"), 300);
	assert_int_equal(x__ev_int(f, "pct"), 100);
}

/* Pressure of 2% and 13%, growing: no advice, no forecast 448 s ahead. */
static void test_low_port_pressure_is_silent(void **state)
{
	struct run *r = *state;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 12; t++) {
		s = x__snap(r, t);
		s->tw_reuse = 0;
		s->census = true;
		s->tw_entries = 62;
		x__group(s, 300 + 62 * t, 62 * t, 0, true); /* 2% -> 4% */
		obs_snap_push(&r->h);
		x__silent(r);
	}
	memset(&r->h, 0, sizeof(r->h));
	for (t = 1; t <= 12; t++) {
		s = x__snap(r, t);
		s->tw_reuse = 0;
		s->census = true;
		x__group(s, 3670, 3600, 0, true); /* 13%, flat */
		obs_snap_push(&r->h);
		x__silent(r);
	}
}

/* Sick: ports past half the range and growing, then connect() failing. */
static void test_port_exhaustion_forecast_and_failures(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 5; t++) {
		s = x__snap(r, t);
		s->tw_reuse = 0;
		s->census = true;
		x__group(s, 15000 + 1000 * t, 14000 + 1000 * t, 0, true);
		obs_snap_push(&r->h);
	}
	f = x__expect(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_WARNING);
	assert_non_null(strstr(f->text, "full in ~8 s at +1000/s"));
	assert_non_null(strstr(f->text, "TIME_WAIT"));
	assert_int_equal(x__ev_int(f, "dport"), 8080);
	s = x__snap(r, 6);
	s->tw_reuse = 0;
	s->census = true;
	s->fails[OBS_SNAP_EADDRNOTAVAIL] = 312;
	s->fails_sys[OBS_SNAP_EADDRNOTAVAIL] = "connect";
	x__group(s, 28232, 28000, 0, true);
	obs_snap_push(&r->h);
	f = x__expect(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
	assert_int_equal(x__ev_int(f, "failures"), 312);
	assert_non_null(strstr(f->text, "EADDRNOTAVAIL 312 times"));
	/* failures after the last census went out of the rules' window (censuses are spaced):
	 * still the group that ran out, under its key, not a second finding */
	for (t = 7; t <= 12; t++) {
		s = x__snap(r, t);
		s->tw_reuse = 0;
		s->fails[OBS_SNAP_EADDRNOTAVAIL] = 90;
		s->fails_sys[OBS_SNAP_EADDRNOTAVAIL] = "connect";
		obs_snap_push(&r->h);
		obs_findings_clear(&r->fs);
		obs_rules_run(&r->h, &r->fs);
		assert_int_equal(r->fs.n, 1);
		f = x__expect(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
		assert_int_equal(f->severity, OBS_SEV_CRITICAL);
		assert_int_equal(x__ev_int(f, "failures"), 90);
	}
	/* failures where no census has seen a connecting side: still named, and said so */
	memset(&r->h, 0, sizeof(r->h));
	s = x__snap(r, 1);
	s->fails[OBS_SNAP_EADDRNOTAVAIL] = 5;
	obs_snap_push(&r->h);
	f = x__expect(r, "port_exhaustion", NULL);
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
	assert_non_null(strstr(f->text, "no census has named the connecting side yet"));
	s = x__snap(r, 2);
	s->census = true;
	s->range = 28232;
	s->fails[OBS_SNAP_EADDRNOTAVAIL] = 1;
	obs_snap_push(&r->h);
	f = x__expect(r, "port_exhaustion", NULL);
	assert_non_null(strstr(f->text, "EADDRNOTAVAIL 1 time (1/s)"));
	assert_non_null(strstr(f->text, "no census found the connecting sockets"));
}

static void x__slot(struct obs_snap *s, double queue_ns, double service_ns)
{
	struct obs_snap_slot *sl = &s->slot[s->nslots++];

	sl->port = 8000;
	sl->requests = 500;
	sl->queue_p50_ns = queue_ns;
	sl->service_p50_ns = service_ns;
	s->requests_on = true;
}

/* Socket-queue wait 80x the service time: the workers are busy, named after 3 intervals. */
static void test_worker_saturation(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	x__slot(x__snap(r, 1), 80e6, 1e6);
	obs_snap_push(&r->h);
	x__silent(r);
	x__slot(x__snap(r, 2), 80e6, 1e6);
	obs_snap_push(&r->h);
	f = x__expect(r, "worker_saturation", "tcp/8000");
	assert_non_null(strstr(f->text, "80x"));
	assert_non_null(strstr(f->text, "add workers or reduce load"));
	assert_non_null(strstr(f->text, "--runq"));
	assert_int_equal(x__ev_int(f, "port"), 8000);
	assert_int_equal(x__ev_int(f, "queue_p50"), 80000000);
	/* with --runq and an idle CPU: said to be the workers, not the CPU */
	for (t = 4; t <= 6; t++) {
		s = x__snap(r, t);
		x__slot(s, 80e6, 1e6);
		s->runq_on = true;
		s->runq_count = 1000;
		s->runq_p50_ns = 20e3;
		s->runq_p99_ns = 90e3;
		obs_snap_push(&r->h);
	}
	f = x__expect(r, "worker_saturation", "tcp/8000");
	assert_non_null(strstr(f->text, "not the CPU"));
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
}

static void test_cpu_saturation(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 2; t++) {
		s = x__snap(r, t);
		x__slot(s, 30e6, 1e6);
		s->runq_on = true;
		s->runq_count = 1000;
		s->runq_p50_ns = 8e6;
		s->runq_p99_ns = 40e6;
		obs_snap_push(&r->h);
	}
	f = x__expect(r, "cpu_saturation", NULL);
	assert_non_null(strstr(f->text, "run-queue wait p50 8.0 ms"));
	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
}

/* A queue that began to build in the middle of an interval: its p50 did not wait yet, its p90
 * did; with the next interval's p50 the workers are named there, not a third interval later. A
 * p90 alone, with no p50 after it, is not a finding. */
static void test_worker_saturation_onset(void **state)
{
	struct run *r = *state;
	struct obs_snap *s;

	s = x__snap(r, 1);
	x__slot(s, 2e6, 5e6);
	s->slot[0].queue_p90_ns = 60e6;
	obs_snap_push(&r->h);
	s = x__snap(r, 2);
	x__slot(s, 300e6, 5e6);
	s->slot[0].queue_p90_ns = 320e6;
	obs_snap_push(&r->h);
	x__expect(r, "worker_saturation", "tcp/8000");

	s = x__snap(r, 3);
	x__slot(s, 2e6, 5e6);
	s->slot[0].queue_p90_ns = 60e6;
	obs_snap_push(&r->h);
	x__run(r);
	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
}

/* A load that began late in an interval: that interval has too few wake-ups to judge, so the
 * next alone decides, on twice the minimum; an older interval seen low still vetoes. */
static void x__runq(struct obs_snap *s, uint64_t n, double p50)
{
	s->runq_on = true;
	s->runq_count = n;
	s->runq_p50_ns = p50;
	s->runq_p99_ns = 4 * p50;
}

static void test_cpu_saturation_onset(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;

	x__runq(x__snap(r, 1), 3, 2e6); /* the load began late in it: 3 wake-ups */
	obs_snap_push(&r->h);
	x__runq(x__snap(r, 2), 40, 3e6);
	obs_snap_push(&r->h);
	f = x__expect(r, "cpu_saturation", NULL);
	assert_non_null(strstr(f->text, "this interval"));

	x__runq(x__snap(r, 3), 15, 3e6); /* 15 of 20 needed alone, but the one before held */
	obs_snap_push(&r->h);
	f = x__expect(r, "cpu_saturation", NULL);
	assert_non_null(strstr(f->text, "over the last intervals"));

	x__runq(x__snap(r, 4), 500, 20e3); /* judged and low */
	obs_snap_push(&r->h);
	x__runq(x__snap(r, 5), 40, 3e6);
	obs_snap_push(&r->h);
	x__run(r);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));

	x__runq(x__snap(r, 6), 3, 2e6);
	obs_snap_push(&r->h);
	x__runq(x__snap(r, 7), 15, 3e6); /* too few to decide alone */
	obs_snap_push(&r->h);
	x__run(r);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
}

/* A fast server: queue 20 us against 1 us of service is wake-up latency, not saturation; a
 * thread-per-connection python server queues 0.5 ms behind its GIL against 50 us of service. */
static void test_fast_server_is_silent(void **state)
{
	struct run *r = *state;
	int t;

	for (t = 1; t <= 6; t++) {
		x__slot(x__snap(r, t), 20e3, 1e3);
		obs_snap_push(&r->h);
		x__silent(r);
	}
	for (t = 7; t <= 12; t++) {
		x__slot(x__snap(r, t), 563e3, 52e3);
		obs_snap_push(&r->h);
		x__silent(r);
	}
}

/* Pipelined redis, memcached's 4 threads on one UDP socket, a target in another netns, and a
 * --port nothing listens on: each its own note, with its number. */
static void test_count_notes(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 2; t++) {
		s = x__snap(r, t);
		x__slot(s, 10e3, 2e3);
		s->slot[0].port = 6379;
		s->slot[0].pipelined_reads = 6200;
		s->slot[0].reads = 6251;
		x__slot(s, 10e3, 2e3);
		s->slot[1].port = 11211;
		s->slot[1].udp = true;
		s->slot[1].udp_multi_reader_sockets = 1;
		s->slot[1].udp_reader_switches = 5400;
		x__proc(s, 4242, 30, 1024);
		s->netns_outside[s->nnetns_outside++] = 4242;
		s->no_listener[s->nno_listener++] = 8080;
		obs_snap_push(&r->h);
		if (t == 1) {
			/* a server may still be starting: no_listener waits for a second interval */
			obs_rules_run(&r->h, &r->fs);
			assert_null(obs_findings_find(&r->fs, "no_listener", NULL));
		}
	}
	assert_int_equal(x__run(r), 0); /* notes, never alarms */
	f = x__expect(r, "pipelining", "tcp/6379");
	assert_int_equal(f->severity, OBS_SEV_NOTE);
	assert_non_null(strstr(f->text, "requests here are reads"));
	assert_non_null(strstr(f->text, "6,200 of 6,251"));
	f = x__expect(r, "udp_shared_socket", "udp/11211");
	assert_int_equal(x__ev_int(f, "sockets"), 1);
	assert_non_null(strstr(f->text, "1 socket is read by several threads (5,400 reads"));
	f = x__expect(r, "netns_outside", "pid 4242");
	assert_int_equal(x__ev_int(f, "pid"), 4242);
	f = x__expect(r, "no_listener", "port 8080");
	assert_int_equal(x__ev_int(f, "port"), 8080);
	assert_int_equal(f->severity, OBS_SEV_NOTE);	/* one request of 30 written in two pieces (a listen-overflow run): no pipelining */
	s = x__snap(r, 3);
	x__slot(s, 10e3, 2e3);
	s->slot[0].pipelined_reads = 1;
	s->slot[0].reads = 30;
	obs_snap_push(&r->h);
	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	assert_null(obs_findings_find(&r->fs, "pipelining", NULL));
}

/* The EMFILE forecast: 437 of 512 at +48/s; healthy: 16 fds opened at start on 1024. */
static void test_fd_forecast(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 3; t++) {
		s = x__snap(r, t);
		s->accepted = t == 1 ? 16 : 0;
		x__proc(s, 4242, t == 1 ? 10 : 26 + t, 1024);
		obs_snap_push(&r->h);
		x__silent(r);
	}
	memset(&r->h, 0, sizeof(r->h));
	for (t = 1; t <= 4; t++) {
		x__proc(x__snap(r, t), 4242, 437 - 48 * (4 - t), 512);
		obs_snap_push(&r->h);
	}
	f = x__expect(r, "fd_exhaustion", "pid 4242");
	assert_int_equal(f->severity, OBS_SEV_WARNING);
	assert_string_equal(f->text, "fds: python3 (pid 4242) will run out of file descriptors "
				     "in ~2 s (437 of 512, +48/s)");
	assert_int_equal(x__ev_int(f, "open"), 437);
	assert_int_equal(x__ev_int(f, "soft"), 512);
	assert_int_equal(x__ev_int(f, "forecast_s"), 1);
}

/* Past --max-procs, the 20th child's EMFILE is still named, and the cap is a finding. */
static void test_process_cap_and_unwatched_emfile(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap_proc *p;
	struct obs_snap *s;

	s = x__snap(r, 1);
	s->max_procs = 16;
	s->procs_unwatched = 4;
	s->first_unwatched_pid = 5017;
	snprintf(s->first_unwatched_comm, 16, "forker");
	p = x__proc(s, 5020, -1, -1);
	p->watched = false;
	p->emfile = 346;
	p->last_sys = "accept4";
	obs_snap_push(&r->h);
	f = x__expect(r, "fd_exhaustion", "pid 5020");
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
	assert_int_equal(x__ev_int(f, "emfile"), 346);
	assert_non_null(strstr(f->text, "EMFILE 346 times"));
	f = x__expect(r, "process_cap", NULL);
	assert_int_equal(x__ev_int(f, "pid"), 5017);
	assert_non_null(strstr(f->text, "--max-procs 16"));
	/* children the kernel's targets table had no room for */
	s = x__snap(r, 1.5);
	s->targets_full = 7;
	s->targets_max = 4096;
	p = x__proc(s, 5020, -1, -1);
	p->watched = false;
	p->emfile = 346;
	obs_snap_push(&r->h);
	f = x__expect(r, "process_cap", "targets");
	assert_int_equal(x__ev_int(f, "targets_full"), 7);
	assert_non_null(strstr(f->text, "7 new children"));
	/* the next interval, no new EMFILE: no new EMFILE finding */
	s = x__snap(r, 2);
	p = x__proc(s, 5020, -1, -1);
	p->watched = false;
	p->emfile = 346;
	obs_snap_push(&r->h);
	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	assert_null(obs_findings_find(&r->fs, "fd_exhaustion", NULL));
}

static void test_close_wait_leak(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	/* transient CLOSE_WAIT: the application closes a moment later, none of them old */
	for (t = 1; t <= 6; t++) {
		s = x__snap(r, t);
		s->census = true;
		s->state[8] = 40;
		s->close_wait_old = 2;
		obs_snap_push(&r->h);
		x__silent(r);
	}
	memset(&r->h, 0, sizeof(r->h));
	for (t = 1; t <= 4; t++) {
		s = x__snap(r, t);
		s->census = true;
		s->state[8] = 20 * t;
		s->port[0] = (struct obs_snap_port){.port = 8080, .close_wait = 20 * t,
						    .close_wait_old = 20 * (t - 1),
						    .server_side = true};
		s->nports = 1;
		x__proc(s, 777, 30 + 20 * t, 4096);
		obs_snap_push(&r->h);
	}
	f = x__expect(r, "close_wait_leak", "port 8080");
	assert_int_equal(x__ev_int(f, "count"), 80);
	assert_int_equal(x__ev_int(f, "old"), 60);
	assert_int_equal(x__ev_int(f, "pid"), 777);
}

static void test_fd_leak(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	int t;

	for (t = 1; t <= 6; t++) {
		struct obs_snap *s = x__snap(r, t);

		s->accepted = 100;
		x__proc(s, 900, 50 + 10 * t, 65536);
		obs_snap_push(&r->h);
	}
	f = x__expect(r, "fd_leak", "pid 900");
	assert_int_equal(x__ev_int(f, "pid"), 900);
	/* the same fds, each an ESTABLISHED connection the clients hold open: no leak */
	memset(&r->h, 0, sizeof(r->h));
	for (t = 1; t <= 6; t++) {
		struct obs_snap *s = x__snap(r, t);

		s->accepted = 10;
		s->census = true;
		s->state[OBS_SNAP_ESTABLISHED] = 10 * t;
		x__proc(s, 900, 50 + 10 * t, 65536);
		obs_snap_push(&r->h);
		x__silent(r);
	}
	/* the same fds, each a socket left in CLOSE_WAIT: the close_wait_leak's, not an fd leak
	 * of its own (one finding per cause) */
	memset(&r->h, 0, sizeof(r->h));
	for (t = 1; t <= 6; t++) {
		struct obs_snap *s = x__snap(r, t);

		s->accepted = 10;
		s->census = true;
		s->state[OBS_SNAP_CLOSE_WAIT] = 10 * t;
		x__proc(s, 900, 50 + 10 * t, 65536);
		obs_snap_push(&r->h);
		obs_findings_clear(&r->fs);
		obs_rules_run(&r->h, &r->fs);
		assert_null(obs_findings_find(&r->fs, "fd_leak", NULL));
	}
	/* the same fds under a load that doubles each second: growth with the load, no leak */
	memset(&r->h, 0, sizeof(r->h));
	for (t = 1; t <= 6; t++) {
		struct obs_snap *s = x__snap(r, t);

		s->accepted = 100u << t;
		x__proc(s, 900, 50 + 10 * t, 65536);
		obs_snap_push(&r->h);
		x__silent(r);
	}
}

static void test_listen_overflow_and_files(void **state)
{
	struct run *r = *state;
	const struct obs_finding *f;
	struct obs_snap *s = x__snap(r, 1);

	s->listen_overflows = 40; /* another listener's: no sign on the target's */
	s->listen_port = 8080;
	obs_snap_push(&r->h);
	x__silent(r);
	s = x__snap(r, 2);
	s->listen_overflows = 40;
	s->listen_target_full = 12;
	s->listen_port = 8080;
	s->listen_backlog = 8;
	s->listen_qlen_max = 9;
	s->fails[OBS_SNAP_ENFILE] = 3;
	s->fails_sys[OBS_SNAP_ENFILE] = "openat";
	obs_snap_push(&r->h);
	f = x__expect(r, "listen_overflow", "port 8080");
	assert_int_equal(x__ev_int(f, "overflows"), 40);
	assert_int_equal(x__ev_int(f, "backlog"), 8);
	f = x__expect(r, "system_fds", NULL);
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
}

/* The log: news on first sight and when graver; first and last seen; formatters. */
static void test_log_and_output(void **state)
{
	struct run *r = *state;
	struct obs_flog *l = malloc(sizeof(*l));
	size_t news[8], n;
	char line[600];
	json_t *ev, *arr;

	assert_non_null(l);
	obs_flog_init(l);
	obs_findings_add(&r->fs, "fd_exhaustion", OBS_SEV_WARNING, "pid 1", NULL, "fds: a");
	n = obs_flog_merge(l, &r->fs, 7.0, news, 8);
	assert_int_equal(n, 1);
	assert_int_equal(r->fs.n, 0);
	obs_findings_add(&r->fs, "fd_exhaustion", OBS_SEV_WARNING, "pid 1", NULL, "fds: b");
	assert_int_equal(obs_flog_merge(l, &r->fs, 8.0, news, 8), 0);
	obs_findings_add(&r->fs, "fd_exhaustion", OBS_SEV_CRITICAL, "pid 1",
			 json_pack("{s:i}", "pid", 1), "fds: c");
	assert_int_equal(obs_flog_merge(l, &r->fs, 9.0, news, 8), 1);
	obs_findings_add(&r->fs, "fd_exhaustion", OBS_SEV_WARNING, "pid 1", NULL, "fds: d");
	assert_int_equal(obs_flog_merge(l, &r->fs, 10.0, news, 8), 0);
	assert_int_equal(l->n, 1);
	assert_string_equal(l->seen[0].f.text, "fds: c");
	assert_true(l->seen[0].first_seen == 7.0 && l->seen[0].last_seen == 10.0);
	obs_out_finding_line(line, sizeof(line), &l->seen[0].f, "12:00:07");
	assert_string_equal(line, "[12:00:07] fds: c");
	ev = obs_out_finding_event(&l->seen[0].f, 9.0, "12:00:09");
	assert_string_equal(json_string_value(json_object_get(ev, "type")), "finding");
	assert_string_equal(json_string_value(json_object_get(ev, "severity")), "critical");
	assert_string_equal(json_string_value(json_object_get(ev, "time")), "12:00:09");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ev, "evidence"),
							    "pid")), 1);
	json_decref(ev);
	arr = obs_out_findings_json(l);
	assert_int_equal(json_array_size(arr), 1);
	assert_true(json_real_value(json_object_get(json_array_get(arr, 0), "first_seen")) == 7.0);
	assert_true(json_real_value(json_object_get(json_array_get(arr, 0), "last_seen")) == 10.0);
	json_decref(arr);
	obs_flog_free(l);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_keepalive_end_is_silent, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_fin_wait2_is_not_time_wait, x__setup,
						x__teardown),
		cmocka_unit_test_setup_teardown(test_server_time_wait_costs_no_ports, x__setup,
						x__teardown),
		cmocka_unit_test_setup_teardown(test_tw_reuse_honoured, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_low_port_pressure_is_silent, x__setup,
						x__teardown),
		cmocka_unit_test_setup_teardown(test_port_exhaustion_forecast_and_failures, x__setup,
						x__teardown),
		cmocka_unit_test_setup_teardown(test_worker_saturation, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_cpu_saturation, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_cpu_saturation_onset, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_worker_saturation_onset, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_fast_server_is_silent, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_count_notes, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_fd_forecast, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_process_cap_and_unwatched_emfile, x__setup,
						x__teardown),
		cmocka_unit_test_setup_teardown(test_close_wait_leak, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_fd_leak, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_listen_overflow_and_files, x__setup,
						x__teardown),
		cmocka_unit_test_setup_teardown(test_log_and_output, x__setup, x__teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
