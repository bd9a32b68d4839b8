// SPDX-License-Identifier: MIT
/*
 * `merge` is exact: two shard results written as JSON and merged give the same histograms and
 * counts as one result holding both sets of samples; percentiles come from the merged buckets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "config/parse.h"
#include "results/merge.h"
#include "results/report.h"
#include "run.h"

static void fill(struct drv_result *r, uint64_t seed, uint64_t n, uint64_t start)
{
	uint64_t i, x = seed;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		/* a heavy tail: mostly ~100 us, some up to ~1 s */
		uint64_t v = 50000 + (x >> 40) % 100000 + ((x >> 20) % 100 == 0 ? (x >> 34) : 0);

		drv_stats_response(&r->total, 0, v / 3, v);
		ll_hist_record(r->total.connect, v / 10);
		r->total.requests++;
		r->total.status[200 + (int)(x % 2) * 204]++;
	}
	drv_stats_error(&r->total, -ECONNREFUSED);
	r->total.bytes_sent = n * 10;
	r->start_unix_ns = start;
	r->duration_ns = 1000000000ULL;
}

static void test_merge_exact(void **state)
{
	struct drv_result a = {0}, b = {0}, both = {0};
	struct drv_config cfg;
	struct drv_merge m;
	char *argv[] = {"loadlens-driver", "http://127.0.0.1:8080/", "-n", "1", "--shard", "0/2",
			NULL};
	char err[256];
	json_t *ja, *jb;

	assert_int_equal(drv_config_parse(&cfg, 6, argv, err, sizeof(err)), 0);
	assert_int_equal(drv_stats_init(&a.total), 0);
	assert_int_equal(drv_stats_init(&b.total), 0);
	assert_int_equal(drv_stats_init(&both.total), 0);
	fill(&a, 1, 30000, 1000000000000ULL);
	fill(&b, 2, 20000, 1000500000000ULL);
	fill(&both, 1, 30000, 0);
	fill(&both, 2, 20000, 0);

	ja = drv_report_json(&cfg, &a);
	jb = drv_report_json(&cfg, &b);
	assert_non_null(ja);
	assert_non_null(jb);
	assert_int_equal(drv_merge_init(&m), 0);
	assert_int_equal(drv_merge_add(&m, ja, err, sizeof(err)), 0);
	assert_int_equal(drv_merge_add(&m, jb, err, sizeof(err)), 0);
	drv_merge_finish(&m);

	assert_int_equal(m.res.merged, 2);
	assert_int_equal(m.res.total.requests, 50000);
	assert_int_equal(m.res.total.errors[DRV_ERR_CONNREFUSED], 2);
	assert_int_equal(m.res.total.errors_total, 2);
	assert_int_equal(m.res.total.bytes_sent, 500000);
	assert_int_equal(m.res.total.status[200], both.total.status[200]);
	assert_int_equal(m.res.total.status[404], both.total.status[404]);
	assert_true(ll_hist_equal(m.res.total.latency, both.total.latency));
	assert_true(ll_hist_equal(m.res.total.latency_uncorrected, both.total.latency_uncorrected));
	assert_true(ll_hist_equal(m.res.total.connect, both.total.connect));
	assert_int_equal(ll_hist_percentile(m.res.total.latency, 99.9),
			 ll_hist_percentile(both.total.latency, 99.9));
	/* the window runs from the first start to the last end */
	assert_int_equal(m.res.duration_ns, 1500000000ULL);
	assert_int_equal(m.cfg.connections, 2);

	/* a run of another target does not merge */
	json_object_set_new(jb, "target", json_string("http://10.0.0.1:80/"));
	assert_int_equal(drv_merge_add(&m, jb, err, sizeof(err)), -EINVAL);
	json_object_set_new(jb, "tool", json_string("wrk"));
	assert_int_equal(drv_merge_add(&m, jb, err, sizeof(err)), -EINVAL);

	drv_merge_fini(&m);
	json_decref(ja);
	json_decref(jb);
	drv_result_fini(&a);
	drv_result_fini(&b);
	drv_result_fini(&both);
	drv_config_fini(&cfg);
}

/*
 * -p's processes each stop on failed negotiations by themselves: the merge says negotiation only
 * if every run does, keeps the first failure, and adds the counts of the same reason.
 */
static void test_merge_negotiation(void **state)
{
	struct drv_result r[3];
	struct drv_config cfg;
	struct drv_merge m;
	char *argv[] = {"loadlens-driver", "https://localhost:8443/", "-d", "1s", NULL};
	char err[256];
	json_t *j[3], *nf;
	int i;

	(void)state;
	memset(r, 0, sizeof(r));
	assert_int_equal(drv_config_parse(&cfg, 4, argv, err, sizeof(err)), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(drv_stats_init(&r[i].total), 0);
		r[i].reason = DRV_STOP_NEGOTIATION;
		drv_result_negotiation(&r[i], DRV_E_TLS, "self-signed certificate", 2);
	}
	r[2].reason = DRV_STOP_DURATION; /* a process whose connections were answered */
	for (i = 0; i < 3; i++) {
		j[i] = drv_report_json(&cfg, &r[i]);
		assert_non_null(j[i]);
	}
	nf = json_object_get(j[0], "negotiation_failure");
	assert_string_equal(json_string_value(json_object_get(nf, "reason")),
			    "self-signed certificate");
	assert_int_equal(json_integer_value(json_object_get(nf, "count")), 2);

	assert_int_equal(drv_merge_init(&m), 0);
	assert_int_equal(drv_merge_add(&m, j[0], err, sizeof(err)), 0);
	assert_int_equal(drv_merge_add(&m, j[1], err, sizeof(err)), 0);
	assert_int_equal(m.res.reason, DRV_STOP_NEGOTIATION);
	assert_int_equal(m.res.neg_err, DRV_E_TLS);
	assert_int_equal(m.res.neg_count, 4);
	assert_string_equal(m.res.neg_why, "self-signed certificate");
	assert_int_equal(drv_merge_add(&m, j[2], err, sizeof(err)), 0);
	assert_int_equal(m.res.reason, DRV_STOP_DURATION);
	assert_int_equal(m.res.neg_count, 6);
	drv_merge_fini(&m);

	for (i = 0; i < 3; i++) {
		json_decref(j[i]);
		drv_result_fini(&r[i]);
	}
	drv_config_fini(&cfg);
}

LL_TEST_MAIN(test_merge_exact, test_merge_negotiation)
