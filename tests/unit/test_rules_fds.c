// SPDX-License-Identifier: MIT
/*
 * The findings rules (observer/rules/) on synthetic snapshots: fds, the process cap, fd leaks, and
 * the findings log and its formatters. Each failure a rule must name, as a sick run that must
 * fire and a healthy one that must stay silent. No root, no kernel.
 */
#include "rules_harness.h"

/* Interval t of pid 4242 on 1024 fds: 16 accepted at start (10 fds), then no more (26 + t). */
static void fds_settled(struct obs_snap *s, int t)
{
	s->accepted = t == 1 ? 16 : 0;
	rh_proc(s, 4242, t == 1 ? 10 : 26 + t, 1024);
}

/* Interval t of pid 4242 on 512 fds at +48/s, to 437 at t = 4. */
static void fds_running_out(struct obs_snap *s, int t)
{
	rh_proc(s, 4242, 437 - 48 * (4 - t), 512);
}

/* The EMFILE forecast: 437 of 512 at +48/s; healthy: 16 fds opened at start on 1024. */
RULES_TEST(test_fd_forecast)
{
	const struct obs_finding *f = rh_healthy_then_sick(r, fds_settled, 3, fds_running_out, 4,
							  "fd_exhaustion", "pid 4242");

	assert_int_equal(f->severity, OBS_SEV_WARNING);
	assert_string_equal(f->text, "fds: python3 (pid 4242) will run out of file descriptors "
				     "in ~2 s (437 of 512, +48/s over the last 3 s)");
	assert_int_equal(rh_ev_int(f, "open"), 437);
	assert_int_equal(rh_ev_int(f, "soft"), 512);
	assert_int_equal(rh_ev_int(f, "forecast_s"), 1);
}

/*
 * A ramp of connections that stopped is no trend: 3,000 fds in 2 s (1.5 s: a burst,
 * shorter than the trend a forecast needs) to 75% of 4,096, then flat with a little churn (+1,
 * -1): no forecast, though the slope over the whole window would give one. A ramp that goes on
 * for 3 s gets its forecast, at the rate of those 3 s; so does a leak of 2 fds/s near the limit.
 */
RULES_TEST(test_fd_forecast_needs_a_trend)
{
	static const int churn[] = {0, 1, 0, 2, 1, 2, 0, 1, 0, 2, 1, 2, 0};
	struct obs_snap *s;
	const struct obs_finding *f;
	unsigned int k;
	double t;

	for (k = 0; k < 16; k++) {
		t = 0.5 * (k + 1);
		/* 50 fds until 1 s, +750 per 0.5 s to 3,050 at 3 s, then churn around it */
		s = rh_snap(r, t);
		s->dt = 0.5;
		rh_proc(s, 4343,
			t <= 1.0 ? 50 : t <= 3.0 ? 50 + (int)((t - 1.0) / 0.5) * 750 :
				      3050 + churn[(k - 6) % 13], 4096);
		obs_snap_push(&r->h);
		rh_run(r);
		if (obs_findings_find(&r->fs, "fd_exhaustion", NULL)) {
			printf("k %u: ", k);
			rh_print(r);
		}
		assert_null(obs_findings_find(&r->fs, "fd_exhaustion", NULL));
	}
	rh_restart(r);
	for (k = 0; k < 8; k++) {
		t = 0.5 * (k + 1);
		s = rh_snap(r, t);
		s->dt = 0.5;
		rh_proc(s, 4343, 50 + 500 * (int)k, 4096);
		obs_snap_push(&r->h);
		rh_run(r);
		f = obs_findings_find(&r->fs, "fd_exhaustion", NULL);
		if (t < 3.5) { /* 3 s of growth need 3.5 s of samples from 0.5 s */
			assert_null(f);
			continue;
		}
		assert_non_null(f);
		assert_int_equal(rh_ev_int(f, "open"), 50 + 500 * (int)k);
	}
	assert_string_equal(f->text, "fds: python3 (pid 4343) will run out of file descriptors "
				     "in ~1 s (3550 of 4096, +1000/s over the last 3 s)");
	rh_restart(r);
	for (k = 0; k < 10; k++) {
		rh_proc(rh_snap(r, k + 1), 4343, 4000 + 2 * (int)k, 4096);
		obs_snap_push(&r->h);
	}
	f = rh_expect(r, "fd_exhaustion", "pid 4343");
	assert_string_equal(f->text, "fds: python3 (pid 4343) will run out of file descriptors "
				     "in ~39 s (4018 of 4096, +2/s over the last 3 s)");
}

/*
 * A ramp that levels off (90,000 connections to 6 nginx workers, each levelling off near
 * 15,000 of 20,000 fds) is no forecast: it grows 3,750 fds the first 0.5 s and a quarter less
 * every 0.5 s after, toward 15,000; every step rises by more than a quarter of the 3 s' rate, so
 * only its slowing down tells it apart. A leak of 300 fds/s from 10,000 of 20,000, and a ramp
 * that slows as fast (12% a 0.5 s) toward 30,000, are forecast.
 */
/* One 0.5 s sample k of a ramp toward `level` fds that grows by a share `keep` less each sample
 * (keep 0: a straight line of `level` fds a sample from 10,000), of 20,000; the finding, if any. */
static const struct obs_finding *ramp_sample(struct run *r, unsigned int k, double level,
					     double keep)
{
	struct obs_snap *s = rh_snap(r, 0.5 * k);
	double left = 1;
	unsigned int i;

	s->dt = 0.5;
	for (i = 0; i < k; i++)
		left *= keep;
	rh_proc(s, 4444, keep > 0 ? (int64_t)(level * (1 - left)) : 10000 + (int64_t)(level * k),
		20000);
	obs_snap_push(&r->h);
	rh_run(r);
	return obs_findings_find(&r->fs, "fd_exhaustion", NULL);
}

RULES_TEST(test_fd_forecast_ramp_levels_off)
{
	const struct obs_finding *f = NULL;
	unsigned int k;

	for (k = 1; k <= 40; k++)
		assert_null(ramp_sample(r, k, 15000, 0.75));
	rh_restart(r);
	for (k = 1; k <= 12 && !f; k++)
		f = ramp_sample(r, k, 150, 0);
	assert_non_null(f);
	assert_string_equal(f->text, "fds: python3 (pid 4444) will run out of file descriptors "
				     "in ~30 s (11050 of 20000, +300/s over the last 3 s)");
	rh_restart(r);
	f = NULL;
	for (k = 1; k <= 40 && !f; k++)
		f = ramp_sample(r, k, 30000, 0.88);
	assert_non_null(f);
	/* at 3.5 s, the first sample with 3 s of growth behind it */
	assert_string_equal(f->text, "fds: python3 (pid 4444) will run out of file descriptors "
				     "in ~0 s (17739 of 20000, +4688/s over the last 3 s)");
}

/* Past --max-procs, the 20th child's EMFILE is still named, and the cap is a finding. */
RULES_TEST(test_process_cap_and_unwatched_emfile)
{
	const struct obs_finding *f;
	struct obs_snap_proc *p;
	struct obs_snap *s;

	s = rh_snap(r, 1);
	s->max_procs = 16;
	s->procs_unwatched = 4;
	s->first_unwatched_pid = 5017;
	snprintf(s->first_unwatched_comm, 16, "forker");
	p = rh_proc(s, 5020, -1, -1);
	p->watched = false;
	p->emfile = 346;
	p->last_sys = "accept4";
	f = rh_sick(r, "fd_exhaustion", "pid 5020");
	assert_int_equal(f->severity, OBS_SEV_CRITICAL);
	assert_int_equal(rh_ev_int(f, "emfile"), 346);
	assert_non_null(strstr(f->text, "EMFILE 346 times"));
	f = rh_expect(r, "process_cap", NULL);
	assert_int_equal(rh_ev_int(f, "pid"), 5017);
	assert_non_null(strstr(f->text, "--max-procs 16"));
	/* children the kernel's targets table had no room for */
	s = rh_snap(r, 1.5);
	s->targets_full = 7;
	s->targets_max = 4096;
	p = rh_proc(s, 5020, -1, -1);
	p->watched = false;
	p->emfile = 346;
	f = rh_sick(r, "process_cap", "targets");
	assert_int_equal(rh_ev_int(f, "targets_full"), 7);
	assert_non_null(strstr(f->text, "7 new children"));
	/* the next interval, no new EMFILE: no new EMFILE finding */
	s = rh_snap(r, 2);
	p = rh_proc(s, 5020, -1, -1);
	p->watched = false;
	p->emfile = 346;
	rh_pushed(r);
	assert_null(obs_findings_find(&r->fs, "fd_exhaustion", NULL));
}

/* Interval t of pid 900 holding 10 more fds each second (50 + 10 t), with ACCEPTED accepts. */
static struct obs_snap *fds_grow(struct run *r, int t, uint64_t accepted)
{
	struct obs_snap *s = rh_snap(r, t);

	s->accepted = accepted;
	rh_proc(s, 900, 50 + 10 * t, 65536);
	return s;
}

/* The same with 10 accepts, and a census of it that finds n sockets in state. */
static struct obs_snap *fds_census(struct run *r, int t, int state, uint64_t n)
{
	struct obs_snap *s = fds_grow(r, t, 10);

	s->census = true;
	s->state[state] = n;
	return s;
}

/* The same with n ESTABLISHED, beside a listen queue of 200 read at the tick: queued in it. */
static struct obs_snap *fds_queued(struct run *r, int t, uint64_t n, uint64_t queued)
{
	struct obs_snap *s = fds_census(r, t, OBS_SNAP_ESTABLISHED, n);

	s->listen_qlen_max = 200;
	s->listen_queued = queued;
	s->listen_queued_ok = true;
	return s;
}

RULES_TEST(test_fd_leak)
{
	const struct obs_finding *f;
	int t;

	for (t = 1; t <= 6; t++) {
		fds_grow(r, t, 100);
		obs_snap_push(&r->h);
	}
	f = rh_expect(r, "fd_leak", "pid 900");
	assert_int_equal(rh_ev_int(f, "pid"), 900);
	/* the same fds, each an ESTABLISHED connection the clients hold open: no leak */
	rh_restart(r);
	for (t = 1; t <= 6; t++) {
		fds_census(r, t, OBS_SNAP_ESTABLISHED, 10 * t);
		rh_healthy(r);
	}
	/* the same, the census deferred after the first (a large census is spaced out): the
	 * exact live counts carry the held connections between censuses */
	rh_restart(r);
	for (t = 1; t <= 6; t++) {
		struct obs_snap *s = fds_grow(r, t, 10);

		s->census = t == 1;
		s->state[OBS_SNAP_ESTABLISHED] = t == 1 ? 10 : 0;
		s->held_live = t > 1;
		s->held = 10 * t;
		rh_healthy(r);
	}
	/* the same fds, each a connection accepted from a backlog already ESTABLISHED (slapd
	 * taking 256 connections at 10/s): the accept queue empties as the fds rise, no leak */
	rh_restart(r);
	for (t = 1; t <= 6; t++) {
		fds_census(r, t, OBS_SNAP_ESTABLISHED, 256)->listen_qlen_max = 200 - 10 * t;
		rh_healthy(r);
	}
	/* ... read at each tick, beside the fullest queue seen, which never falls (nginx starved
	 * of its CPU, taking the 200 connections queued at 10/s; CI named it a leak) */
	rh_restart(r);
	for (t = 1; t <= 6; t++) {
		fds_queued(r, t, 256, 200 - 10 * t);
		rh_healthy(r);
	}
	/* ... and the load ends at t = 6: the clients on the same host close, their 200 ends leave
	 * the held count at once (the server's go to CLOSE_WAIT, still held) while the starved
	 * server, not yet at them, still takes its backlog at 10/s: held fell by more than the
	 * fds rose, connections closing, not a leak's steady backdrop (CI named it a leak) */
	rh_restart(r);
	for (t = 1; t <= 6; t++) {
		fds_queued(r, t, t < 6 ? 400 : 20, 200 - 10 * t)->state[OBS_SNAP_CLOSE_WAIT] =
			t < 6 ? 0 : 180;
		rh_healthy(r);
	}
	/* ... and a queue that stays full while the fds rise: a leak */
	rh_restart(r);
	for (t = 1; t <= 6; t++) {
		fds_queued(r, t, 256, 190);
		rh_pushed(r);
	}
	assert_non_null(obs_findings_find(&r->fs, "fd_leak", NULL));
	/* the same fds, each a socket left in CLOSE_WAIT: the close_wait_leak's, not an fd leak
	 * of its own (one finding per cause) */
	rh_restart(r);
	for (t = 1; t <= 6; t++) {
		fds_census(r, t, OBS_SNAP_CLOSE_WAIT, 10 * t);
		rh_pushed(r);
		assert_null(obs_findings_find(&r->fs, "fd_leak", NULL));
	}
	/* the same fds under a load that doubles each second: growth with the load, no leak */
	rh_restart(r);
	for (t = 1; t <= 6; t++) {
		fds_grow(r, t, 100u << t);
		rh_healthy(r);
	}
}

/* The log: news on first sight and when graver; first (at the gravest) and last seen;
 * formatters. */
RULES_TEST(test_log_and_output)
{
	struct obs_findings_log *l = malloc(sizeof(*l));
	size_t news[8], n;
	char line[600];
	json_t *ev, *arr;

	assert_non_null(l);
	obs_findings_log_init(l);
	obs_findings_add(&r->fs, "fd_exhaustion", OBS_SEV_WARNING, "pid 1", NULL, "fds: a");
	n = obs_findings_log_merge(l, &r->fs, 7.0, news, 8);
	assert_int_equal(n, 1);
	assert_int_equal(r->fs.n, 0);
	obs_findings_add(&r->fs, "fd_exhaustion", OBS_SEV_WARNING, "pid 1", NULL, "fds: b");
	assert_int_equal(obs_findings_log_merge(l, &r->fs, 8.0, news, 8), 0);
	obs_findings_add(&r->fs, "fd_exhaustion", OBS_SEV_CRITICAL, "pid 1",
			 json_pack("{s:i}", "pid", 1), "fds: c");
	assert_int_equal(obs_findings_log_merge(l, &r->fs, 9.0, news, 8), 1);
	obs_findings_add(&r->fs, "fd_exhaustion", OBS_SEV_WARNING, "pid 1", NULL, "fds: d");
	assert_int_equal(obs_findings_log_merge(l, &r->fs, 10.0, news, 8), 0);
	assert_int_equal(l->n, 1);
	assert_string_equal(l->seen[0].f.text, "fds: c");
	/* dated from the EMFILE's own onset (9 s), the forecast's (7 s) kept apart */
	assert_true(l->seen[0].first_seen == 9.0 && l->seen[0].last_seen == 10.0);
	assert_true(l->seen[0].milder_since == 7.0);
	obs_findings_out_line(line, sizeof(line), &l->seen[0].f, "12:00:07");
	assert_string_equal(line, "[12:00:07] fds: c");
	ev = obs_findings_out_event(&l->seen[0].f, 9.0, "12:00:09");
	assert_string_equal(json_string_value(json_object_get(ev, "type")), "finding");
	assert_string_equal(json_string_value(json_object_get(ev, "severity")), "critical");
	assert_string_equal(json_string_value(json_object_get(ev, "time")), "12:00:09");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ev, "evidence"),
							    "pid")), 1);
	json_decref(ev);
	arr = obs_findings_out_json(l);
	assert_int_equal(json_array_size(arr), 1);
	assert_true(json_real_value(json_object_get(json_array_get(arr, 0), "first_seen")) == 9.0);
	assert_true(json_real_value(json_object_get(json_object_get(json_array_get(arr, 0),
								    "milder"), "first_seen")) == 7.0);
	assert_true(json_real_value(json_object_get(json_array_get(arr, 0), "last_seen")) == 10.0);
	json_decref(arr);
	{
		struct ll_text t;
		char *text;

		assert_int_equal(obs_findings_out_text(ll_text_open(&t), l), 0);
		text = ll_text_close(&t);
		assert_string_equal(text, "findings:\n  - [critical] fds: c (seen 9-10 s; a warning "
					  "from 7 s)\n");
		free(text);
	}
	obs_findings_log_free(l);
	free(l);
}

/* An interval at t under --children: EXITS children ended with status 0, CLOSED target sockets
 * left ESTABLISHED, pid 42 (python3) forked FORKS children. */
static struct obs_snap *exits(struct run *r, double t, uint64_t ended, uint64_t closed,
			      uint64_t forks)
{
	struct obs_snap *s = rh_snap(r, t);

	s->dt = 0.5;
	s->children_on = true;
	s->child_exits = ended;
	s->closed = closed;
	s->forker.pid = 42;
	snprintf(s->forker.comm, sizeof(s->forker.comm), "python3");
	s->forker.forks = forks;
	return s;
}

/* A forking server's backends end with their clients: silent, whatever the rate. */
RULES_TEST(test_exit_spike_healthy)
{
	struct obs_snap *s;
	double t = 0;
	int i;

	for (i = 0; i < 6; i++) /* a child per connection, the client on loopback: 2 ends each */
		exits(r, t += 0.5, 150, 300, 150), rh_healthy(r);
	for (i = 0; i < 4; i++) /* a remote client: one end on the target ports */
		exits(r, t += 0.5, 150, 150, 150), rh_healthy(r);
	/* a load stops: every long-held connection's child ends in one interval, as many closes */
	exits(r, t += 0.5, 400, 400, 0), rh_healthy(r);
	exits(r, t += 0.5, 3, 0, 0), rh_healthy(r);
	/* a blip: one interval of exits with no close (a pool recycled at once), then quiet */
	exits(r, t += 0.5, 60, 0, 60), rh_healthy(r);
	exits(r, t += 0.5, 2, 0, 2), rh_healthy(r);
	exits(r, t += 0.5, 60, 0, 60), rh_healthy(r);
	exits(r, t += 0.5, 0, 0, 0), rh_healthy(r);
	/* fewer than 10 an interval: a small pool recycling, no spike */
	for (i = 0; i < 4; i++)
		exits(r, t += 0.5, 9, 0, 9), rh_healthy(r);
	/* exactly at the bound: 2 x closes + 5 */
	for (i = 0; i < 3; i++)
		exits(r, t += 0.5, 25, 10, 25), rh_healthy(r);
	/* a child per request (CGI) on keep-alive connections: the requests are the bound */
	for (i = 0; i < 3; i++) {
		s = exits(r, t += 0.5, 100, 2, 100);
		s->requests_on = true;
		s->nslots = 2;
		s->slot[0].requests = 70;
		s->slot[1].requests = 30;
		rh_healthy(r);
	}
	/* without --children no exit is counted: the rule has nothing to say */
	for (i = 0; i < 3; i++) {
		s = exits(r, t += 0.5, 100, 0, 100);
		s->children_on = false;
		rh_healthy(r);
	}
}

/* A respawn loop: workers end dozens a second while few connections close. */
RULES_TEST(test_exit_spike_respawn_loop)
{
	const struct obs_finding *f;
	double t = 0;

	exits(r, t += 0.5, 20, 40, 20), rh_healthy(r);
	exits(r, t += 0.5, 100, 8, 100), rh_healthy(r); /* one interval: no trend yet */
	exits(r, t += 0.5, 26, 10, 26);			 /* 2 x 10 + 5 = 25: one past it */
	f = rh_sick(r, "exit_spike", "pid 42");
	assert_int_equal(f->severity, OBS_SEV_WARNING);
	assert_int_equal(rh_ev_int(f, "pid"), 42);
	assert_int_equal(rh_ev_int(f, "exits"), 26);
	assert_int_equal(rh_ev_int(f, "closed"), 10);
	assert_int_equal(rh_ev_int(f, "exits_before"), 100);
	assert_int_equal(rh_ev_int(f, "closed_before"), 8);
	assert_int_equal(rh_ev_int(f, "forked"), 26);
	assert_string_equal(json_string_value(json_object_get(f->evidence, "comm")), "python3");
	assert_non_null(strstr(f->text, "26 children of pid 42 (python3) ended with status 0"));
	assert_non_null(strstr(f->text, "a respawn loop?"));
	/* the loop goes on with no connection at all, then stops */
	exits(r, t += 0.5, 80, 0, 80);
	rh_sick(r, "exit_spike", "pid 42");
	exits(r, t += 0.5, 150, 150, 0), rh_healthy(r);
	exits(r, t += 0.5, 80, 0, 80), rh_healthy(r);
}

LL_TEST_MAIN_EACH(rh_setup, rh_teardown, test_fd_forecast, test_fd_forecast_needs_a_trend,
		  test_fd_forecast_ramp_levels_off,
	          test_process_cap_and_unwatched_emfile, test_fd_leak, test_log_and_output,
	          test_exit_spike_healthy, test_exit_spike_respawn_loop)
