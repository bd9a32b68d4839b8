// SPDX-License-Identifier: MIT
/*
 * The findings rules (observer/rules/) on synthetic snapshots: saturation (workers, CPU) and the
 * notes on what a count means. Each failure a rule must name, as a sick run that must fire and
 * a healthy one that must stay silent. No root, no kernel.
 */
#include "rules_harness.h"

static void slot(struct obs_snap *s, double queue_ns, double service_ns)
{
	struct obs_snap_slot *sl = &s->slot[s->nslots++];

	sl->port = 8000;
	sl->requests = 500;
	sl->queue_p50_ns = queue_ns;
	sl->service_p50_ns = service_ns;
	s->requests_on = true;
}

/* Socket-queue wait 80x the service time: the workers are busy, named after 3 intervals. */
RULES_TEST(test_worker_saturation)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	slot(rh_snap(r, 1), 80e6, 1e6);
	rh_healthy(r);
	slot(rh_snap(r, 2), 80e6, 1e6);
	f = rh_sick(r, "worker_saturation", "tcp/8000");
	assert_non_null(strstr(f->text, "80x"));
	assert_non_null(strstr(f->text, "add workers or reduce load"));
	assert_non_null(strstr(f->text, "--runq"));
	assert_int_equal(rh_ev_int(f, "port"), 8000);
	assert_int_equal(rh_ev_int(f, "queue_p50"), 80000000);
	/* with --runq and an idle CPU: said to be the workers, not the CPU */
	for (t = 4; t <= 6; t++) {
		s = rh_snap(r, t);
		slot(s, 80e6, 1e6);
		s->runq_on = true;
		s->runq_count = 1000;
		s->runq_p50_ns = 20e3;
		s->runq_p99_ns = 90e3;
		obs_snap_push(&r->h);
	}
	f = rh_expect(r, "worker_saturation", "tcp/8000");
	assert_non_null(strstr(f->text, "not the CPU"));
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
}

/*
 * Without --runq, the targets' schedstat tells a CPU from a worker pool: PostgreSQL's
 * 40 backends pinned to one CPU (39 waiting, 1 running on average) with requests queued is the
 * CPU, named once and never "add workers"; a pool of 2 sleeping threads (0.02 waiting) is the
 * workers, "not the CPU"; a CPU wait in one interval only names neither (too short for the CPU,
 * too recent for the workers).
 */
RULES_TEST(test_cpu_or_workers_schedstat)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		slot(s, 7.4e6, 143e3);
		s->cpu_on = true;
		s->cpu_waiting = 39.1;
		s->cpu_running = 0.98;
		s->cpu_cpus = 1;
		s->cpu_procs = 41;
		obs_snap_push(&r->h);
	}
	f = rh_expect(r, "cpu_saturation", "");
	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
	assert_string_equal(f->text,
			    "cpu: the server's processes wait for a CPU (40 runnable on 1 CPU: on "
			    "average 39.1 of their threads waited on a run queue, 1.0 ran), and "
			    "requests on tcp/8000 wait 52x their service time in the socket queue "
			    "(queue p50 7.4 ms, service p50 143 us): more workers would not help; add "
			    "CPUs, or reduce load or what else runs there");
	assert_int_equal(rh_ev_int(f, "cpus"), 1);
	rh_restart(r);
	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		slot(s, 80e6, 1e6);
		s->cpu_on = true;
		s->cpu_waiting = 0.02;
		s->cpu_running = 0.01;
		s->cpu_cpus = 2;
		s->cpu_procs = 1;
		obs_snap_push(&r->h);
	}
	f = rh_expect(r, "worker_saturation", "tcp/8000");
	assert_non_null(strstr(f->text, "their threads waited for a CPU 0.02 on average (0.01 ran): "
					"not the CPU"));
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
	rh_restart(r);
	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		slot(s, 80e6, 1e6);
		s->cpu_on = true;
		s->cpu_waiting = t == 2 ? 12 : 0.1;
		s->cpu_running = 1;
		s->cpu_cpus = 1;
		s->cpu_procs = 1;
		obs_snap_push(&r->h);
	}
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
	/* the same backends running 0.63 of their CPU: the hypervisor's steal took 0.30, which no
	 * thread could have: still the CPU; without that time counted, no cpu_saturation (0.63 of
	 * a whole CPU is not the server carrying it) */
	for (int lost = 1; lost >= 0; lost--) {
		rh_restart(r);
		for (t = 1; t <= 2; t++) {
			s = rh_snap(r, t);
			slot(s, 6e6, 100e3);
			s->cpu_on = true;
			s->cpu_waiting = 33.5;
			s->cpu_running = 0.63;
			s->cpu_lost = lost ? 0.30 : 0;
			s->cpu_cpus = 1;
			s->cpu_procs = 41;
			obs_snap_push(&r->h);
		}
		if (lost) {
			f = rh_expect(r, "cpu_saturation", "");
			assert_non_null(strstr(f->text, "33.5 of their threads waited on a run queue, "
							"0.6 ran; 0.3 CPU stolen or in "
							"interrupts), and requests"));
		} else {
			rh_run(r);
			assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
		}
	}
	/* threads waiting while the server ran on a third of its 2 CPUs (others took them: a
	 * ramp of 100,000 connections from 5 drivers): not the server's CPU saturation */
	rh_restart(r);
	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		slot(s, 80e6, 1e6);
		s->cpu_on = true;
		s->cpu_waiting = 3.8;
		s->cpu_running = 0.6;
		s->cpu_lost = 0.1;
		s->cpu_cpus = 2;
		s->cpu_procs = 21;
		obs_snap_push(&r->h);
	}
	rh_expect(r, "worker_saturation", "tcp/8000");
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
}

/*
 * A process forked per request (a python server's child per connection, 100 a second, each
 * waiting 5.6 ms for its fork on a busy host): the queue is the fork's, a note naming the forker,
 * never "add workers"; the same queue with a pre-forked pool (3 forks for 300 requests) is the
 * workers again, and a fork per request in one interval only is not enough.
 */
RULES_TEST(test_fork_per_request)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t, round;

	for (round = 0; round < 3; round++) {
		rh_restart(r);
		for (t = 1; t <= 2; t++) {
			s = rh_snap(r, t);
			slot(s, 5.6e6, 143e3);
			s->slot[0].requests = 100;
			s->children_on = true;
			s->forker.pid = 4242;
			snprintf(s->forker.comm, sizeof(s->forker.comm), "python3");
			s->forker.forks = round == 1 ? 3 : (round == 2 && t == 1) ? 10 : 100;
			obs_snap_push(&r->h);
		}
		rh_run(r);
		if (round) {
			assert_non_null(obs_findings_find(&r->fs, "worker_saturation", "tcp/8000"));
			assert_null(obs_findings_find(&r->fs, "fork_wait", NULL));
			continue;
		}
		assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
		f = obs_findings_find(&r->fs, "fork_wait", "tcp/8000");
		assert_non_null(f);
		assert_int_equal(f->severity, OBS_SEV_NOTE);
		assert_string_equal(f->text,
				    "fork: requests on tcp/8000 wait 39x their service time in the "
				    "socket queue (queue p50 5.6 ms, service p50 143 us) while pid "
				    "4242 (python3) forks a process for them (100 forks for 100 "
				    "requests this interval): the wait is a process's start, not busy "
				    "workers; a pool of processes (pre-forked, or a connection pooler "
				    "in front) removes it");
		assert_int_equal(rh_ev_int(f, "forks"), 100);
		assert_int_equal(rh_ev_int(f, "forker"), 4242);
	}
}

RULES_TEST(test_cpu_saturation)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		slot(s, 30e6, 1e6);
		s->runq_on = true;
		s->runq_count = 1000;
		s->runq_p50_ns = 8e6;
		s->runq_p99_ns = 40e6;
		obs_snap_push(&r->h);
	}
	f = rh_expect(r, "cpu_saturation", NULL);
	assert_non_null(strstr(f->text, "run-queue wait p50 8.0 ms"));
	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
}

/* A queue that began to build in the middle of an interval: its p50 did not wait yet, its p90
 * did; with the next interval's p50 the workers are named there, not a third interval later. A
 * p90 alone, with no p50 after it, is not a finding. */
RULES_TEST(test_worker_saturation_onset)
{
	struct obs_snap *s;

	s = rh_snap(r, 1);
	slot(s, 2e6, 5e6);
	s->slot[0].queue_p90_ns = 60e6;
	obs_snap_push(&r->h);
	s = rh_snap(r, 2);
	slot(s, 300e6, 5e6);
	s->slot[0].queue_p90_ns = 320e6;
	obs_snap_push(&r->h);
	rh_expect(r, "worker_saturation", "tcp/8000");

	s = rh_snap(r, 3);
	slot(s, 2e6, 5e6);
	s->slot[0].queue_p90_ns = 60e6;
	obs_snap_push(&r->h);
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
}

/* A load that began late in an interval: that interval has too few wake-ups to judge, so the
 * next alone decides, on twice the minimum; an older interval seen low still vetoes. */
static void runq(struct obs_snap *s, uint64_t n, double p50)
{
	s->runq_on = true;
	s->runq_count = n;
	s->runq_p50_ns = p50;
	s->runq_p99_ns = 4 * p50;
}

RULES_TEST(test_cpu_saturation_onset)
{
	const struct obs_finding *f;

	runq(rh_snap(r, 1), 3, 2e6); /* the load began late in it: 3 wake-ups */
	obs_snap_push(&r->h);
	runq(rh_snap(r, 2), 40, 3e6);
	f = rh_sick(r, "cpu_saturation", NULL);
	assert_non_null(strstr(f->text, "this interval"));

	runq(rh_snap(r, 3), 15, 3e6); /* 15 of 20 needed alone, but the one before held */
	f = rh_sick(r, "cpu_saturation", NULL);
	assert_non_null(strstr(f->text, "over the last intervals"));

	runq(rh_snap(r, 4), 500, 20e3); /* judged and low */
	obs_snap_push(&r->h);
	runq(rh_snap(r, 5), 40, 3e6);
	obs_snap_push(&r->h);
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));

	runq(rh_snap(r, 6), 3, 2e6);
	obs_snap_push(&r->h);
	runq(rh_snap(r, 7), 15, 3e6); /* too few to decide alone */
	obs_snap_push(&r->h);
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
}

/* A fast server: queue 20 us against 1 us of service is wake-up latency, not saturation; a
 * thread-per-connection python server queues 0.5 ms behind its GIL against 50 us of service. */
RULES_TEST(test_fast_server_is_silent)
{
	int t;

	for (t = 1; t <= 6; t++) {
		slot(rh_snap(r, t), 20e3, 1e3);
		rh_healthy(r);
	}
	for (t = 7; t <= 12; t++) {
		slot(rh_snap(r, t), 563e3, 52e3);
		rh_healthy(r);
	}
}

/* Pipelined redis, memcached's 4 threads on one UDP socket, a target in another netns, and a
 * --port nothing listens on: each its own note, with its number. */
RULES_TEST(test_count_notes)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		slot(s, 10e3, 2e3);
		s->slot[0].port = 6379;
		s->slot[0].pipelined_reads = 6200;
		s->slot[0].reads = 6251;
		slot(s, 10e3, 2e3);
		s->slot[1].port = 11211;
		s->slot[1].udp = true;
		s->slot[1].udp_multi_reader_sockets = 1;
		s->slot[1].udp_reader_switches = 5400;
		s->slot[1].udp_unpaired = 12;
		s->slot[1].udp_readers = 8;
		rh_proc(s, 4242, 30, 1024);
		s->netns_outside[s->nnetns_outside++] = 4242;
		s->no_listener[s->nno_listener++] = 8080;
		obs_snap_push(&r->h);
		if (t == 1) {
			/* a server may still be starting: no_listener waits for a second interval */
			obs_rules_run(&r->h, &r->fs);
			assert_null(obs_findings_find(&r->fs, "no_listener", NULL));
		}
	}
	assert_int_equal(rh_run(r), 0); /* notes, never alarms */
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_int_equal(f->severity, OBS_SEV_NOTE);
	assert_non_null(strstr(f->text, "requests here are reads"));
	assert_non_null(strstr(f->text, "6,200 of 6,251"));
	f = rh_expect(r, "udp_shared_socket", "udp/11211");
	assert_int_equal(rh_ev_int(f, "sockets"), 1);
	assert_int_equal(rh_ev_int(f, "unpaired"), 12);
	assert_non_null(strstr(f->text, "12 datagrams were read while 8 other threads of their "
					"socket were serving one each: not counted"));
	f = rh_expect(r, "netns_outside", "pid 4242");
	assert_int_equal(rh_ev_int(f, "pid"), 4242);
	f = rh_expect(r, "no_listener", "port 8080");
	assert_int_equal(rh_ev_int(f, "port"), 8080);
	assert_int_equal(f->severity, OBS_SEV_NOTE);
	/* one request of 30 written in two pieces (a listen-overflow run): no pipelining */
	s = rh_snap(r, 3);
	slot(s, 10e3, 2e3);
	s->slot[0].pipelined_reads = 1;
	s->slot[0].reads = 30;
	rh_pushed(r);
	assert_null(obs_findings_find(&r->fs, "pipelining", NULL));
}

/* One interval of a TCP slot on port 6379 with payload samples. */
static struct obs_snap_slot *pl(struct run *r, double t, uint64_t reads, uint64_t samples,
				   uint64_t multi, uint64_t requests, uint64_t max)
{
	struct obs_snap *s = rh_snap(r, t);
	struct obs_snap_slot *sl;

	slot(s, 10e3, 2e3);
	sl = &s->slot[0];
	sl->port = 6379;
	sl->reads = reads;
	sl->pl_samples = samples;
	sl->pl_multi = multi;
	sl->pl_requests = requests;
	sl->pl_max = max;
	sl->pl_scan = 1024;
	obs_snap_push(&r->h);
	return sl;
}

/* redis-benchmark -P 16: each batch of 16 in one write, one arrival and one read: no
 * multi-arrival read, but the bytes hold 16 requests; the note gives the factor. */
RULES_TEST(test_pipelining_in_one_write)
{
	const struct obs_finding *f;

	pl(r, 1, 6251, 400, 390, 6240, 16);
	assert_int_equal(rh_run(r), 0);
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_int_equal(f->severity, OBS_SEV_NOTE);
	assert_non_null(strstr(f->text, "on tcp/6379, 98% of 400 sampled reads held several "
					"requests (15.6 per read on average, up to 16)"));
	assert_non_null(strstr(f->text, "requests here are reads"));
	assert_non_null(strstr(f->text, "the server handled about 16x the 6,251 requests "
					"counted"));
	assert_null(strstr(f->text, "counted by length"));
	assert_int_equal(rh_ev_int(f, "port"), 6379);
	assert_int_equal(rh_ev_int(f, "sampled_reads"), 400);
	assert_int_equal(rh_ev_int(f, "multi_request_reads"), 390);
	assert_int_equal(rh_ev_int(f, "max_per_read"), 16);
	assert_int_equal(rh_ev_int(f, "requests_counted"), 6251);
	assert_int_equal(rh_ev_int(f, "estimated_requests"), 97516); /* 6,251 x 15.6 */
	assert_int_equal(rh_ev_int(f, "pipelined_reads"), 0);
	/* -P 4 on a longer run, with reads longer than looked at */
	obs_snap_next(&r->h)->t = 2;
	obs_snap_push(&r->h);
	pl(r, 3, 25000, 800, 800, 3200, 4)->pl_extrapolated = 3;
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_non_null(strstr(f->text, "100% of 800 sampled reads held several requests (4.0 "
					"per read on average, up to 4)"));
	assert_non_null(strstr(f->text, "about 4.0x the 25,000 requests counted; 3 reads were "
					"longer than the 1024 bytes looked at: counted by length"));
}

/* One request per read (keep-alive HTTP, memcached gets, an echo), a few reads that look like
 * two (a body line that begins like a request), a binary protocol (HTTP/2: nothing sampled as
 * text), and too few samples to tell: no note. */
RULES_TEST(test_pipelining_silent)
{
	pl(r, 1, 90000, 600, 0, 600, 1);
	rh_silent(r);
	pl(r, 2, 90000, 600, 9, 610, 2); /* 9 of 600: fewer than 10 */
	rh_silent(r);
	pl(r, 3, 90000, 600, 40, 640, 2); /* 40 of 600, 6.7%: under 10% */
	rh_silent(r);
	pl(r, 4, 90000, 0, 0, 0, 0); /* HTTP/2: every sample binary */
	rh_silent(r);
	pl(r, 5, 40, 2, 2, 32, 16); /* 2 samples, both pipelined: too few to say */
	rh_silent(r);
	pl(r, 5.5, 90000, 9, 4, 40, 16); /* a burst's 9 samples, 4 pipelined: under half */
	rh_silent(r);
	/* the same bytes on a UDP slot (datagrams are requests): never */
	pl(r, 6, 5000, 100, 100, 1600, 16)->udp = true;
	rh_silent(r);
}

/* A pipelined burst (redis-benchmark -P 16, 100,000 commands in 0.07 s): the sampler's 8 ms
 * gate takes about 9 reads; nearly all hold 16 commands: the note, as on a long run. */
RULES_TEST(test_pipelining_burst)
{
	const struct obs_finding *f;

	pl(r, 1, 6250, 9, 9, 144, 16);
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_non_null(strstr(f->text, "100% of 9 sampled reads held several requests (16.0 per "
					"read on average, up to 16)"));
	assert_int_equal(rh_ev_int(f, "estimated_requests"), 100000);
	/* the fewest a burst needs: 3 of 5 */
	pl(r, 2, 600, 5, 3, 35, 16);
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_int_equal(rh_ev_int(f, "multi_request_reads"), 3);
}

/* Both signs: the bytes' figures win, with the arrivals' count in the evidence; the arrivals
 * alone (a binary protocol, HTTP/2 streams written one by one) keep their own text. */
RULES_TEST(test_pipelining_both_signs)
{
	const struct obs_finding *f;

	pl(r, 1, 1274, 300, 280, 1300, 16)->pipelined_reads = 301;
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_non_null(strstr(f->text, "93% of 300 sampled reads held several requests (4.3 per "
					"read on average, up to 16)"));
	assert_int_equal(rh_ev_int(f, "pipelined_reads"), 301);
	assert_int_equal(rh_ev_int(f, "estimated_requests"), 5521); /* 1,274 x 1300 / 300 */
	pl(r, 2, 3794, 0, 0, 0, 0)->pipelined_reads = 3767;
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_non_null(strstr(f->text, "3,767 of 3,794 reads took several writes of the client"));
	assert_null(json_object_get(f->evidence, "sampled_reads"));
}

/* --pid of a process that accepts and serves nothing (a cluster's primary): a note naming its
 * children; silent once a request is timed, or with nothing accepted. */
RULES_TEST(test_served_elsewhere)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 3; t++) {
		s = rh_snap(r, t);
		s->pid_targets = true;
		s->requests_on = true;
		s->accepted = 100;
		s->foreign_sockets = 200 * (uint64_t)t;
		s->nkids = 2;
		s->kid[0].pid = 501;
		snprintf(s->kid[0].comm, sizeof(s->kid[0].comm), "node");
		s->kid[1].pid = 502;
		snprintf(s->kid[1].comm, sizeof(s->kid[1].comm), "node");
		rh_pushed(r);
		f = obs_findings_find(&r->fs, "served_elsewhere", NULL);
		if (t == 1) { /* one interval of accepts is not enough */
			assert_null(f);
			continue;
		}
		assert_non_null(f);
		assert_int_equal(f->severity, OBS_SEV_NOTE);
	}
	assert_non_null(strstr(f->text, "accepted 300 connections in 3 s but read no request"));
	assert_non_null(strstr(f->text, "the targets' children: 501 (node), 502 (node)"));
	assert_int_equal(rh_ev_int(f, "accepted"), 300);
	/* a request timed: they serve what they accept */
	s = rh_snap(r, 4);
	s->pid_targets = true;
	s->requests_on = true;
	s->accepted = 100;
	s->foreign_sockets = 800;
	s->nslots = 1;
	s->slot[0].port = 8080;
	s->slot[0].requests = 1;
	rh_pushed(r);
	assert_null(obs_findings_find(&r->fs, "served_elsewhere", NULL));
	/* port scoping: no note */
	rh_restart(r);
	for (t = 1; t <= 3; t++) {
		s = rh_snap(r, t);
		s->requests_on = true;
		s->accepted = 100;
		s->foreign_sockets = 10;
		obs_snap_push(&r->h);
	}
	obs_findings_clear(&r->fs);
	obs_rules_run(&r->h, &r->fs);
	assert_null(obs_findings_find(&r->fs, "served_elsewhere", NULL));
}

/* --pid of a process that hands its connections to another, unrelated one (fd passing): the
 * note names who read them, the most sockets first, four at most in the text. */
static void test_served_elsewhere_readers(void **state)
{
	static const char *const comm[6] = {"worker", "sshd", "a", "b", "c", "d"};
	static const uint64_t socks[6] = {300, 2, 1, 1, 1, 1};
	struct run *r = *state;
	const struct obs_finding *f = NULL;
	struct obs_snap *s;
	json_t *rd;
	int t, i;

	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		s->pid_targets = true;
		s->requests_on = true;
		s->accepted = 150;
		s->foreign_sockets = 600;
		for (i = 0; i < 6; i++) {
			s->reader[i].pid = 700 + (uint32_t)i;
			snprintf(s->reader[i].comm, sizeof(s->reader[i].comm), "%s", comm[i]);
			s->reader[i].port = i == 1 ? 22 : 18977;
			s->reader[i].udp = i == 2; /* not a connection: left out */
			s->reader[i].sockets = socks[i];
		}
		s->nreaders = 6;
		obs_snap_push(&r->h);
		obs_findings_clear(&r->fs);
		obs_rules_run(&r->h, &r->fs);
		f = obs_findings_find(&r->fs, "served_elsewhere", NULL);
	}
	assert_non_null(f);
	assert_non_null(strstr(f->text, "; server-side sockets read first by others, the most "
					"first: worker (pid 700: 300 on tcp/18977), sshd (pid 701: "
					"2 on tcp/22), b (pid 703: 1 on tcp/18977), c (pid 704: 1 "
					"on tcp/18977) and 1 more; watch those"));
	assert_null(strstr(f->text, "the targets' children"));
	rd = json_object_get(f->evidence, "readers");
	assert_int_equal(json_array_size(rd), 5);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rd, 0), "sockets")), 300);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rd, 1), "port")), 22);
}

/* Intervals 1-3 at (rate1 a second, service1), then 4-5 at (rate2, service2), no socket queue. */
static void inside_run(struct run *r, double rate1, double service1, double rate2, double service2)
{
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 5; t++) {
		s = rh_snap(r, t * 0.5);
		s->dt = 0.5;
		slot(s, 20e3, t <= 3 ? service1 : service2);
		s->slot[0].requests = (uint64_t)((t <= 3 ? rate1 : rate2) * 0.5);
		obs_snap_push(&r->h);
	}
}

/*
 * Streams read at once and queued inside the server (an HTTP/2 server with one worker, a gRPC
 * server with 2 places): 1 in service at 200/s, then 40 at once and still 200/s, service 5 ms ->
 * 200 ms, the socket queue empty: worker_saturation, from inside; so with 8 places (1,000/s, 40
 * ms: a handler that slowed 8x as they multiplied looks the same). A server that serves them at
 * once completes more in the same time each (silent), and a load that fell is no saturation.
 */
RULES_TEST(test_worker_saturation_inside)
{
	const struct obs_finding *f;
	struct obs_snap *s4;

	inside_run(r, 200, 5e6, 205, 200e6);
	f = rh_expect(r, "worker_saturation", "tcp/8000");
	assert_non_null(strstr(f->text, "requests on tcp/8000 wait inside the server: 41 were in "
					"service at once (1.0 at 1.5 s), yet it completed 204/s "
					"(200/s then), and service p50 grew from 5.0 ms to 200.0 "
					"ms: it serves a fixed number at once"));
	assert_string_equal(json_string_value(json_object_get(f->evidence, "source")), "inside");
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
	/* the load began in the middle of interval 4: its p90 grew, its median not yet */
	rh_restart(r);
	inside_run(r, 200, 5e6, 205, 200e6);
	s4 = (struct obs_snap *)obs_snap_at(&r->h, 1);
	s4->slot[0].service_p50_ns = 5e6;
	s4->slot[0].service_p90_ns = 150e6;
	rh_expect(r, "worker_saturation", "tcp/8000");
	/* 40 at once served at once: 8,000/s */
	rh_restart(r);
	inside_run(r, 200, 5e6, 8000, 5e6);
	assert_int_equal(rh_run(r), 0);
	/* 40 at once, 1,000/s, 40 ms each */
	rh_restart(r);
	inside_run(r, 200, 5e6, 1000, 40e6);
	rh_expect(r, "worker_saturation", "tcp/8000");
	/* 40 at once, then 1: the load fell */
	rh_restart(r);
	inside_run(r, 200, 200e6, 200, 5e6);
	assert_int_equal(rh_run(r), 0);
}

/* memcached's 4 threads on one UDP socket, each timed from its own read to its own reply: every
 * datagram counted, no note; 3 read while all 8 entries were serving: the note, with the 3. */
RULES_TEST(test_udp_shared_paired)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		slot(s, 10e3, 2e3);
		s->slot[0].port = 11211;
		s->slot[0].udp = true;
		s->slot[0].udp_multi_reader_sockets = 1;
		s->slot[0].udp_reader_switches = 5400;
		s->slot[0].udp_readers = 8;
		s->slot[0].udp_unpaired = t == 2 ? 3 : 0;
		obs_snap_push(&r->h);
		if (t == 1) {
			rh_run(r);
			assert_null(obs_findings_find(&r->fs, "udp_shared_socket", NULL));
		}
	}
	rh_run(r);
	f = rh_expect(r, "udp_shared_socket", "udp/11211");
	assert_int_equal(rh_ev_int(f, "unpaired"), 3);
}

LL_TEST_MAIN_EACH(rh_setup, rh_teardown, test_served_elsewhere, test_served_elsewhere_readers,
	          test_worker_saturation,
	          test_cpu_saturation, test_cpu_saturation_onset, test_worker_saturation_onset,
	          test_cpu_or_workers_schedstat, test_fork_per_request,
	          test_fast_server_is_silent, test_count_notes, test_udp_shared_paired,
	          test_worker_saturation_inside,
	          test_pipelining_in_one_write,
	          test_pipelining_silent, test_pipelining_burst, test_pipelining_both_signs)
