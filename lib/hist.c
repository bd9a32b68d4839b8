// SPDX-License-Identifier: MIT
/* Recording, merging and statistics for the shared log-linear histogram. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/ll_hist.h"

struct ll_hist *ll_hist_new(void)
{
	struct ll_hist *h = malloc(sizeof(*h));

	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	ll_hist_reset(h);
	return h;
}

void ll_hist_free(struct ll_hist *h)
{
	free(h);
}

void ll_hist_reset(struct ll_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static void add_sum(struct ll_hist *h, uint64_t v, uint64_t n)
{
	uint64_t add;

	if (n && v > UINT64_MAX / n) {
		h->sum = UINT64_MAX;
		return;
	}
	add = v * n;
	h->sum = (h->sum > UINT64_MAX - add) ? UINT64_MAX : h->sum + add;
}

void ll_hist_record_n(struct ll_hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	h->counts[ll_hist_bucket(v)] += n;
	h->total += n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	add_sum(h, v, n);
}

uint64_t ll_hist_bucket_value(uint32_t idx)
{
	if (idx >= LL_HIST_BUCKETS)
		idx = LL_HIST_BUCKETS - 1;
	return ll_hist_bucket_low(idx) + ll_hist_bucket_width(idx) / 2;
}

void ll_hist_add_bucket(struct ll_hist *h, uint32_t idx, uint64_t n)
{
	uint64_t lo, hi;

	if (!n || idx >= LL_HIST_BUCKETS)
		return;
	lo = ll_hist_bucket_low(idx);
	hi = lo + ll_hist_bucket_width(idx) - 1;
	h->counts[idx] += n;
	h->total += n;
	if (lo < h->min)
		h->min = lo;
	if (hi > h->max)
		h->max = hi;
	add_sum(h, ll_hist_bucket_value(idx), n);
}

void ll_hist_merge(struct ll_hist *dst, const struct ll_hist *src)
{
	uint32_t i;

	if (!src->total)
		return;
	for (i = 0; i < LL_HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum = (dst->sum > UINT64_MAX - src->sum) ? UINT64_MAX : dst->sum + src->sum;
}

bool ll_hist_equal(const struct ll_hist *a, const struct ll_hist *b)
{
	return a->total == b->total && a->sum == b->sum && ll_hist_min(a) == ll_hist_min(b) &&
	       a->max == b->max && !memcmp(a->counts, b->counts, sizeof(a->counts));
}

static uint64_t clamp(const struct ll_hist *h, uint64_t v)
{
	if (v < h->min)
		return h->min;
	if (v > h->max)
		return h->max;
	return v;
}

uint64_t ll_hist_percentile(const struct ll_hist *h, double p)
{
	uint64_t rank, seen = 0;
	uint32_t i;

	if (!h->total)
		return 0;
	if (p <= 0.0)
		return h->min;
	if (p >= 100.0)
		return h->max;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->total);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < LL_HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			return clamp(h, ll_hist_bucket_value(i));
	}
	return h->max;
}

double ll_hist_mean(const struct ll_hist *h)
{
	if (!h->total)
		return 0.0;
	return (double)h->sum / (double)h->total;
}

double ll_hist_stddev(const struct ll_hist *h)
{
	double mean, acc = 0.0, d;
	uint32_t i;

	if (h->total < 2)
		return 0.0;
	mean = ll_hist_mean(h);
	for (i = 0; i < LL_HIST_BUCKETS; i++) {
		if (!h->counts[i])
			continue;
		d = (double)clamp(h, ll_hist_bucket_value(i)) - mean;
		acc += d * d * (double)h->counts[i];
	}
	return sqrt(acc / (double)h->total);
}
