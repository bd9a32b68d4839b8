// SPDX-License-Identifier: MIT
/*
 * The shared histogram against exact percentiles of known distributions.
 * Stated bound: every percentile within 1% of the exact order statistic from 1 us to 100 s.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/hist_fast.h"
#include "loadlens/hist_json.h"
#include "loadlens/ll_hist.h"

#define N_SAMPLES 200000

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng_next(void)
{
	/* splitmix64: deterministic, so a failure reproduces */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(void)
{
	return (double)(rng_next() >> 11) / 9007199254740992.0; /* [0, 1) */
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static const double percentiles[] = {0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99};

/* Records samples, then checks count/min/max/mean exactly and percentiles/stddev to 1%. */
static void check_against_exact(uint64_t *v, size_t n)
{
	struct ll_hist *h = ll_hist_new();
	long double sum = 0, mean, var = 0;
	size_t i;

	assert_non_null(h);
	for (i = 0; i < n; i++) {
		ll_hist_record(h, v[i]);
		sum += v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(ll_hist_count(h), n);
	assert_int_equal(ll_hist_min(h), v[0]);
	assert_int_equal(ll_hist_max(h), v[n - 1]);
	mean = sum / n;
	assert_true(fabsl((long double)ll_hist_mean(h) - mean) <= mean * 1e-9L);
	for (i = 0; i < n; i++)
		var += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	if (var > 0) {
		long double sd = sqrtl(var / n);

		assert_true(fabsl((long double)ll_hist_stddev(h) - sd) <= 0.01L * sd + 1.0L);
	}
	for (i = 0; i < sizeof(percentiles) / sizeof(percentiles[0]); i++) {
		double p = percentiles[i];
		size_t rank = (size_t)ceil(p / 100.0 * (double)n);
		uint64_t exact = v[(rank ? rank : 1) - 1];
		uint64_t got = ll_hist_percentile(h, p);
		double rel = fabs((double)got - (double)exact) / (double)exact;

		if (rel > 0.01)
			fail_msg("p%g: got %llu, exact %llu (%.3f%% off)", p,
				 (unsigned long long)got, (unsigned long long)exact, rel * 100);
	}
	assert_int_equal(ll_hist_percentile(h, 100), v[n - 1]);
	assert_int_equal(ll_hist_percentile(h, 0), v[0]);
	ll_hist_free(h);
}

static void test_uniform(void **state)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof(*v));
	size_t i;

	for (i = 0; i < N_SAMPLES; i++) /* uniform on [1 ms, 10 ms] */
		v[i] = 1000000 + (uint64_t)(rng_unit() * 9000000.0);
	check_against_exact(v, N_SAMPLES);
	free(v);
}

static void test_log_uniform_full_range(void **state)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof(*v));
	size_t i;

	for (i = 0; i < N_SAMPLES; i++) /* log-uniform on [1 us, 100 s]: every octave covered */
		v[i] = (uint64_t)(1e3 * pow(10.0, 8.0 * rng_unit()));
	check_against_exact(v, N_SAMPLES);
	free(v);
}

static void test_exponential(void **state)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof(*v));
	size_t i;

	for (i = 0; i < N_SAMPLES; i++) /* 1 us + exponential, mean 1 ms */
		v[i] = 1000 + (uint64_t)(-log(1.0 - rng_unit()) * 1e6);
	check_against_exact(v, N_SAMPLES);
	free(v);
}

static void test_bimodal(void **state)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof(*v));
	size_t i;

	for (i = 0; i < N_SAMPLES; i++) { /* 90% near 200 us, 10% near 50 ms */
		double base = (rng_next() % 10) ? 200e3 : 50e6;

		v[i] = (uint64_t)(base * (0.9 + 0.2 * rng_unit()));
	}
	check_against_exact(v, N_SAMPLES);
	free(v);
}

static void test_single_value(void **state)
{
	static const uint64_t values[] = {1000, 1234567, 999999999, 100000000000ULL};
	size_t i, j;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint64_t *v = malloc(1000 * sizeof(*v));

		for (j = 0; j < 1000; j++)
			v[j] = values[i];
		check_against_exact(v, 1000);
		free(v);
	}
}

static void test_bucket_function(void **state)
{
	uint64_t v;
	uint32_t prev = 0, idx;
	int i;

	/* exact below 256 ns, monotone, and every value inside its bucket's bounds */
	for (v = 0; v < 256; v++)
		assert_int_equal(ll_hist_bucket(v), v);
	for (i = 0; i < 1000000; i++) {
		v = rng_next() >> (rng_next() % 64);
		idx = ll_hist_bucket(v);
		assert_true(idx < LL_HIST_BUCKETS);
		if (v <= LL_HIST_MAX_VALUE) {
			assert_true(ll_hist_bucket_low(idx) <= v);
			assert_true(v < ll_hist_bucket_low(idx) + ll_hist_bucket_width(idx));
			/* a bucket is never wider than 1/128 of its lowest value */
			assert_true(ll_hist_bucket_width(idx) * LL_HIST_SUB_COUNT <=
				    ll_hist_bucket_low(idx) || ll_hist_bucket_width(idx) == 1);
		} else {
			assert_int_equal(idx, LL_HIST_BUCKETS - 1);
		}
	}
	for (v = 1; v < (1ULL << 40); v = v * 3 / 2 + 1) {
		idx = ll_hist_bucket(v);
		assert_true(idx >= prev);
		prev = idx;
	}
	assert_int_equal(ll_hist_bucket(LL_HIST_MAX_VALUE), LL_HIST_BUCKETS - 1);
	assert_int_equal(ll_hist_bucket(UINT64_MAX), LL_HIST_BUCKETS - 1);
	for (idx = 1; idx < LL_HIST_BUCKETS; idx++) /* buckets tile the range with no gap */
		assert_int_equal(ll_hist_bucket_low(idx),
				 ll_hist_bucket_low(idx - 1) + ll_hist_bucket_width(idx - 1));
}

/* The BPF programs' table-driven bucket function equals ll_hist_bucket() everywhere, and BPF's
 * compare-and-shift top bit equals userspace's instruction: around every power of two, and at
 * pseudo-random values of every magnitude. */
static void test_bucket_fast(void **state)
{
	uint64_t v, x = LL_TEST_SEED;
	int b, i;

	(void)state;
	for (v = 0; v < 4096; v++) {
		assert_int_equal(ll_hist_bucket_fast(v), ll_hist_bucket(v));
		if (v)
			assert_int_equal(ll_hist_msb_steps(v), ll_hist_msb(v));
	}
	for (b = 1; b < 64; b++)
		for (i = -3; i <= 3; i++) {
			v = (1ULL << b) + (uint64_t)(int64_t)i;
			assert_int_equal(ll_hist_bucket_fast(v), ll_hist_bucket(v));
			if (v)
				assert_int_equal(ll_hist_msb_steps(v), ll_hist_msb(v));
		}
	for (i = 0; i < 1000000; i++) {
		ll_xorshift(&x);
		v = x >> (x % 64);
		assert_int_equal(ll_hist_bucket_fast(v), ll_hist_bucket(v));
		if (v)
			assert_int_equal(ll_hist_msb_steps(v), ll_hist_msb(v));
	}
	assert_int_equal(ll_hist_msb_steps(UINT64_MAX), 63);
	assert_int_equal(ll_hist_msb(UINT64_MAX), 63);
	assert_int_equal(ll_hist_bucket_fast(UINT64_MAX), ll_hist_bucket(UINT64_MAX));
}

static void test_merge_is_exact(void **state)
{
	struct ll_hist *a = ll_hist_new(), *b = ll_hist_new(), *all = ll_hist_new();
	int i;

	for (i = 0; i < 100000; i++) {
		uint64_t v = 500 + rng_next() % 50000000;

		ll_hist_record(all, v);
		ll_hist_record(i % 3 ? a : b, v);
	}
	assert_false(ll_hist_equal(a, all));
	ll_hist_merge(a, b);
	assert_true(ll_hist_equal(a, all));
	assert_int_equal(ll_hist_percentile(a, 99), ll_hist_percentile(all, 99));
	ll_hist_free(a);
	ll_hist_free(b);
	ll_hist_free(all);
}

static void test_json_round_trip(void **state)
{
	struct ll_hist *h = ll_hist_new(), *back = ll_hist_new();
	json_t *j, *bad;
	char *text;
	int i;

	for (i = 0; i < 50000; i++)
		ll_hist_record(h, 1000 + rng_next() % 100000000);
	j = ll_hist_to_json(h);
	assert_non_null(j);
	text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	j = json_loads(text, 0, NULL);
	free(text);
	assert_int_equal(ll_hist_from_json(back, j), 0);
	assert_true(ll_hist_equal(h, back));
	/* a histogram whose bucket counts do not add up to its count is rejected */
	json_object_set_new(j, "count", json_integer(1));
	assert_int_equal(ll_hist_from_json(back, j), -EINVAL);
	bad = json_pack("{s:i}", "sub_bits", 6);
	assert_int_equal(ll_hist_from_json(back, bad), -EINVAL);
	json_decref(bad);
	json_decref(j);
	ll_hist_free(h);
	ll_hist_free(back);
}

static void test_empty_and_free_null(void **state)
{
	struct ll_hist *h = ll_hist_new();

	assert_int_equal(ll_hist_count(h), 0);
	assert_int_equal(ll_hist_percentile(h, 50), 0);
	assert_int_equal(ll_hist_min(h), 0);
	assert_true(ll_hist_mean(h) == 0.0);
	ll_hist_free(h);
	ll_hist_free(NULL);
}

LL_TEST_MAIN(test_bucket_function, test_bucket_fast, test_uniform, test_log_uniform_full_range,
	     test_exponential, test_bimodal, test_single_value, test_merge_is_exact,
	     test_json_round_trip, test_empty_and_free_null)
