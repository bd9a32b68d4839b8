// SPDX-License-Identifier: MIT
/*
 * What the observer derives from one interval's snapshots (observer/features/feature.h, struct
 * obs_tick) rather than from a feature's internals: the syscall tier's sign of exhaustion
 * (observer/features/pressure.c, obs_pressure), the live line's columns
 * (observer/output/summary.c, obs_summary_live_line), and when the next read phase walks the
 * census (observer/sources/tick_reader.c, obs_census_plan_due). Synthetic snapshots; no root, no
 * kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ll_test.h"
#include "features/connections.h"
#include "features/failures.h"
#include "features/netstat.h"
#include "features/processes.h"
#include "output/status_live.h"
#include "output/summary.h"
#include "features/sockstat.h"
#include "features/pressure.h"
#include "kernel/systier.h"
#include "sources/tick_reader.h"

struct snaps {
	struct obs_connections_snap conn;
	struct obs_failures_snap fail;
	struct obs_sockstat_snap ss;
	struct obs_processes_snap procs;
	struct obs_netstat_snap ns;
	struct obs_tick tk;
};

/* A healthy interval: a census, fds at 10%, ports at 1%, no failure, no overflow. */
static struct snaps *healthy(void)
{
	struct snaps *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->ss.census_on = s->ss.have_census = s->ss.fresh = true;
	s->ss.cs.state[OBS_TCP_ESTABLISHED] = 12;
	s->ss.cs.state[OBS_TCP_TIME_WAIT] = 30;
	s->ss.cs.state[OBS_TCP_CLOSE_WAIT] = 2;
	s->ss.cs.listen_backlog = 511;
	s->ss.cs.listen_qlen_max = 3;
	s->ss.ports.range = 28232;
	s->ss.ports.pct = 1.0;
	s->ss.tw_rate = 15;
	s->procs.fd_pct = 10;
	s->procs.have_files = true;
	s->procs.file_nr = 1000;
	s->procs.file_max = 100000;
	s->conn.delta.ctr[OBS_CTR_ACCEPTED] = 20;
	s->conn.total.ctr[OBS_CTR_ACCEPTED] = 200;
	s->tk = (struct obs_tick){.t = 2, .dt = 2, .conn = &s->conn, .fail = &s->fail,
				  .sockstat = &s->ss, .procs = &s->procs, .netstat = &s->ns};
	return s;
}

static void test_healthy_has_no_pressure(void **state)
{
	struct snaps *s = healthy();

	(void)state;
	assert_null(obs_pressure(&s->tk));
	/* a feature whose read failed publishes nothing: no sign from it, no crash */
	s->tk.fail = NULL;
	s->tk.procs = NULL;
	s->tk.netstat = NULL;
	assert_null(obs_pressure(&s->tk));
	free(s);
}

static void test_each_sign(void **state)
{
	struct snaps *s = healthy();

	(void)state;
	s->procs.fd_pct = 50;
	assert_string_equal(obs_pressure(&s->tk), "fds past half their limit");
	s->procs.fd_pct = 10;
	s->procs.file_nr = 50000;
	assert_string_equal(obs_pressure(&s->tk), "open files past half of fs.file-max");
	s->procs.have_files = false; /* fs.file-nr unread: no sign from a stale figure */
	assert_null(obs_pressure(&s->tk));
	s->ss.ports.pct = 50;
	assert_string_equal(obs_pressure(&s->tk), "ephemeral ports past half the range");
	s->ss.ports.pct = 1;
	s->fail.sys[OBS_SYS_CONNECT][OBS_FAIL_EADDRNOTAVAIL] = 1;
	assert_string_equal(obs_pressure(&s->tk),
			    "syscalls failing for want of ports or fds");
	s->fail.sys[OBS_SYS_CONNECT][OBS_FAIL_EADDRNOTAVAIL] = 0;
	s->fail.sys[OBS_SYS_BIND][OBS_FAIL_EADDRINUSE] = 5; /* not a want of ports or fds */
	assert_null(obs_pressure(&s->tk));
	s->ns.overflows_drops = 1;
	assert_string_equal(obs_pressure(&s->tk), "listen overflows or drops");
	s->ns.overflows_drops = 0;
	assert_false(obs_pressure_queue_building(&s->tk)); /* 3 of 511 */
	s->ss.cs.listen_qlen_max = 128;
	assert_null(obs_pressure(&s->tk));
	assert_true(obs_pressure_queue_building(&s->tk)); /* the stamps' lead: a quarter */
	s->ss.cs.listen_qlen_max = 256;
	assert_string_equal(obs_pressure(&s->tk), "accept queue past half its backlog");
	s->ss.cs.listen_backlog = 0; /* no listener seen: no sign */
	assert_false(obs_pressure_queue_building(&s->tk));
	free(s);
}

static char *test_observer_tick_line(const struct obs_tick *tk)
{
	struct ll_text t;

	assert_int_equal(obs_summary_live_line(ll_text_open(&t), tk), 0);
	return ll_text_close(&t);
}

/* The columns after the connection counters: ESTAB TW CLS/S CLOSEW PORT% FD% FAIL/S. */
static void test_live_columns(void **state)
{
	struct snaps *s = healthy();
	char *line;

	(void)state;
	s->fail.fails = 8;
	/* a census this interval: its counts, not the live ones */
	s->ss.live_ok = true;
	s->ss.live[OBS_TCP_ESTABLISHED] = 99;
	s->ss.live[OBS_TCP_CLOSE_WAIT] = 98;
	line = test_observer_tick_line(&s->tk);
	assert_non_null(strstr(line, "     12     30     15      2     1   10      4\n"));
	free(line);
	/* no census this interval: the live counts, "~" where not exact; TIME_WAIT as last seen */
	s->ss.fresh = false;
	s->ss.live[OBS_TCP_ESTABLISHED] = 14;
	s->ss.live[OBS_TCP_CLOSE_WAIT] = 3;
	s->ss.live_err = 2;
	line = test_observer_tick_line(&s->tk);
	assert_non_null(strstr(line, "    ~14     30     15     ~3     1   10      4\n"));
	free(line);
	/* no census ever, no fd read, no failures feature: dashes, not zeros */
	s->ss.have_census = s->ss.live_ok = false;
	s->ss.ports.range = 0;
	s->tk.procs = NULL;
	s->tk.fail = NULL;
	line = test_observer_tick_line(&s->tk);
	assert_non_null(strstr(line, "      -      -     15      -     -    -      0\n"));
	free(line);
	free(s);
}

/* A plan as the sockstat feature leaves it after a census at t = 10 s that took 20 ms: the next
 * walk at 12 s (1% of a CPU), sooner from 10.2 s when CLOSE_WAIT piles up (base 4), or from
 * 11 s when connect() runs out of ports. */
static const struct obs_census_plan spaced = {.next_t = 12.0, .cw_watch = true, .cw_base = 4,
					      .cw_from_t = 10.2, .noport_from_t = 11.0};

/* Healthy: between walks, a read with nothing piling up and no port failure does not walk. */
static void test_census_deferred_when_quiet(void **state)
{
	(void)state;
	assert_false(obs_census_plan_due(&spaced, 10.5, false, 0, 0));
	assert_false(obs_census_plan_due(&spaced, 11.9, false, 5, 0)); /* 9 in CLOSE_WAIT */
	assert_false(obs_census_plan_due(&spaced, 11.9, false, -3, 0));
	assert_true(obs_census_plan_due(&spaced, 12.0, false, 0, 0));	/* its time */
	assert_true(obs_census_plan_due(&spaced, 10.5, true, 0, 0));	/* the final read */
}

/* Sick: sockets piling up in CLOSE_WAIT, or connect() out of ports, walk sooner; not sooner
 * than the plan allows, and the CLOSE_WAIT sign only once a census gave a base. */
static void test_census_sooner_on_signs(void **state)
{
	struct obs_census_plan p = spaced;

	(void)state;
	assert_true(obs_census_plan_due(&p, 10.5, false, 6, 0));	 /* 4 + 6 = 10 */
	assert_false(obs_census_plan_due(&p, 10.1, false, 6, 0)); /* before 10% of a CPU */
	assert_true(obs_census_plan_due(&p, 11.0, false, 0, 3));
	assert_false(obs_census_plan_due(&p, 10.9, false, 0, 3)); /* within a second */
	p.cw_watch = false;
	assert_false(obs_census_plan_due(&p, 10.5, false, 60, 0));
	/* no port group seen yet: a port failure walks at once */
	p.noport_from_t = 0;
	assert_true(obs_census_plan_due(&p, 10.1, false, 0, 1));
	/* the first read of a run: the plan is all zeros, so it walks */
	assert_true(obs_census_plan_due(&(struct obs_census_plan){0}, 1.0, false, 0, 0));
}

/* The live lines' statuses: compact, the classes with any, gRPC not OK; a port with none, no
 * line. */
static void test_status_live(void **state)
{
	struct obs_snap *s = calloc(1, sizeof(*s));
	char buf[160];
	FILE *f;

	(void)state;
	assert_non_null(s);
	s->statuses_on = true;
	s->nstatus = 2;
	s->status[0].port = 8080;
	s->status[0].cls[2] = 1234;
	s->status[0].cls[4] = 30;
	s->status[0].grpc[0] = 1200;
	s->status[0].grpc[8] = 12;
	s->status[1].port = 9090; /* none this interval */
	obs_status_compact(buf, sizeof(buf), &s->status[0]);
	assert_string_equal(buf, "st 2xx:1.2k 4xx:30 grpc!OK:12");
	s->status[0].cls[5] = 2500000;
	s->status[0].grpc[8] = 0;
	obs_status_compact(buf, sizeof(buf), &s->status[0]);
	assert_string_equal(buf, "st 2xx:1.2k 4xx:30 5xx:2.5M");
	obs_status_compact(buf, 8, &s->status[0]);
	assert_string_equal(buf, "st 2xx:");
	f = fmemopen(buf, sizeof(buf), "w");
	obs_status_live(f, s);
	fclose(f);
	assert_string_equal(buf, "  tcp/8080  st 2xx:1.2k 4xx:30 5xx:2.5M\n");
	free(s);
}

LL_TEST_MAIN(test_healthy_has_no_pressure, test_each_sign, test_live_columns, test_status_live,
	     test_census_deferred_when_quiet, test_census_sooner_on_signs)
