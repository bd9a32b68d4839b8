// SPDX-License-Identifier: MIT
/*
 * The forensics NDJSON interval record (observer/output/interval_record.c) from synthetic
 * snapshots (the record's own and the rules' snapshot of the interval): every key of the schema
 * in docs/observer/forensics.md, in its order, and the record's shape when the census is deferred,
 * failed, or the first one. No root, no kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "output/interval_record.h"

static char *dump(const struct obs_record *iv)
{
	json_t *rec = obs_record_json(iv);
	char *s;

	assert_non_null(rec);
	s = json_dumps(rec, JSON_COMPACT);
	json_decref(rec);
	assert_non_null(s);
	return s;
}

/* the rules' snapshot of the interval, which the record reads where it holds the same data */
static struct obs_snap snap;

/* An interval at 2.5 s, 0.5 s long, with 7 accepts, 3 TIME_WAIT entries and CENSUS. */
static void base(struct obs_record *iv, enum obs_record_census census)
{
	snap = (struct obs_snap){.t = 2.5, .dt = 0.5, .accepted = 7, .tw_entries = 3};
	*iv = (struct obs_record){.snap = &snap, .time = 1700000000.5, .tw_per_s = 6,
				  .ports = {.tte = -1}, .census = census};
}

/* iv's record is exactly want. */
static void record_is(const struct obs_record *iv, const char *want)
{
	char *s = dump(iv);

	assert_string_equal(s, want);
	free(s);
}

/* iv's record holds part (or, with !held, does not). */
static void record_holds(const struct obs_record *iv, const char *part, bool held)
{
	char *s = dump(iv);

	if (!strstr(s, part) == held)
		fail_msg("%s %s %s", s, held ? "lacks" : "holds", part);
	free(s);
}

/* A census after an earlier one, a pressed port group with a forecast, failures of two
 * classes, a watched process, the targets' CPU wait, the system's files and the listen
 * counters. */
static void test_full(void **state)
{
	struct obs_proc p = {.fd = {.pid = 4242, .comm = "nginx", .open = 437, .peak = 440,
				       .soft = 512, .hard = 4096},
				.rate = 48, .tte = 9.5, .first_forecast_t = 2, .first_forecast_tte = 10,
				.first_fail_t = -1, .fails = {2}};
	struct obs_record iv;

	(void)state;
	base(&iv, OBS_RECORD_CENSUS_TAKEN);
	iv.have_live = true;
	iv.states[iv.nstates++] = (struct obs_record_state){"ESTABLISHED", 10, true, 11, 1, 0};
	iv.states[iv.nstates++] = (struct obs_record_state){"TIME_WAIT", 5, false, 0, 0, 0};
	iv.sockets = 16;
	iv.took_ms = 1.5;
	iv.ports.have_range = true;
	iv.ports.lo = 32768;
	iv.ports.hi = 60999;
	iv.ports.size = 28232;
	iv.ports.have_group = true;
	strcpy(iv.ports.group, "10.0.0.1 -> 10.0.0.2:80");
	iv.ports.in_use = 200;
	iv.ports.time_wait = 150;
	iv.ports.pct = 0.75;
	iv.ports.rate = 4;
	iv.ports.tte = 120;
	iv.ports.groups = 2;
	iv.fails[iv.nfails++] = (struct obs_record_fail){"EMFILE", "accept4", 2};
	iv.fails[iv.nfails++] = (struct obs_record_fail){"EMFILE", "openat", 1};
	iv.fails[iv.nfails++] = (struct obs_record_fail){"EADDRNOTAVAIL", "connect", 5};
	iv.failure_rate = 16;
	iv.procs = &p;
	iv.nprocs = 1;
	/* the targets' CPU wait and the system's files come from the rules' snapshot */
	snap = (struct obs_snap){.t = 2.5, .dt = 0.5, .accepted = 7, .tw_entries = 3,
				 .cpu_on = true, .cpu_procs = 2, .cpu_cpus = 4, .cpu_running = 1.5,
				 .cpu_waiting = 0.25, .cpu_lost = 0.125, .cpu_busy = 3.5,
				 .cpu_unread = 9,
				 .have_files = true, .file_nr = 1300, .file_max = 9000};
	iv.have_listen = true;
	iv.overflows = 1;
	iv.drops = 2;
	iv.reqq_full_drops = 3;
	iv.queue_max = 4;
	iv.backlog = 511;
	iv.synack_retransmits = 6;
	iv.resets_sent = 7;
	iv.resets_received = 8;
	iv.lost_events = 9;
	record_is(&iv,
		"{\"type\":\"interval\",\"time\":1700000000.5,\"t\":2.5,\"dt\":0.5,\"accepted\":7,"
		"\"accept_rate\":14.0,\"census\":{\"ESTABLISHED\":10,\"TIME_WAIT\":5,\"sockets\":16,"
		"\"took_ms\":1.5},\"live\":{\"ESTABLISHED\":11},\"reconcile_diff\":"
		"{\"ESTABLISHED\":1},\"live_error\":0,\"time_wait\":{\"entries\":3,\"per_s\":6.0},\"ports\":"
		"{\"range\":[32768,60999],\"size\":28232,\"group\":\"10.0.0.1 -> 10.0.0.2:80\","
		"\"in_use\":200,\"time_wait\":150,\"pressure_pct\":0.75,\"growth_per_s\":4.0,"
		"\"exhausted_in_s\":120.0,\"groups\":2},\"failures\":{\"EMFILE\":{\"accept4\":2,"
		"\"openat\":1},\"EADDRNOTAVAIL\":{\"connect\":5}},\"failure_rate\":16.0,\"fds\":"
		"[{\"pid\":4242,\"comm\":\"nginx\",\"open\":437,\"peak\":440,\"soft_limit\":512,"
		"\"hard_limit\":4096,\"growth_per_s\":48.0,\"exhausted_in_s\":9.5,\"exited\":false,"
		"\"first_forecast_at_s\":2.0,\"first_forecast_s\":10.0,\"first_emfile_at_s\":null,"
		"\"emfile\":2}],\"cpu_wait\":{\"processes\":2,\"cpus\":4,\"running\":1.5,"
		"\"waiting\":0.25,\"lost\":0.125,\"busy\":3.5,\"unread\":9},\"system_files\":{\"open\":1300,\"max\":9000},"
		"\"listen\":"
		"{\"overflows\":1,\"drops\":2,\"reqq_full_drops\":3,\"queue_max\":4,\"backlog\":511},"
		"\"tcp\":{\"synack_retransmits\":6,\"resets_sent\":7,\"resets_received\":8},"
		"\"lost_events\":9}");
}

/* The first census has nothing to reconcile with: live and reconcile_diff are null. */
static void test_first_census(void **state)
{
	struct obs_record iv;

	(void)state;
	base(&iv, OBS_RECORD_CENSUS_TAKEN);
	iv.states[iv.nstates++] = (struct obs_record_state){"ESTABLISHED", 10, true, 0, 0, 0};
	iv.sockets = 10;
	iv.took_ms = 0.25;
	record_holds(&iv, "\"census\":{\"ESTABLISHED\":10,\"sockets\":10,\"took_ms\":0.25},"
			  "\"live\":null,\"reconcile_diff\":null,\"live_error\":null,\"time_wait\"",
		     true);
}

/* A deferred census: null and census_deferred; a failed one: null alone; no port range: {};
 * no process, no system files, no listen counters: those keys are absent or empty. */
static void test_deferred_and_none(void **state)
{
	struct obs_record iv;

	(void)state;
	base(&iv, OBS_RECORD_CENSUS_DEFERRED);
	record_is(&iv,
		"{\"type\":\"interval\",\"time\":1700000000.5,\"t\":2.5,\"dt\":0.5,\"accepted\":7,"
		"\"accept_rate\":14.0,\"census\":null,\"census_deferred\":true,\"live\":null,"
		"\"live_error\":null,\"time_wait\":"
		"{\"entries\":3,\"per_s\":6.0},\"ports\":{},\"failures\":{},\"failure_rate\":0.0,"
		"\"fds\":[],\"tcp\":{\"synack_retransmits\":0,\"resets_sent\":0,"
		"\"resets_received\":0},\"lost_events\":0}");
	iv.census = OBS_RECORD_CENSUS_NONE;
	record_holds(&iv, "\"census\":null,\"time_wait\"", true);
	record_holds(&iv, "census_deferred", false);
	record_holds(&iv, "\"live\"", false);
	/* deferred after a census: the live counts from the state moves, and their error bound */
	iv.census = OBS_RECORD_CENSUS_DEFERRED;
	iv.have_live = true;
	iv.live_err = 0;
	iv.states[iv.nstates++] = (struct obs_record_state){"ESTABLISHED", 0, true, 180000, 0, 0};
	record_holds(&iv, "\"census\":null,\"census_deferred\":true,\"live\":"
			  "{\"ESTABLISHED\":180000},\"live_error\":0,\"time_wait\"", true);
}

/* A process whose fds could not be read says why; an exited one says so. */
static void test_procs(void **state)
{
	struct obs_proc p[2] = {
		{.fd = {.pid = 1, .comm = "a", .open = -1, .soft = 1024, .hard = 1024, .err = 13},
		 .tte = -1, .first_forecast_t = -1, .first_fail_t = 1.5, .fails = {4}},
		{.fd = {.pid = 2, .comm = "b", .open = 3}, .exited = true, .tte = -1,
		 .first_forecast_t = -1, .first_fail_t = -1},
	};
	json_t *a = obs_record_procs_json(p, 2);

	(void)state;
	assert_non_null(a);
	assert_int_equal(json_array_size(a), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0),
							      "unreadable")), "Permission denied");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "emfile")), 4);
	assert_true(json_is_null(json_object_get(json_array_get(a, 0), "exhausted_in_s")));
	assert_true(json_is_true(json_object_get(json_array_get(a, 1), "exited")));
	assert_null(json_object_get(json_array_get(a, 1), "unreadable"));
	json_decref(a);
}

/* The interval's response statuses by port, where they are read; none read: no key. */
static void test_statuses(void **state)
{
	struct obs_record iv;
	struct obs_snap_status *st;

	(void)state;
	base(&iv, OBS_RECORD_CENSUS_NONE);
	record_holds(&iv, "\"statuses\"", false);
	snap.statuses_on = true;
	record_holds(&iv, "\"statuses\":[]", true);
	st = &snap.status[snap.nstatus++];
	st->port = 8080;
	st->cls[4] = 2000;
	st->code[st->ncodes++] = (struct obs_snap_code){404, 2000};
	st->cls[0] = 1;
	st->grpc[0] = 5;
	st->grpc[8] = 2;
	st->grpc_none = 1;
	record_holds(&iv, "\"statuses\":[{\"port\":8080,\"status\":{\"404\":2000,\"other\":1},"
		     "\"grpc_status\":{\"OK\":5,\"RESOURCE_EXHAUSTED\":2},\"grpc_no_status\":1}]",
		     true);
}

LL_TEST_MAIN(test_full, test_first_census, test_deferred_and_none, test_procs, test_statuses)
