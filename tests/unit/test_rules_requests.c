// SPDX-License-Identifier: MIT
/*
 * The findings rules (observer/rules/) on synthetic snapshots: saturation, the workers' or the
 * CPU's, from the socket queue, the run queue, the targets' schedstat, their forks, or a wait
 * inside the server. Each failure a rule must name, as a sick run that must fire and a healthy
 * one that must stay silent (test_rules_notes.c: the notes on what a count means). No root, no
 * kernel.
 */
#include "rules_harness.h"

/* An interval of requests waiting 80x their service time in the socket queue, with --runq's
 * wake-ups waiting 20 us: an idle CPU. */
static void workers_busy_cpu_idle(struct obs_snap *s, int t)
{
	rh_req_slot(s, 80e6, 1e6);
	rh_runq(s, 1000, 20e3, 90e3);
}

/* The workers named (worker_saturation on tcp/8000), never the CPU, their text holding TEXT. */
static void workers_not_cpu(struct run *r, const char *text)
{
	const struct obs_finding *f = rh_expect(r, "worker_saturation", "tcp/8000");

	assert_non_null(strstr(f->text, text));
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
}

/* Socket-queue wait 80x the service time: the workers are busy, named after 3 intervals. */
RULES_TEST(test_worker_saturation)
{
	const struct obs_finding *f;

	rh_req_slot(rh_snap(r, 1), 80e6, 1e6);
	rh_healthy(r);
	rh_req_slot(rh_snap(r, 2), 80e6, 1e6);
	f = rh_sick(r, "worker_saturation", "tcp/8000");
	assert_non_null(strstr(f->text, "80x"));
	assert_non_null(strstr(f->text, "add workers or reduce load"));
	assert_non_null(strstr(f->text, "--runq"));
	assert_int_equal(rh_ev_int(f, "port"), 8000);
	assert_int_equal(rh_ev_int(f, "queue_p50"), 80000000);
	/* with --runq and an idle CPU: said to be the workers, not the CPU */
	rh_intervals(r, 4, 6, workers_busy_cpu_idle);
	workers_not_cpu(r, "not the CPU");
}

/* The targets' schedstat over 2 intervals with requests queued (queue, service): threads waiting
 * and running on average, CPU time lost to steal or interrupts, CPUs, processes; a fresh run. */
struct cpu_seen {
	double queue, service, waiting, running, lost, queue_p90, busy;
	unsigned int cpus, procs, unread;
};

static void cpu_run(struct run *r, struct cpu_seen c)
{
	struct obs_snap *s;
	int t;

	rh_restart(r);
	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		rh_req_slot(s, c.queue, c.service);
		s->slot[0].queue_p90_ns = c.queue_p90;
		s->cpu_on = true;
		s->cpu_waiting = c.waiting;
		s->cpu_running = c.running;
		s->cpu_lost = c.lost;
		s->cpu_cpus = c.cpus;
		s->cpu_procs = c.procs;
		s->cpu_busy = c.busy;
		s->cpu_unread = c.unread;
		obs_snap_push(&r->h);
	}
}

/* The CPU named (cpu_saturation), never the workers: its finding. */
static const struct obs_finding *cpu_not_workers(struct run *r)
{
	const struct obs_finding *f = rh_expect(r, "cpu_saturation", "");

	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
	return f;
}

/* The CPU named, never the workers, its text holding TEXT: its finding. */
static const struct obs_finding *cpu_named(struct run *r, const char *text)
{
	const struct obs_finding *f = cpu_not_workers(r);

	assert_non_null(strstr(f->text, text));
	return f;
}

/* cpu_run(c): the CPU named, never the workers, in exactly TEXT; its finding. */
static const struct obs_finding *cpu_said(struct run *r, struct cpu_seen c, const char *text)
{
	const struct obs_finding *f;

	cpu_run(r, c);
	f = cpu_not_workers(r);
	assert_string_equal(f->text, text);
	return f;
}

/* cpu_run()'s newer interval with threads waiting and running on average instead, judged again */
static void cpu_newer(struct run *r, double waiting, double running)
{
	struct obs_snap *s = (struct obs_snap *)obs_snap_at(&r->h, 0);

	s->cpu_waiting = waiting;
	s->cpu_running = running;
	rh_run(r);
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

	f = cpu_said(r, (struct cpu_seen){.queue = 7.4e6, .service = 143e3, .waiting = 39.1,
					  .running = 0.98, .cpus = 1, .procs = 41},
		     "cpu: the server's processes wait for a CPU (40 runnable on 1 CPU: on average "
		     "39.1 of their threads waited on a run queue, 1.0 ran), and requests on "
		     "tcp/8000 wait 52x their service time in the socket queue (queue p50 7.4 ms, "
		     "service p50 143 us): more workers would not help; add CPUs, or reduce load or "
		     "what else runs there");
	assert_int_equal(rh_ev_int(f, "cpus"), 1);
	cpu_run(r, (struct cpu_seen){.queue = 80e6, .service = 1e6, .waiting = 0.02,
				     .running = 0.01, .cpus = 2, .procs = 1});
	workers_not_cpu(r, "their threads waited for a CPU 0.02 on average (0.01 ran): "
			   "not the CPU");
	/* 12 waiting in the newer interval only */
	cpu_run(r, (struct cpu_seen){.queue = 80e6, .service = 1e6, .waiting = 0.1, .running = 1,
				     .cpus = 1, .procs = 1});
	cpu_newer(r, 12, 1);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
	/* the same backends running 0.63 of their CPU: the hypervisor's steal took 0.30, which no
	 * thread could have: still the CPU; without that time counted, 0.63 of a whole CPU is not
	 * the server carrying it, but its threads waiting 33.5 for the rest is the CPU held by other
	 * work: the contended text, and no "add workers" */
	cpu_run(r, (struct cpu_seen){.queue = 6e6, .service = 100e3, .waiting = 33.5,
				     .running = 0.63, .lost = 0.30, .cpus = 1, .procs = 41});
	f = rh_expect(r, "cpu_saturation", "");
	assert_non_null(strstr(f->text, "33.5 of their threads waited on a run queue, 0.6 ran; 0.3 "
					"CPU stolen or in interrupts), and requests"));
	cpu_run(r, (struct cpu_seen){.queue = 6e6, .service = 100e3, .waiting = 33.5,
				     .running = 0.63, .cpus = 1, .procs = 41});
	cpu_named(r, "other work holds the CPUs");
	/* threads waiting while the server ran on a third of its 2 CPUs (others took them: a
	 * ramp of 100,000 connections from 5 drivers): not the server carrying its CPUs, but the
	 * CPUs all the same, held by other work; never "add workers" */
	f = cpu_said(r, (struct cpu_seen){.queue = 80e6, .service = 1e6, .waiting = 3.8,
					  .running = 0.6, .lost = 0.1, .cpus = 2, .procs = 21},
		     "cpu: requests on tcp/8000 wait 80x their service time in the socket queue "
		     "(queue p50 80.0 ms, service p50 1.0 ms) while the server's threads waited for "
		     "a CPU longer than they ran (on average 3.80 of them waited on a run queue, "
		     "0.60 ran, on 2 CPUs; 0.1 CPU stolen or in interrupts): other work holds the "
		     "CPUs, or a CPU quota throttles the server; more workers would not help: give "
		     "it CPUs (move or limit what else runs there, raise its quota) or reduce load");
	assert_true(json_is_true(json_object_get(f->evidence, "contended")));
	/* nginx's 2 workers beside 3 helpers' builds: 0.39 waiting, 0.19 running */
	cpu_run(r, (struct cpu_seen){.queue = 23e6, .service = 10e3, .waiting = 0.39,
				     .running = 0.19, .cpus = 2, .procs = 3});
	cpu_not_workers(r);
	/* a full pool whose threads ran more than they waited: the workers */
	cpu_run(r, (struct cpu_seen){.queue = 80e6, .service = 1e6, .waiting = 0.5, .running = 1.2,
				     .cpus = 2, .procs = 1});
	rh_expect(r, "worker_saturation", "tcp/8000");
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
	/* contended in the newer interval only (the older ran more than it waited): the workers,
	 * and the wait said, not denied */
	cpu_run(r, (struct cpu_seen){.queue = 80e6, .service = 1e6, .waiting = 0.02,
				     .running = 0.5, .cpus = 2, .procs = 1});
	cpu_newer(r, 0.8, 0.3);
	workers_not_cpu(r, "their threads also waited for a CPU 0.80 on average "
			   "(0.30 ran) this interval");
	/* slapd's 2 pool threads and its listener, all busy on its one CPU: 1.98 waiting, 0.95
	 * running (2.05 in the next interval; at a bar of 2.0 a dip under it named nothing): its
	 * own threads carry the CPU, never "other work holds the CPUs"; the same with its load
	 * begun in the middle of the older interval (1.47 waiting there, 1.67 in the newer) */
	cpu_run(r, (struct cpu_seen){.queue = 11e6, .service = 12e3, .waiting = 1.98,
				     .running = 0.95, .cpus = 1, .procs = 1});
	f = cpu_named(r, "cpu: the server's processes wait for a CPU (3 runnable on "
			 "1 CPU: on average 2.0 of their threads waited");
	assert_null(json_object_get(f->evidence, "contended"));
	cpu_run(r, (struct cpu_seen){.queue = 11e6, .service = 12e3, .waiting = 1.47,
				     .running = 0.88, .cpus = 1, .procs = 1});
	cpu_newer(r, 1.67, 0.98);
	f = cpu_not_workers(r);
	assert_null(json_object_get(f->evidence, "contended"));
	/* ... but not from the older interval alone: under one waiting a CPU in the newer */
	cpu_newer(r, 0.9, 0.98);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
	/* the same slapd on a slower VM: 1.29 waiting, 0.89 running as its load began, then 1.34
	 * and 0.98, under the bar of 1.5 in both; holding its CPU outright, one waiting thread is
	 * enough: the CPU, never "add workers" */
	cpu_run(r, (struct cpu_seen){.queue = 34e6, .service = 86e3, .waiting = 1.29,
				     .running = 0.89, .cpus = 1, .procs = 1});
	cpu_newer(r, 1.34, 0.98);
	cpu_named(r, "on average 1.3 of their threads waited");
	/* ... but at 0.89 running in both, short of holding the CPU outright, the bar is 1.5 */
	cpu_newer(r, 1.34, 0.89);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));
	/* a JVM's own compiler and collector threads, 1.2 waiting beside 0.55 running of the 0.6
	 * of its CPU the hypervisor left, requests queued 2 ms: neither the CPU nor the workers */
	cpu_run(r, (struct cpu_seen){.queue = 2e6, .service = 50e3, .waiting = 1.2,
				     .running = 0.55, .lost = 0.4, .cpus = 1, .procs = 1});
	rh_silent(r);
	/* threads that keep their CPU busy and wait as long as they run, under the bar (1.5
	 * waiting a CPU at 0.85 running; 1 at 0.95): the workers, the wait said, and no other work
	 * blamed */
	cpu_run(r, (struct cpu_seen){.queue = 80e6, .service = 1e6, .waiting = 1.4, .running = 0.85,
				     .cpus = 1, .procs = 1});
	workers_not_cpu(r, "their threads waited for a CPU 1.40 on average (0.85 "
			   "ran): not the CPU");
	cpu_run(r, (struct cpu_seen){.queue = 80e6, .service = 1e6, .waiting = 0.9, .running = 0.95,
				     .cpus = 1, .procs = 1});
	workers_not_cpu(r, "their threads waited for a CPU 0.90 on average (0.95 "
			   "ran): not the CPU");
	/* the load began in the middle of the older interval (nginx beside 12 hogs: 0.15 waiting,
	 * 0.05 running there; 0.85 and 0.14 in the newer): the CPU, from the first finding on */
	cpu_run(r, (struct cpu_seen){.queue = 45e6, .service = 4e3, .waiting = 0.15,
				     .running = 0.05, .cpus = 1, .procs = 1});
	cpu_newer(r, 0.85, 0.14);
	cpu_not_workers(r);
}

/*
 * PostgreSQL pinned to one CPU with 80 backends and the default --max-procs 64: the 22 past it
 * are alive and not read, so the watched ran 0.72 of the CPU with 56 waiting. The CPU was busy
 * all the same (/proc/stat: 0.99 not idle): the server carries it, its text saying what was not
 * read. Nothing with everything read (the watched are the whole: 0.72 is what the server ran,
 * and a 2 ms queue is under the contended reading's floor), nor where the CPU was not busy
 * either (0.70), nor where /proc/stat was not read (busy < 0), nor where the CPU was busy and
 * the watched hardly waited. The CPUs' busy time never lowers what the watched ran.
 */
RULES_TEST(test_cpu_unread_processes)
{
	const struct obs_finding *f;
	struct cpu_seen pg = {.queue = 2.1e6, .service = 15e3, .waiting = 56, .running = 0.72,
			      .cpus = 1, .procs = 64, .unread = 22, .busy = 0.99};

	f = cpu_said(r, pg,
		     "cpu: the server's processes wait for a CPU (57 runnable on 1 CPU: on average "
		     "56.0 of their threads waited on a run queue, 0.7 ran; those of the 64 "
		     "processes watched, 22 more past --max-procs: the CPUs were 99% busy), and "
		     "requests on tcp/8000 wait 140x their service time in the socket queue (queue "
		     "p50 2.1 ms, service p50 15 us): more workers would not help; add CPUs, or "
		     "reduce load or what else runs there");
	assert_int_equal(rh_ev_int(f, "unread"), 22);
	assert_null(json_object_get(f->evidence, "contended"));
	/* everything read; the CPU 0.70 busy; /proc/stat unread; the CPU busy (other work beside
	 * the server) but the watched hardly waiting: 0.3 is under any bar, so the busy time names
	 * nothing, nor the workers (a 2 ms queue) */
	const struct {
		unsigned int unread;
		double busy, waiting;
	} quiet[] = {{0, 0.99, 56}, {22, 0.70, 56}, {22, -1, 56}, {22, 1.0, 0.3}};
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		pg.unread = quiet[i].unread;
		pg.busy = quiet[i].busy;
		pg.waiting = quiet[i].waiting;
		cpu_run(r, pg);
		rh_silent(r);
	}
	pg.unread = 22;
	pg.waiting = 56;
	/* 1.0 ran of 2 CPUs (half each): busy 0.5 by /proc/stat's ticks is less, the watched count */
	pg.cpus = 2;
	pg.running = 1.6;
	pg.busy = 0.5;
	cpu_run(r, pg);
	cpu_named(r, "1.6 ran; those of the 64 processes watched");
}

/* cpu_run(c)'s history, then one interval more with its threads waiting and running so */
static void cpu_then(struct run *r, double waiting, double running)
{
	const struct obs_snap *last = obs_snap_at(&r->h, 0);
	double t = last->t + 1;
	struct obs_snap *s = rh_snap(r, t);

	*s = *last;
	s->t = t;
	s->cpu_waiting = waiting;
	s->cpu_running = running;
	obs_snap_push(&r->h);
}

/*
 * Waits that reached the bar and then dipped under it. While they stay at half of it (0.9
 * waiting on 1 CPU after 1.6), the queue is still the CPU's, named (it had been nobody's: the
 * CPU's finding wanted 2 intervals at the bar, the workers' none lately). Once they fell to 0.3
 * while the queue held, the workers, "not the CPU"; with no queue, silent.
 */
RULES_TEST(test_cpu_waits_dip)
{
	struct cpu_seen busy = {.queue = 11e6, .service = 12e3, .waiting = 1.6, .running = 0.95,
				.cpus = 1, .procs = 1};

	cpu_run(r, busy);
	cpu_then(r, 0.9, 0.95);
	cpu_then(r, 0.9, 0.95);
	cpu_named(r, "on average 0.9 of their threads waited on a run queue");
	cpu_run(r, busy);
	cpu_then(r, 0.3, 0.95);
	cpu_then(r, 0.3, 0.95);
	workers_not_cpu(r, "waited for a CPU 0.30 on average (0.95 ran): not the CPU");
	busy.queue = 20e3;
	cpu_run(r, busy);
	cpu_then(r, 0.3, 0.95);
	cpu_then(r, 0.3, 0.95);
	rh_silent(r);
}

/* cpu_run(c), then the interval its load stopped in: REQUESTS completed (of 500 an interval),
 * still queued, the threads idle or gone (0.23 waiting, none running) */
static void cpu_load_stopped(struct run *r, struct cpu_seen c, uint64_t requests)
{
	cpu_run(r, c);
	cpu_then(r, 0.23, 0);
	((struct obs_snap *)obs_snap_at(&r->h, 0))->slot[0].requests = requests;
}

/*
 * The load stopped while the CPU held its queue (PostgreSQL pinned to one CPU, 39 backends
 * waiting; then 0.23 and none running as they exited with pgbench, its last 40 requests queued
 * 7.4 ms): what waited had queued while the CPU was named, no workers' queue. Where the interval
 * completed as many as before (400 of 500), the waits fell while requests kept queuing: the
 * workers, "not the CPU".
 */
RULES_TEST(test_cpu_queue_drained)
{
	struct cpu_seen pg = {.queue = 7.4e6, .service = 142e3, .waiting = 39, .running = 1,
			      .cpus = 1, .procs = 41};
	const struct obs_finding *f;

	cpu_load_stopped(r, pg, 40);
	rh_silent(r);
	cpu_load_stopped(r, pg, 250);
	rh_silent(r);
	cpu_load_stopped(r, pg, 400);
	f = rh_expect(r, "worker_saturation", "tcp/8000");
	assert_non_null(strstr(f->text, "waited for a CPU 0.23 on average (0.00 ran): not the CPU"));
}

/*
 * A server that other work lets run in turns (nginx at nice 10 beside 12 hogs on its one CPU):
 * the requests that come while it runs are served at once, the rest wait a turn, so its median
 * stays under the workers' 5 ms while its p90 is 450 ms. With its threads waiting 0.9 and running
 * 0.008: the CPU held by other work, from the p90. Silent: the same p90 from a server that ran
 * more than it waited (a p90 alone is no worker pool's queue), a p90 of 3.7 ms, and contention in
 * the newer interval only.
 */
RULES_TEST(test_cpu_in_turns)
{
	struct cpu_seen turns = {.queue = 450e3, .queue_p90 = 450e6, .service = 1.2e3,
				 .waiting = 0.9, .running = 0.008, .cpus = 1, .procs = 1};
	const struct obs_finding *f;

	f = cpu_said(r, turns,
		     "cpu: requests on tcp/8000 wait for the server's turns on the CPU: a tenth "
		     "375000x their service time or more (queue p90 450.0 ms, p50 450 us; service "
		     "p50 1 us) while "
		     "the server's threads waited for a CPU longer than they ran (on average 0.90 of "
		     "them waited on a run queue, 0.01 ran, on 1 CPU): other work holds the CPUs, "
		     "or a CPU quota throttles the server; more workers would not help: give it CPUs "
		     "(move or limit what else runs there, raise its quota) or reduce load");
	assert_true(json_is_true(json_object_get(f->evidence, "contended")));
	assert_true(json_is_true(json_object_get(f->evidence, "in_turns")));
	assert_int_equal(rh_ev_int(f, "queue_p90"), 450000000);
	/* its longest text (a CPU lost to steal as well, 7 digits a figure) fits whole */
	cpu_run(r, (struct cpu_seen){.queue = 4500e3, .queue_p90 = 4500e6, .service = 1.2e3,
				     .waiting = 12.9, .running = 0.008, .lost = 0.3, .cpus = 64,
				     .procs = 1});
	cpu_named(r, "raise its quota) or reduce load");
	/* the same queue while the threads ran more than they waited */
	cpu_run(r, (struct cpu_seen){.queue = 450e3, .queue_p90 = 450e6, .service = 1.2e3,
				     .waiting = 0.02, .running = 0.5, .cpus = 1, .procs = 1});
	rh_silent(r);
	/* a tenth waiting 3.7 ms under the same contention: under the floor */
	turns.queue_p90 = 3.7e6;
	cpu_run(r, turns);
	rh_silent(r);
	/* contended in the newer interval only */
	turns.queue_p90 = 450e6;
	cpu_run(r, turns);
	((struct obs_snap *)obs_snap_at(&r->h, 1))->cpu_running = 1.0;
	rh_silent(r);
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
			rh_req_slot(s, 5.6e6, 143e3);
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

/* An interval of requests waiting 30x their service time in the socket queue while --runq's
 * wake-ups wait 8 ms for a CPU. */
static void cpu_busy(struct obs_snap *s, int t)
{
	rh_req_slot(s, 30e6, 1e6);
	rh_runq(s, 1000, 8e6, 40e6);
}

RULES_TEST(test_cpu_saturation)
{
	const struct obs_finding *f;

	rh_intervals(r, 1, 2, cpu_busy);
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
	rh_req_slot(s, 2e6, 5e6);
	s->slot[0].queue_p90_ns = 60e6;
	obs_snap_push(&r->h);
	s = rh_snap(r, 2);
	rh_req_slot(s, 300e6, 5e6);
	s->slot[0].queue_p90_ns = 320e6;
	obs_snap_push(&r->h);
	rh_expect(r, "worker_saturation", "tcp/8000");

	s = rh_snap(r, 3);
	rh_req_slot(s, 2e6, 5e6);
	s->slot[0].queue_p90_ns = 60e6;
	obs_snap_push(&r->h);
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "worker_saturation", NULL));
}

/* A load that began late in an interval: that interval has too few wake-ups to judge, so the
 * next alone decides, on twice the minimum; an older interval seen low still vetoes. */
RULES_TEST(test_cpu_saturation_onset)
{
	const struct obs_finding *f;

	rh_runq(rh_snap(r, 1), 3, 2e6, 4 * 2e6); /* the load began late in it: 3 wake-ups */
	obs_snap_push(&r->h);
	rh_runq(rh_snap(r, 2), 40, 3e6, 4 * 3e6);
	f = rh_sick(r, "cpu_saturation", NULL);
	assert_non_null(strstr(f->text, "this interval"));

	/* 15 of 20 needed alone, but the one before held */
	rh_runq(rh_snap(r, 3), 15, 3e6, 4 * 3e6);
	f = rh_sick(r, "cpu_saturation", NULL);
	assert_non_null(strstr(f->text, "over the last intervals"));

	rh_runq(rh_snap(r, 4), 500, 20e3, 4 * 20e3); /* judged and low */
	obs_snap_push(&r->h);
	rh_runq(rh_snap(r, 5), 40, 3e6, 4 * 3e6);
	obs_snap_push(&r->h);
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "cpu_saturation", NULL));

	rh_runq(rh_snap(r, 6), 3, 2e6, 4 * 2e6);
	obs_snap_push(&r->h);
	rh_runq(rh_snap(r, 7), 15, 3e6, 4 * 3e6); /* too few to decide alone */
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
		rh_req_slot(rh_snap(r, t), 20e3, 1e3);
		rh_healthy(r);
	}
	for (t = 7; t <= 12; t++) {
		rh_req_slot(rh_snap(r, t), 563e3, 52e3);
		rh_healthy(r);
	}
}

/* Intervals 1-3 at (rate1 a second, service1), then 4-5 at (rate2, service2), no socket queue. */
static void inside_run(struct run *r, double rate1, double service1, double rate2, double service2)
{
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 5; t++) {
		s = rh_snap(r, t * 0.5);
		s->dt = 0.5;
		rh_req_slot(s, 20e3, t <= 3 ? service1 : service2);
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

LL_TEST_MAIN_EACH(rh_setup, rh_teardown, test_worker_saturation, test_cpu_saturation,
		  test_cpu_unread_processes,
	          test_cpu_saturation_onset, test_worker_saturation_onset,
	          test_cpu_or_workers_schedstat, test_cpu_waits_dip, test_cpu_queue_drained, test_cpu_in_turns, test_fork_per_request, test_fast_server_is_silent,
	          test_worker_saturation_inside)
