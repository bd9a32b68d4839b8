// SPDX-License-Identifier: MIT
/*
 * The findings rules (observer/rules/) on synthetic snapshots: ports, TIME_WAIT, FIN_WAIT2,
 * CLOSE_WAIT, listen queues, file handles. Each failure a rule must name, as a sick run that
 * must fire and a healthy one that must stay silent. No root, no kernel.
 */
#include "rules_harness.h"

/* -c 16 keep-alive: 16 connections close at the end, 16 sockets in TIME_WAIT. */
RULES_TEST(test_keepalive_end_is_silent)
{
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 10; t++) {
		s = rh_census(r, t);
		s->accepted = t == 1 ? 16 : 0;
		s->state[OBS_SNAP_ESTABLISHED] = 32;
		rh_group(s, 16, 0, 0, true);
		rh_proc(s, 100, 40, 1024);
		rh_healthy(r);
	}
	s = rh_census(r, 10.5);
	s->final = true;
	s->dt = 0.5;
	s->tw_entries = 62; /* 16 in half a second: "62/s at the peak" */
	s->state[OBS_SNAP_TIME_WAIT] = 16;
	rh_group(s, 16, 16, 0, true);
	rh_proc(s, 100, 24, 1024);
	rh_healthy(r);
}

/* A census of port 8080 with 400 sockets in FIN_WAIT2, 3 of them old: a client that closes at a
 * high rate, none of them for long. */
static void fin_wait2_brief(struct obs_snap *s, int t)
{
	s->census = true;
	s->state[OBS_SNAP_FIN_WAIT2] = 400;
	s->fin_wait2_old = 3;
	rh_port(s, (struct obs_snap_port){.port = 8080, .fin_wait2 = 400, .fin_wait2_old = 3});
}

/* Census t of port 8080 with 60 more FIN_WAIT2 orphans each second, the earlier censuses' old. */
static void fin_wait2_orphans(struct obs_snap *s, int t)
{
	s->census = true;
	s->tw_entries = 60; /* what FIN_WAIT2 -> CLOSE looks like from the state tracepoint */
	s->state[OBS_SNAP_FIN_WAIT2] = 60 * t;
	s->fin_wait2_old = 60 * (t - 1);
	rh_port(s, (struct obs_snap_port){.port = 8080, .fin_wait2 = 60 * t,
					  .fin_wait2_old = 60 * (t - 1)});
	rh_group(s, 60 * t, 0, 60 * t, true);
}

/* A CLOSE_WAIT leak on the server: the client holds 600 orphans in FIN_WAIT2, 0 in TIME_WAIT. */
RULES_TEST(test_fin_wait2_is_not_time_wait)
{
	const struct obs_finding *f = rh_healthy_then_sick(r, fin_wait2_brief, 10, fin_wait2_orphans,
							  10, "fin_wait2_orphans", "port 8080");

	assert_int_equal(rh_ev_int(f, "count"), 600);
	assert_int_equal(rh_ev_int(f, "port"), 8080);
	assert_non_null(strstr(f->text, "600 connections on port 8080 closed by this side wait in "
					"FIN_WAIT2 for a peer that never closes; they are freed after "
					"tcp_fin_timeout (60 s)"));
	assert_null(strstr(f->text, "TIME_WAIT"));
	assert_null(obs_findings_find(&r->fs, "time_wait", NULL));
	assert_null(obs_findings_find(&r->fs, "port_exhaustion", NULL)); /* 2% of the range */
}

/* Census t of nginx's port 80 under Connection: close churn, 17,000 a second, 17,641 in TIME_WAIT
 * on the server's side. */
static void server_time_wait(struct obs_snap *s, int t)
{
	s->census = true;
	s->accepted = 17000;
	s->tw_entries = t == 5 ? 178889 / 3 : 17000; /* a one-second peak */
	s->state[OBS_SNAP_TIME_WAIT] = 17641;
	rh_port(s, (struct obs_snap_port){.port = 80, .time_wait = 17641, .server_side = true});
}

/* Connection: close churn against nginx: the server holds 17,641 in TIME_WAIT; no client here. */
RULES_TEST(test_server_time_wait_costs_no_ports)
{
	const struct obs_finding *f;
	struct obs_snap *s;

	rh_healthy_intervals(r, 1, 10, server_time_wait);
	/* it costs memory once near tcp_max_tw_buckets: then said so, as memory */
	s = rh_census(r, 11);
	s->max_tw_buckets = 20000;
	s->state[OBS_SNAP_TIME_WAIT] = 17641;
	rh_port(s, (struct obs_snap_port){.port = 80, .time_wait = 17641, .server_side = true});
	f = rh_sick(r, "time_wait", NULL);
	assert_non_null(strstr(f->text, "MB of kernel memory"));
	assert_non_null(strstr(f->text, "not ports"));
	assert_null(strstr(f->text, "ephemeral"));
	assert_null(obs_findings_find(&r->fs, "port_exhaustion", NULL));
}

/* 300 ports, 300 connections/s succeed, all closed into TIME_WAIT: reused with tcp_tw_reuse. */
static void tw_reuse_run(struct run *r, int reuse, bool loopback)
{
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 6; t++) {
		s = rh_snap(r, t);
		s->tw_reuse = reuse;
		s->range = 300;
		s->census = true;
		s->tw_entries = 300;
		s->state[OBS_SNAP_TIME_WAIT] = 300;
		rh_group(s, 300, 298, 0, loopback);
		obs_snap_push(&r->h);
	}
}

RULES_TEST(test_tw_reuse_honoured)
{
	const struct obs_finding *f;

	tw_reuse_run(r, 2, true); /* the default, on loopback */
	rh_silent(r);
	rh_restart(r);
	tw_reuse_run(r, 1, false);
	rh_silent(r);
	rh_restart(r);
	tw_reuse_run(r, 2, false); /* 2 is loopback only */
	f = rh_expect(r, "port_exhaustion", "10.0.0.2 -> 10.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_WARNING);
	assert_int_equal(rh_ev_int(f, "in_use"), 300);
	assert_non_null(strstr(f->text, "tcp_tw_reuse 2"));
	rh_restart(r);
	tw_reuse_run(r, 0, true);
	f = rh_expect(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(rh_ev_int(f, "range"), 300);
	assert_int_equal(rh_ev_int(f, "pct"), 100);
}

/* Census t of a loopback port group under 2% pressure, growing to 4% (62 more a second). */
static void ports_2_to_4_pct(struct obs_snap *s, int t)
{
	rh_ports_in(s, 0, 300 + 62 * t, 62 * t);
	s->tw_entries = 62;
}

/* A census of a loopback port group under 13% pressure, flat. */
static void ports_13_pct(struct obs_snap *s, int t)
{
	rh_ports_in(s, 0, 3670, 3600);
}

/* Census t of a loopback port group past half the range and growing by 1,000 a second. */
static void ports_growing(struct obs_snap *s, int t)
{
	rh_ports_in(s, 0, 15000 + 1000 * t, 14000 + 1000 * t);
}

/* Pressure of 2% and 13%, growing: no advice, no forecast 448 s ahead. */
RULES_TEST(test_low_port_pressure_is_silent)
{
	rh_healthy_intervals(r, 1, 12, ports_2_to_4_pct);
	rh_restart(r);
	rh_healthy_intervals(r, 1, 12, ports_13_pct);
}

/* Sick: ports past half the range and growing, then connect() failing. */
RULES_TEST(test_port_exhaustion_forecast_and_failures)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	rh_intervals(r, 1, 5, ports_growing);
	f = rh_expect(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_WARNING);
	assert_non_null(strstr(f->text, "full in ~8 s at +1000/s"));
	assert_non_null(strstr(f->text, "TIME_WAIT"));
	assert_int_equal(rh_ev_int(f, "dport"), 8080);
	s = rh_ports(r, 6, 0, 28232, 28000);
	rh_connect_failed(s, 312);
	f = rh_sick(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
	assert_int_equal(rh_ev_int(f, "failures"), 312);
	assert_non_null(strstr(f->text, "EADDRNOTAVAIL 312 times"));
	/* failures after the last census went out of the rules' window (censuses are spaced):
	 * still the group that ran out, under its key, not a second finding */
	for (t = 7; t <= 12; t++) {
		s = rh_snap(r, t);
		s->tw_reuse = 0;
		rh_connect_failed(s, 90);
		rh_pushed(r);
		assert_int_equal(r->fs.n, 1);
		f = rh_expect(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
		assert_int_equal(f->severity, OBS_SEV_CRITICAL);
		assert_int_equal(rh_ev_int(f, "failures"), 90);
	}
	/* failures where no census has seen a connecting side: still named, and said so */
	rh_restart(r);
	s = rh_snap(r, 1);
	s->fails[OBS_SNAP_EADDRNOTAVAIL] = 5;
	f = rh_sick(r, "port_exhaustion", NULL);
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
	assert_non_null(strstr(f->text, "no census has named the connecting side yet"));
	s = rh_census(r, 2);
	s->range = 28232;
	s->fails[OBS_SNAP_EADDRNOTAVAIL] = 1;
	f = rh_sick(r, "port_exhaustion", NULL);
	assert_non_null(strstr(f->text, "EADDRNOTAVAIL 1 time (1/s; 1 since the start)"));
	assert_non_null(strstr(f->text, "no census found the connecting sockets"));
}

/*
 * tcp_tw_reuse 2 on loopback, 300 ports, all in TIME_WAIT, connect() failing: the cause
 * is TIME_WAIT taken back only once 1 s old (not FIN_WAIT2 orphans, of which the census saw
 * none); the finding names the process whose connect() failed, with its own count.
 */
RULES_TEST(test_port_cause_follows_census_and_names_process)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	json_t *p;
	int t;

	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		s->tw_reuse = 2;
		s->range = 300;
		s->census = true;
		s->fails[OBS_SNAP_EADDRNOTAVAIL] = 200;
		s->fails_total[OBS_SNAP_EADDRNOTAVAIL] = 200 * (uint64_t)t;
		s->fails_sys[OBS_SNAP_EADDRNOTAVAIL] = "connect";
		s->nportfail = 1;
		s->portfail[0].pid = 4242;
		snprintf(s->portfail[0].comm, sizeof(s->portfail[0].comm), "haproxy");
		s->portfail[0].total = 200 * (uint64_t)t;
		rh_group(s, 300, 300, 0, true);
		obs_snap_push(&r->h);
	}
	f = rh_expect(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
	assert_null(strstr(f->text, "FIN_WAIT2"));
	assert_non_null(strstr(f->text, "300 of 300 ports in use (300 in TIME_WAIT)"));
	assert_non_null(strstr(f->text, "tcp_tw_reuse 2 lets a connect() take once it is 1 s old"));
	assert_non_null(strstr(f->text, "400 since the start, in haproxy (pid 4242: 400)"));
	p = json_array_get(json_object_get(f->evidence, "processes"), 0);
	assert_int_equal(json_integer_value(json_object_get(p, "pid")), 4242);
	assert_string_equal(json_string_value(json_object_get(p, "comm")), "haproxy");
	assert_int_equal(json_integer_value(json_object_get(p, "failures")), 200);
	assert_int_equal(json_integer_value(json_object_get(p, "failures_total")), 400);
	/* FIN_WAIT2 advice only where orphans hold the ports */
	rh_restart(r);
	s = rh_snap(r, 1);
	s->tw_reuse = 2;
	s->range = 300;
	s->census = true;
	s->fails[OBS_SNAP_EADDRNOTAVAIL] = 7;
	rh_group(s, 300, 10, 290, true);
	f = rh_sick(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_non_null(strstr(f->text, "most are FIN_WAIT2 orphans"));
	assert_non_null(strstr(f->text, "290 of 300 ports held"));
}

/* The evidence's holders object, and its processes[i]. */
static json_t *holder_ev(const struct obs_finding *f, size_t i)
{
	return json_array_get(json_object_get(json_object_get(f->evidence, "holders"),
					      "processes"), i);
}

/*
 * A client that leaks its connections holds 900 of 1,000 ports, the driver's connect()
 * fails: the finding names the leaker (pid, name, how many, that it reads none of them: the
 * server's answers wait in their receive queues) and the server it holds them to, as well as
 * the process whose connect() fails; the rest of the holders summed.
 */
RULES_TEST(test_port_exhaustion_names_holders)
{
	struct obs_snap_holder *q;
	const struct obs_finding *f;
	struct obs_snap_proc *p;
	struct obs_snap *s;
	json_t *h;

	s = rh_ports(r, 1, 2, 1000, 0);
	s->range = 1000;
	rh_connect_failed(s, 40);
	s->nportfail = 1;
	s->portfail[0].pid = 43;
	snprintf(s->portfail[0].comm, sizeof(s->portfail[0].comm), "loadlens-driver");
	s->portfail[0].total = 40;
	p = rh_proc(s, 7, 950, 20000); /* the server, watched (--pid) */
	snprintf(p->comm, sizeof(p->comm), "java");
	q = rh_holder(s, 1, 1000, 42, "python3", 900);
	q->unread = q->never_read = 900;
	q->unread_bytes = 106200;
	rh_holder(s, 1, 1000, 43, "loadlens-driver", 90);
	rh_holder(s, 1, 1000, 44, "curl", 4);
	rh_holder(s, 1, 1000, 45, "curl", 2);
	s->holders.more = 2;
	s->holders.more_conns = 3;
	s->holders.server_pid = 7;
	snprintf(s->holders.server_comm, sizeof(s->holders.server_comm), "java");
	f = rh_sick(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
	assert_non_null(strstr(f->text, "pid 42 (python3) holds 900 connections to this server "
					"(java, pid 7) and reads none (106,200 bytes wait in their "
					"receive queues); pid 43 (loadlens-driver) 90, 4 more "
					"processes 9"));
	assert_non_null(strstr(f->text, "in loadlens-driver (pid 43: 40)"));
	assert_true(strlen(f->text) < sizeof(f->text) - 1); /* not cut */
	h = holder_ev(f, 0);
	assert_int_equal(json_integer_value(json_object_get(h, "pid")), 42);
	assert_string_equal(json_string_value(json_object_get(h, "comm")), "python3");
	assert_int_equal(json_integer_value(json_object_get(h, "connections")), 900);
	assert_int_equal(json_integer_value(json_object_get(h, "never_read")), 900);
	assert_int_equal(json_integer_value(json_object_get(h, "unread_bytes")), 106200);
	h = json_object_get(f->evidence, "holders");
	assert_int_equal(json_integer_value(json_object_get(h, "other_processes")), 2);
	assert_int_equal(json_integer_value(json_object_get(h, "other_connections")), 3);
	assert_int_equal(json_integer_value(json_object_get(h, "unheld")), 1); /* 1000 - 999 */
	assert_true(json_is_true(json_object_get(json_object_get(h, "server"), "watched")));

	/* a warning (90% held, no failure yet), the server not here (remote): "of them"; a
	 * holder that leaves most of its connections unread, one that only holds idle ones */
	rh_restart(r);
	s = rh_ports(r, 1, 2, 900, 0);
	s->range = 1000;
	q = rh_holder(s, 1, 900, 42, "python3", 900);
	q->unread = 600;
	q->unread_bytes = 600;
	f = rh_sick(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_int_equal(f->severity, OBS_SEV_WARNING);
	assert_non_null(strstr(f->text, "(90%); pid 42 (python3) holds 900 of them and leaves 600 "
					"of them unread (600 bytes in their receive queues); most"));
	assert_true(json_is_null(json_object_get(json_object_get(f->evidence, "holders"),
						 "server")));
	rh_restart(r);
	s = rh_ports(r, 1, 2, 900, 0);
	s->range = 1000;
	q = rh_holder(s, 1, 900, 42, "python3", 900);
	q->idle = 900;
	f = rh_sick(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_non_null(strstr(f->text, "holds 900 of them, idle (no byte sent or received on "
					"them); most"));

	/* holders counted for another group, or too long ago, name no one */
	rh_restart(r);
	s = rh_ports(r, 1, 2, 900, 0);
	s->range = 1000;
	rh_holder(s, 1, 900, 42, "python3", 900);
	s->holders.of.dport = 9090;
	f = rh_sick(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_null(strstr(f->text, "python3"));
	assert_true(json_is_null(json_object_get(f->evidence, "holders")));
	rh_restart(r);
	s = rh_ports(r, 20, 2, 900, 0);
	s->range = 1000;
	rh_holder(s, 5, 900, 42, "python3", 900);
	f = rh_sick(r, "port_exhaustion", "127.0.0.1 -> 127.0.0.1:8080");
	assert_null(strstr(f->text, "python3"));
}

/* A census with 40 sockets in CLOSE_WAIT, 2 of them old: the application closes a moment later. */
static void close_wait_transient(struct obs_snap *s, int t)
{
	s->census = true;
	s->state[8] = 40;
	s->close_wait_old = 2;
}

/* Census t of port 8080 with 20 more sockets in CLOSE_WAIT each second, never closed by pid 777,
 * which holds one more fd for each. */
static void close_wait_leaked(struct obs_snap *s, int t)
{
	s->census = true;
	s->state[8] = 20 * t;
	rh_port(s, (struct obs_snap_port){.port = 8080, .close_wait = 20 * t,
					  .close_wait_old = 20 * (t - 1), .server_side = true});
	rh_proc(s, 777, 30 + 20 * t, 4096);
}

RULES_TEST(test_close_wait_leak)
{
	/* transient CLOSE_WAIT (the application closes a moment later, none of them old), then a
	 * leak */
	const struct obs_finding *f = rh_healthy_then_sick(r, close_wait_transient, 6,
							  close_wait_leaked, 4, "close_wait_leak",
							  "port 8080");

	assert_int_equal(rh_ev_int(f, "count"), 80);
	assert_int_equal(rh_ev_int(f, "old"), 60);
	assert_int_equal(rh_ev_int(f, "pid"), 777);
}

RULES_TEST(test_listen_overflow_and_files)
{
	const struct obs_finding *f;
	struct obs_snap *s = rh_snap(r, 1);

	s->listen_overflows = 40; /* another listener's: no sign on the target's */
	s->listen_port = 8080;
	rh_healthy(r);
	s = rh_snap(r, 2);
	s->listen_overflows = 40;
	s->listen_target_full = 12;
	s->listen_port = 8080;
	s->listen_backlog = 8;
	s->listen_qlen_max = 9;
	s->fails[OBS_SNAP_ENFILE] = 3;
	s->fails_sys[OBS_SNAP_ENFILE] = "openat";
	f = rh_sick(r, "listen_overflow", "port 8080");
	assert_int_equal(rh_ev_int(f, "overflows"), 40);
	assert_int_equal(rh_ev_int(f, "backlog"), 8);
	f = rh_expect(r, "system_fds", NULL);
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
}

LL_TEST_MAIN_EACH(rh_setup, rh_teardown, test_keepalive_end_is_silent,
	          test_fin_wait2_is_not_time_wait, test_server_time_wait_costs_no_ports,
	          test_tw_reuse_honoured, test_low_port_pressure_is_silent,
	          test_port_cause_follows_census_and_names_process,
	          test_port_exhaustion_forecast_and_failures, test_port_exhaustion_names_holders,
	          test_close_wait_leak,
	          test_listen_overflow_and_files)
