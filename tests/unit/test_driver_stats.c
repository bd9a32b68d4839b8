// SPDX-License-Identifier: MIT
/* Per-thread stats: error classes and the exact merge of counters and histograms. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "results/stats.h"

static void test_classes(void **state)
{
	assert_int_equal(drv_err_class(-EADDRNOTAVAIL), DRV_ERR_ADDRNOTAVAIL);
	assert_int_equal(drv_err_class(-EADDRINUSE), DRV_ERR_ADDRNOTAVAIL);
	assert_int_equal(drv_err_class(-EMFILE), DRV_ERR_EMFILE);
	assert_int_equal(drv_err_class(-ENFILE), DRV_ERR_EMFILE);
	assert_int_equal(drv_err_class(-ECONNREFUSED), DRV_ERR_CONNREFUSED);
	assert_int_equal(drv_err_class(-EPIPE), DRV_ERR_CONNRESET);
	assert_int_equal(drv_err_class(-ETIMEDOUT), DRV_ERR_TIMEDOUT);
	assert_int_equal(drv_err_class(DRV_E_LOST), DRV_ERR_LOST);
	assert_int_equal(drv_err_class(DRV_E_SHORT), DRV_ERR_SHORT);
	assert_int_equal(drv_err_class(DRV_E_HTTP_STATUS), DRV_ERR_HTTP);
	assert_int_equal(drv_err_class(-EHOSTUNREACH), DRV_ERR_OTHER);
}

static void test_hints(void **state)
{
	struct drv_stats s;
	char buf[400];
	int e;

	assert_int_equal(drv_stats_init(&s), 0);
	drv_stats_error(&s, -EHOSTUNREACH);
	for (e = 0; e < DRV_ERR__COUNT; e++) {
		assert_non_null(drv_err_hint((enum drv_err)e, &s, "h:1", buf, sizeof(buf)));
		assert_true(strlen(buf) > 10);
		assert_null(strchr(buf, '\n'));
	}
	assert_non_null(strstr(drv_err_hint(DRV_ERR_OTHER, &s, "h:1", buf, sizeof(buf)),
			       "route"));
	assert_non_null(strstr(drv_err_hint(DRV_ERR_ADDRNOTAVAIL, &s, "h:1", buf, sizeof(buf)),
			       "ip_local_port_range"));
	/* TIME_WAIT is held 60 s, or reused after 1 s, as tcp_tw_reuse says */
	assert_non_null(strstr(drv_tw_hint(2, true, buf, sizeof(buf)), "reused once its "
			       "TIME_WAIT is 1 s old"));
	assert_non_null(strstr(drv_tw_hint(1, false, buf, sizeof(buf)), "tcp_tw_reuse 1"));
	assert_non_null(strstr(drv_tw_hint(1, false, buf, sizeof(buf)), "1 s old"));
	assert_non_null(strstr(drv_tw_hint(2, false, buf, sizeof(buf)), "for 60 s"));
	assert_non_null(strstr(drv_tw_hint(0, true, buf, sizeof(buf)), "for 60 s"));
	assert_non_null(strstr(drv_tw_hint(-1, true, buf, sizeof(buf)), "unreadable"));
	drv_stats_fini(&s);
}

static void test_merge(void **state)
{
	struct drv_stats a, b, all, m;
	uint64_t v;

	assert_int_equal(drv_stats_init(&a), 0);
	assert_int_equal(drv_stats_init(&b), 0);
	assert_int_equal(drv_stats_init(&all), 0);
	assert_int_equal(drv_stats_init(&m), 0);
	for (v = 1; v < 100000; v += 7) {
		struct drv_stats *s = v % 3 ? &a : &b;

		drv_stats_response(s, 0, v / 2, v);
		drv_stats_response(&all, 0, v / 2, v);
		s->requests++;
		all.requests++;
		s->status[200]++;
		all.status[200]++;
	}
	drv_stats_error(&a, -ECONNRESET);
	drv_stats_error(&all, -ECONNRESET);
	drv_stats_error(&b, DRV_E_LOST);
	drv_stats_error(&all, DRV_E_LOST);
	a.late = 2;
	all.late = 2;
	drv_stats_merge(&m, &a);
	drv_stats_merge(&m, &b);
	assert_int_equal(m.requests, all.requests);
	assert_int_equal(m.errors_total, 2);
	assert_int_equal(m.errors[DRV_ERR_CONNRESET], 1);
	assert_int_equal(m.errors[DRV_ERR_LOST], 1);
	assert_int_equal(m.status[200], all.status[200]);
	assert_int_equal(m.late, 2);
	assert_true(ll_hist_equal(m.latency, all.latency));
	assert_true(ll_hist_equal(m.latency_uncorrected, all.latency_uncorrected));
	assert_int_equal(ll_hist_percentile(m.latency, 99), ll_hist_percentile(all.latency, 99));
	drv_stats_fini(&m);
	drv_stats_fini(&all);
	drv_stats_fini(&b);
	drv_stats_fini(&a);
}

/* Every counter of the one list adds up, each into itself (distinct fields, distinct keys). */
static void test_merge_sums(void **state)
{
	struct drv_stats a, b, m;
	size_t i, j;

	assert_int_equal(drv_stats_init(&a), 0);
	assert_int_equal(drv_stats_init(&b), 0);
	assert_int_equal(drv_stats_init(&m), 0);
	assert_true(drv_stats_nsums >= 19);
	for (i = 0; i < drv_stats_nsums; i++) {
		*drv_stats_sum_at(&a, i) = i + 1;
		*drv_stats_sum_at(&b, i) = 100 * (i + 1);
		for (j = 0; j < i; j++) {
			assert_int_not_equal(drv_stats_sums[i].off, drv_stats_sums[j].off);
			assert_string_not_equal(drv_stats_sums[i].key, drv_stats_sums[j].key);
		}
	}
	drv_stats_merge(&m, &a);
	drv_stats_merge(&m, &b);
	for (i = 0; i < drv_stats_nsums; i++)
		assert_int_equal(*drv_stats_sum_at(&m, i), 101 * (i + 1));
	assert_int_equal(m.late, 101 * 7); /* "late_replies", the 7th */
	drv_stats_fini(&m);
	drv_stats_fini(&b);
	drv_stats_fini(&a);
}

LL_TEST_MAIN(test_classes, test_hints, test_merge, test_merge_sums)
