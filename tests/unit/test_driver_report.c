// SPDX-License-Identifier: MIT
/* Report rules: no bottleneck verdict on a tiny run, durations without exponents, safe quoting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/cli.h"
#include "config/parse.h"
#include "results/report.h"
#include "h2/h2_report.h"
#include "run.h"

/* A run whose busiest thread used 183% of a core. */
static void busy_run(struct drv_result *res, uint64_t duration_ns, uint64_t requests)
{
	memset(res, 0, sizeof(*res));
	assert_int_equal(drv_stats_init(&res->total), 0);
	res->duration_ns = duration_ns;
	res->total.requests = requests;
	res->max_thread_cpu_ns = res->max_thread_work_ns = duration_ns * 183 / 100;
}

static void test_bottleneck_small_runs(void **state)
{
	struct drv_config cfg;
	struct drv_result res;
	char buf[400];

	drv_config_init(&cfg);
	/* one request: no verdict */
	busy_run(&res, 200000, 1);
	assert_null(drv_report_bottleneck(&cfg, &res, buf, sizeof(buf)));
	drv_result_fini(&res);
	/* many requests, but 50 ms */
	busy_run(&res, 50000000, 100000);
	assert_null(drv_report_bottleneck(&cfg, &res, buf, sizeof(buf)));
	drv_result_fini(&res);
	/* 2 s, but 999 requests */
	busy_run(&res, 2000000000ULL, 999);
	assert_null(drv_report_bottleneck(&cfg, &res, buf, sizeof(buf)));
	drv_result_fini(&res);
	/* 2 s and 1,000 requests: the verdict stands */
	busy_run(&res, 2000000000ULL, 1000);
	assert_non_null(drv_report_bottleneck(&cfg, &res, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "183%"));
	drv_result_fini(&res);
	/* and a calm run stays silent */
	busy_run(&res, 2000000000ULL, 100000);
	res.max_thread_cpu_ns = res.max_thread_work_ns = res.duration_ns / 10;
	assert_null(drv_report_bottleneck(&cfg, &res, buf, sizeof(buf)));
	drv_result_fini(&res);
	/* 99% of a core, 56% of it the pacer spinning to its next send (50k/s kept
	 * with send lag p99 5 us): no verdict */
	busy_run(&res, 2980000000ULL, 149000);
	res.max_thread_cpu_ns = res.duration_ns * 99 / 100;
	res.max_thread_work_ns = res.max_thread_cpu_ns - 1660000000ULL;
	assert_null(drv_report_bottleneck(&cfg, &res, buf, sizeof(buf)));
	/* the same with the thread working all of it: the verdict */
	res.max_thread_work_ns = res.max_thread_cpu_ns;
	assert_non_null(drv_report_bottleneck(&cfg, &res, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "worked 99% of a core"));
	drv_result_fini(&res);
}

static void test_fmt_ns(void **state)
{
	static const struct {
		double ns;
		const char *want;
	} cases[] = {
		{0, "0ns"},	       {812, "812ns"},	       {999.4, "999ns"},
		{999.6, "1.00us"},     {1000, "1.00us"},       {12345, "12.3us"},
		{999400, "999us"},     {999960, "1.00ms"},     {1250000, "1.25ms"},
		{99960000, "100ms"},   {999600000, "1.00s"},   {1e9, "1.00s"},
		{3.4e9, "3.40s"},      {61.5e9, "61.5s"},      {3600e9, "3600s"},
	};
	char b[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(ll_fmt_ns(cases[i].ns, b, sizeof(b)), cases[i].want);
}

/* The http/2 and grpc lines, their hints and JSON: what a grpc run counted, and nothing for tcp. */
static void test_h2_report(void **state)
{
	struct drv_config cfg;
	struct drv_result res;
	char *text = NULL, err[256];
	char *argv[] = {"loadlens-driver", "grpc://127.0.0.1:50051/kv.Store/Put", "-n", "10",
			"--streams", "8", NULL};
	char *tcp_argv[] = {"loadlens-driver", "tcp://127.0.0.1:7000", "-n", "10", NULL};
	size_t len = 0;
	json_t *o;
	FILE *f;

	assert_int_equal(drv_config_parse(&cfg, 6, argv, err, sizeof(err)), 0);
	busy_run(&res, 1000000000, 900);
	res.total.h2_max_streams = 100;
	res.total.h2_max_streams_set = 1;
	res.total.h2_settings = 4;
	res.total.h2_peak_streams = 8;
	res.total.h2_rst[7] = 3; /* REFUSED_STREAM */
	res.total.h2_goaway = 2;
	res.total.h2_goaway_retried = 6;
	res.total.h2_flow_stalls = 5;
	res.total.grpc_status[0] = 900;
	res.total.grpc_status[8] = 100;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	drv_report_h2(f, &cfg, &res.total);
	drv_report_h2_hints(f, &cfg, &res.total);
	fclose(f);
	assert_non_null(strstr(text, "--streams 8, at most 8 in flight on one connection; server "
				     "max 100"));
	assert_non_null(strstr(text, "GOAWAY 2 (streams refused and sent again 6; refused twice "
				     "0), flow-control stalls 5, RST_STREAM REFUSED_STREAM: 3"));
	assert_non_null(strstr(text, "hint: h2 goaway: 2 GOAWAY frames: "));
	assert_non_null(strstr(text, "sent the 6 streams they refused again"));
	assert_non_null(strstr(text, "grpc status  OK: 900, RESOURCE_EXHAUSTED: 100"));
	assert_non_null(strstr(text, "hint: grpc RESOURCE_EXHAUSTED: 100 calls: "));
	assert_non_null(strstr(text, "hint: h2 flow control: 5 "));
	assert_null(strstr(text, "hint: grpc OK")); /* OK needs no hint */
	free(text);
	o = json_object();
	assert_int_equal(drv_report_json_h2(o, &cfg, &res), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "h2"),
							     "server_max_streams")), 100);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
					     o, "h2"), "rst_stream"), "REFUSED_STREAM")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "h2"),
							     "goaway_retried")), 6);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "grpc_status"),
							     "RESOURCE_EXHAUSTED")), 100);
	json_decref(o);
	drv_result_fini(&res);
	drv_config_fini(&cfg);

	/* tcp: no http/2 line, no h2 key (getopt reordered argv: a new one) */
	assert_int_equal(drv_config_parse(&cfg, 4, tcp_argv, err, sizeof(err)), 0);
	busy_run(&res, 1000000000, 900);
	text = NULL;
	f = open_memstream(&text, &len);
	drv_report_h2(f, &cfg, &res.total);
	fclose(f);
	assert_string_equal(text, "");
	free(text);
	o = json_object();
	assert_int_equal(drv_report_json_h2(o, &cfg, &res), 0);
	assert_null(json_object_get(o, "h2"));
	json_decref(o);
	drv_result_fini(&res);
	drv_config_fini(&cfg);
}

LL_TEST_MAIN(test_bottleneck_small_runs, test_fmt_ns, test_h2_report)
