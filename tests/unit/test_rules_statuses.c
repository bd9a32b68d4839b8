// SPDX-License-Identifier: MIT
/*
 * The error_responses rule (observer/rules/rules_statuses.c) on synthetic snapshots: a share of
 * HTTP/2 5xx, of 4xx past half, of gRPC calls not OK, over a window of about 3 s; each a sick run
 * that must fire and a healthy one that must stay silent. No root, no kernel.
 */
#include "loadlens/grpc_status.h"
#include "rules_harness.h"

/* The statuses of port in s (a new entry the first time). */
static struct obs_snap_status *status_of(struct obs_snap *s, uint16_t port)
{
	size_t i;

	s->statuses_on = true;
	for (i = 0; i < s->nstatus; i++)
		if (s->status[i].port == port)
			return &s->status[i];
	assert_true(s->nstatus < OBS_SNAP_STATUS_PORTS);
	s->status[s->nstatus].port = port;
	return &s->status[s->nstatus++];
}

/* n responses with :status code on port 8080 this interval. */
static void code(struct obs_snap *s, uint16_t c, uint64_t n)
{
	struct obs_snap_status *st = status_of(s, 8080);

	assert_true(st->ncodes < OBS_SNAP_CODES);
	st->code[st->ncodes++] = (struct obs_snap_code){c, n};
	st->cls[c / 100] += n;
}

/* The responses of one interval on port 8080, in that order: CODES(s, {code, n}, ...). */
#define CODES(s, ...) codes(s, (const struct obs_snap_code[]){__VA_ARGS__, {0, 0}})

static void codes(struct obs_snap *s, const struct obs_snap_code *c)
{
	for (; c->code; c++)
		code(s, c->code, c->n);
}

/* n gRPC calls ended with grpc-status g on port 50051 (each a :status 200 response too). */
static void grpc(struct obs_snap *s, unsigned int g, uint64_t n)
{
	struct obs_snap_status *st = status_of(s, 50051);
	size_t i;

	st->grpc[g] += n;
	st->cls[2] += n;
	for (i = 0; i < st->ncodes && st->code[i].code != 200; i++)
		;
	if (i == st->ncodes)
		st->code[st->ncodes++] = (struct obs_snap_code){200, 0};
	st->code[i].n += n;
}

static const char *has(const struct obs_finding *f, const char *text)
{
	if (!strstr(f->text, text))
		fail_msg("'%s' not in: %s", text, f->text);
	return f->text;
}

static json_int_t code_ev(const struct obs_finding *f, const char *c)
{
	json_t *v = json_object_get(json_object_get(f->evidence, "codes"), c);

	if (!json_is_integer(v))
		fail_msg("no code %s in the evidence", c);
	return json_integer_value(v);
}

/* Every request to a missing path: all 404, named with the count and the port. */
RULES_TEST(test_all_404)
{
	const struct obs_finding *f;

	code(rh_snap(r, 1), 404, 2000);
	f = rh_sick(r, "error_responses", "tcp/8080");
	assert_int_equal(f->severity, OBS_SEV_WARNING);
	has(f, "responses: on tcp/8080");
	has(f, "100% of 2,000 HTTP/2 responses were client errors (404: 2,000)");
	has(f, "statuses are read for HTTP/2 and gRPC only");
	assert_int_equal(rh_ev_int(f, "port"), 8080);
	assert_int_equal(rh_ev_int(f, "responses"), 2000);
	assert_int_equal(rh_ev_int(f, "errors_4xx"), 2000);
	assert_int_equal(code_ev(f, "404"), 2000);
}

/* All 200s, then a few 404s (2%, a missing favicon), 1xx and 3xx: silent. */
RULES_TEST(test_healthy_statuses)
{
	int t;

	for (t = 1; t <= 5; t++) {
		code(rh_snap(r, t), 200, 1000);
		rh_healthy(r);
	}
	CODES(rh_snap(r, 6), {200, 980}, {404, 20}, {304, 300}, {100, 5});
	rh_healthy(r);
	/* 49% 4xx: under the share */
	CODES(rh_snap(r, 7), {200, 51}, {403, 49});
	rh_healthy(r);
}

/* 5xx from 1% of the responses: named, the most frequent code first. */
RULES_TEST(test_server_errors)
{
	const struct obs_finding *f;

	CODES(rh_snap(r, 1), {200, 990}, {500, 3}, {503, 7});
	f = rh_sick(r, "error_responses", "tcp/8080");
	has(f, "1.0% of 1,000 HTTP/2 responses were server errors (503: 7, 500: 3)");
	assert_int_equal(rh_ev_int(f, "errors_5xx"), 10);
	assert_int_equal(code_ev(f, "503"), 7);
	/* half of that, in a new run: silent */
	rh_restart(r);
	CODES(rh_snap(r, 1), {200, 995}, {502, 5});
	rh_healthy(r);
}

/* Too few responses to judge: 10 404s alone are no share. */
RULES_TEST(test_too_few)
{
	code(rh_snap(r, 1), 404, OBS_RULE_ERR_MIN / 2);
	rh_healthy(r);
}

/* A slow server: half its 10 responses a second fail; judged once the window holds 20. */
RULES_TEST(test_slow_server_window)
{
	const struct obs_finding *f;

	CODES(rh_snap(r, 1), {200, 5}, {500, 5});
	rh_healthy(r);
	CODES(rh_snap(r, 2), {200, 5}, {500, 5});
	f = rh_sick(r, "error_responses", "tcp/8080");
	has(f, "50% of 20 HTTP/2 responses were server errors (500: 10)");
	has(f, "over the last 2.0 s");
}

/* A burst a tick splits is judged whole; once the errors stop, so does the finding. */
RULES_TEST(test_burst_split)
{
	const struct obs_finding *f;

	code(rh_snap(r, 1), 404, 1500);
	rh_sick(r, "error_responses", "tcp/8080");
	code(rh_snap(r, 2), 404, 500);
	f = rh_sick(r, "error_responses", "tcp/8080");
	assert_int_equal(code_ev(f, "404"), 2000);
	code(rh_snap(r, 3), 200, 100);
	rh_healthy(r);
	/* errors long past the window are not counted: 2 404s of 100 now */
	code(rh_snap(r, 4), 200, 100);
	rh_healthy(r);
	CODES(rh_snap(r, 5), {200, 98}, {404, 2});
	rh_healthy(r);
}

/* gRPC calls not OK from 1%: 10% RESOURCE_EXHAUSTED is named, and no grpc-status counts. */
RULES_TEST(test_grpc_not_ok)
{
	const struct obs_finding *f;
	struct obs_snap *s = rh_snap(r, 1);

	grpc(s, LL_GRPC_OK, 4500);
	grpc(s, 8, 500);
	status_of(s, 50051)->grpc_none = 3;
	f = rh_sick(r, "error_responses", "tcp/50051");
	has(f, "10% of 5,003 gRPC calls ended not OK (RESOURCE_EXHAUSTED: 500, no grpc-status: 3)");
	assert_int_equal(rh_ev_int(f, "grpc_not_ok"), 503);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(f->evidence,
			 "grpc_status"), "RESOURCE_EXHAUSTED")), 500);
	/* the HTTP side of those calls is 200: no HTTP part */
	assert_null(strstr(f->text, "HTTP/2 responses were"));
}

/* gRPC all OK, or 0.5% not OK: silent. */
RULES_TEST(test_grpc_healthy)
{
	struct obs_snap *s;

	grpc(rh_snap(r, 1), LL_GRPC_OK, 5000);
	rh_healthy(r);
	rh_restart(r);
	s = rh_snap(r, 1);
	grpc(s, LL_GRPC_OK, 995);
	grpc(s, 14, 5);
	rh_healthy(r);
}

/* Two ports, one sick: the finding names that one only. */
RULES_TEST(test_other_port_healthy)
{
	struct obs_snap *s = rh_snap(r, 1);

	code(s, 404, 100);
	grpc(s, LL_GRPC_OK, 1000);
	rh_pushed(r);
	assert_non_null(obs_findings_find(&r->fs, "error_responses", "tcp/8080"));
	assert_null(obs_findings_find(&r->fs, "error_responses", "tcp/50051"));
	assert_int_equal(r->fs.n, 1);
}

LL_TEST_MAIN_EACH(rh_setup, rh_teardown, test_all_404, test_healthy_statuses, test_server_errors,
		  test_too_few, test_slow_server_window, test_burst_split, test_grpc_not_ok,
		  test_grpc_healthy, test_other_port_healthy)
