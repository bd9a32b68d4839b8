// SPDX-License-Identifier: MIT
/* --print-plan (results/plan.c): every option has its key in the plan, and the values resolved. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ll_test.h"
#include "apps.h"
#include <jansson.h>
#include "config/parse.h"
#include "driver_parse_line.h"
#include "results/plan.h"

/* The plan of a good command line (the test fails on a bad one). */
static json_t *plan_of(const char *line)
{
	struct drv_config cfg;
	char err[256];
	json_t *p;

	if (parse(&cfg, line, err, sizeof(err)))
		fail_msg("'%s': %s", line, err);
	p = drv_plan_json(&cfg);
	drv_config_fini(&cfg);
	assert_non_null(p);
	return p;
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	if (!json_is_number(v))
		fail_msg("%s is not a number", k);
	return json_number_value(v);
}

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	if (!s)
		fail_msg("%s is not a string", k);
	return s;
}

/* Each option the parser takes has its key, and the key is in every plan. */
static void test_every_option_has_a_key(void **state)
{
	const struct option *o = drv_config_options();
	json_t *p = plan_of("tcp://127.0.0.1:7000 -n 1"), *keys = json_object_get(p, "option_keys");
	char name[64];
	int n = 0;

	for (; o->name; o++) {
		const char *k = drv_plan_key(o->name);

		if (!strcmp(o->name, "help") || !strcmp(o->name, "version") ||
		    !strcmp(o->name, "print-plan")) {
			assert_null(k);
			continue;
		}
		if (!k)
			fail_msg("--%s has no plan key (results/plan.c)", o->name);
		if (!json_object_get(p, k))
			fail_msg("--%s: no key '%s' in the plan", o->name, k);
		snprintf(name, sizeof(name), "--%s", o->name);
		assert_string_equal(json_string_value(json_object_get(keys, name)), k);
		n++;
	}
	assert_int_equal(json_object_size(keys), n); /* and no key for an option that is gone */
	assert_true(n >= 47);
	assert_null(drv_plan_key("no-such-option"));
	json_decref(p);
}

static void test_open_loop_values(void **state)
{
	json_t *p = plan_of("tcp://127.0.0.1:7000 -c 100 -t 2 -d 2m --rate 5k --connect-rate 500 "
			    "--new-conn --warmup 250ms --timeout 50ms --print-plan");
	json_t *t = json_object_get(p, "target");

	assert_string_equal(str(p, "kind"), "plan");
	assert_string_equal(str(p, "loop"), "open");
	assert_true(num(p, "connections") == 100 && num(p, "threads") == 2);
	assert_true(num(p, "duration_s") == 120.0);
	assert_true(fabs(num(p, "warmup_s") - 0.25) < 1e-12);
	assert_true(fabs(num(p, "timeout_s") - 0.05) < 1e-12);
	assert_true(num(p, "rate") == 5000.0);
	assert_true(num(p, "connect_rate") == 500.0);
	assert_string_equal(str(p, "conn_model"), "new-conn");
	assert_true(num(p, "reconnect_every") == 1);
	assert_true(json_is_null(json_object_get(p, "requests")));
	assert_string_equal(str(t, "scheme"), "tcp");
	assert_string_equal(str(t, "address"), "127.0.0.1:7000");
	assert_true(json_is_true(json_object_get(t, "loopback")));
	json_decref(p);
}

static void test_closed_loop_defaults(void **state)
{
	json_t *p = plan_of("http://[::1]:8080/x -n 10 -H X-A:1 --source-addr ::1,::2 --shard 1/4");
	json_t *t = json_object_get(p, "target"), *sh = json_object_get(p, "shard");

	assert_string_equal(str(p, "loop"), "closed");
	assert_true(json_is_null(json_object_get(p, "rate")));
	assert_true(json_is_null(json_object_get(p, "duration_s")));
	assert_true(json_is_null(json_object_get(p, "connect_rate")));
	assert_true(num(p, "requests") == 10 && num(p, "connections") == 1);
	assert_true(num(p, "timeout_s") == 5.0 && num(p, "interval_s") == 1.0);
	assert_string_equal(str(p, "conn_model"), "keep-alive");
	assert_string_equal(str(p, "method"), "GET");
	assert_string_equal(json_string_value(json_array_get(json_object_get(p, "headers"), 0)),
			    "X-A:1");
	assert_int_equal(json_array_size(json_object_get(p, "source_addrs")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(p, "source_addrs"),
							     1)), "::2");
	assert_true(num(sh, "index") == 1 && num(sh, "count") == 4);
	assert_true(json_is_null(json_object_get(p, "tls_verify"))); /* not TLS */
	assert_string_equal(str(t, "path"), "/x");
	assert_string_equal(str(t, "family"), "ipv6");
	assert_true(json_is_true(json_object_get(t, "loopback")));
	json_decref(p);
	p = plan_of("https://10.0.0.5/ -n 1 -k");
	t = json_object_get(p, "target");
	assert_true(json_is_false(json_object_get(p, "tls_verify")));
	assert_true(num(t, "port") == 443);
	assert_true(json_is_false(json_object_get(t, "loopback")));
	json_decref(p);
}

/* --print-plan is no way round a check: a bad command line fails as it would for a run. */
static void test_bad_still_fails(void **state)
{
	static const char *const bad[] = {
		"tcp://127.0.0.1:7000 -c 0 -n 1 --print-plan",
		"--print-plan tcp://127.0.0.1:7000",
		"tcp://127.0.0.1:7000 -n 1 --connect-rate 0 --print-plan",
		"udp://127.0.0.1:9 -n 1 --new-conn --print-plan",
	};

	refuse_all(bad, sizeof(bad) / sizeof(bad[0]));
}

/* A header that is not UTF-8 is still JSON: its bytes as \xHH. */
static void test_text_not_utf8(void **state)
{
	json_t *p = plan_of("http://127.0.0.1/ -n 1 -H X-B:\xff\xfe");
	char *s = json_dumps(p, 0);

	assert_non_null(s);
	assert_non_null(strstr(s, "X-B:\\\\xff\\\\xfe"));
	free(s);
	json_decref(p);
}

/* the protocols' tables, as main() registers them (apps.h): their keys are in the plan */
static int register_apps(void **state)
{
	(void)state;
	drv_apps_register();
	return 0;
}

LL_TEST_MAIN_GROUP(register_apps, NULL, test_every_option_has_a_key, test_open_loop_values, test_closed_loop_defaults,
	     test_bad_still_fails, test_text_not_utf8)
