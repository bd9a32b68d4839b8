// SPDX-License-Identifier: MIT
/*
 * The findings rules (observer/rules/) on synthetic snapshots: fds, the process cap, fd leaks, and
 * the findings log and its formatters. Each failure of issue 9 that is a rule's, as a sick run
 * that must fire and a healthy one that must stay silent. No root, no kernel.
 */
#include "rules_harness.h"

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
	/* the same, the census deferred after the first (a large census is spaced out): the
	 * exact live counts carry the held connections between censuses (issue 21) */
	memset(&r->h, 0, sizeof(r->h));
	for (t = 1; t <= 6; t++) {
		struct obs_snap *s = x__snap(r, t);

		s->accepted = 10;
		s->census = t == 1;
		s->state[OBS_SNAP_ESTABLISHED] = t == 1 ? 10 : 0;
		s->held_live = t > 1;
		s->held = 10 * t;
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
		cmocka_unit_test_setup_teardown(test_fd_forecast, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_process_cap_and_unwatched_emfile, x__setup,
						x__teardown),
		cmocka_unit_test_setup_teardown(test_fd_leak, x__setup, x__teardown),
		cmocka_unit_test_setup_teardown(test_log_and_output, x__setup, x__teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
