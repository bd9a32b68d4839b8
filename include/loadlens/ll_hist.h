/* SPDX-License-Identifier: MIT */
/*
 * Userspace side of the shared histogram: recording, merging and statistics.
 *
 * struct ll_hist holds one counter per bucket of include/loadlens/hist.h plus the exact count,
 * minimum, maximum and sum of what was recorded. Percentiles and the standard deviation are
 * computed from the buckets (so they are the same whether the counts came from BPF or from the
 * driver); the mean is exact. Two histograms merge exactly: ll_hist_merge() adds counters.
 */
#ifndef LOADLENS_LL_HIST_H
#define LOADLENS_LL_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include "loadlens/hist.h"

struct ll_hist {
	uint64_t counts[LL_HIST_BUCKETS];
	uint64_t total;
	uint64_t min; /* UINT64_MAX while empty */
	uint64_t max;
	uint64_t sum; /* ns; saturates instead of wrapping */
};

struct ll_hist *ll_hist_new(void);
void ll_hist_free(struct ll_hist *h);
void ll_hist_reset(struct ll_hist *h);

void ll_hist_record_n(struct ll_hist *h, uint64_t value_ns, uint64_t n);
/* One value: inline, it is every request's path in the driver (a call costs as much). */
static inline void ll_hist_record(struct ll_hist *h, uint64_t value_ns)
{
	h->counts[ll_hist_bucket(value_ns)]++;
	h->total++;
	if (value_ns < h->min)
		h->min = value_ns;
	if (value_ns > h->max)
		h->max = value_ns;
	h->sum = h->sum > UINT64_MAX - value_ns ? UINT64_MAX : h->sum + value_ns;
}
/*
 * Add n samples known only by bucket (an in-kernel histogram). min/max/sum are updated from the
 * bucket's representative value unless the caller sets them exactly afterwards.
 */
void ll_hist_add_bucket(struct ll_hist *h, uint32_t idx, uint64_t n);
void ll_hist_merge(struct ll_hist *dst, const struct ll_hist *src);
bool ll_hist_equal(const struct ll_hist *a, const struct ll_hist *b);

/* Representative value of bucket idx: its midpoint. */
uint64_t ll_hist_bucket_value(uint32_t idx);

/* p in [0, 100]; 0 when empty. p = 0 gives min, p = 100 gives max. */
uint64_t ll_hist_percentile(const struct ll_hist *h, double p);
double ll_hist_mean(const struct ll_hist *h);
double ll_hist_stddev(const struct ll_hist *h);
static inline uint64_t ll_hist_count(const struct ll_hist *h)
{
	return h->total;
}
static inline uint64_t ll_hist_min(const struct ll_hist *h)
{
	return h->total ? h->min : 0;
}
static inline uint64_t ll_hist_max(const struct ll_hist *h)
{
	return h->max;
}

#endif /* LOADLENS_LL_HIST_H */
