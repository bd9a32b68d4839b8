/* SPDX-License-Identifier: MIT */
/*
 * The loadlens latency histogram: log-linear buckets (HDR style) shared by BPF and userspace.
 *
 * Values are nanoseconds. Values below 2^LL_HIST_SUB_BITS (128 ns) get a bucket each. Above that,
 * every power of two [2^m, 2^(m+1)) is split into 128 equal sub-buckets, so a bucket is never
 * wider than 1/128 (0.78%) of the values it holds, and the representative value we report (the
 * bucket midpoint) is within 0.39% of every value in it. That bounds the relative error of every
 * reported percentile at < 1% from 1 us to 274 s (2^38 ns); larger values land in the last bucket,
 * whose exact maximum is still kept by the userspace struct.
 *
 * ll_hist_bucket() is the one bucket function: branch-light, loop-free, and verifier friendly, so
 * an in-kernel histogram (an array of LL_HIST_BUCKETS counters) and a driver histogram merge by
 * adding counters.
 */
#ifndef LOADLENS_HIST_H
#define LOADLENS_HIST_H

#include <linux/types.h>

#define LL_HIST_SUB_BITS 7
#define LL_HIST_SUB_COUNT (1u << LL_HIST_SUB_BITS)
#define LL_HIST_MAX_BITS 38
#define LL_HIST_BUCKETS ((LL_HIST_MAX_BITS - LL_HIST_SUB_BITS + 1) * LL_HIST_SUB_COUNT)
#define LL_HIST_MAX_VALUE ((1ULL << LL_HIST_MAX_BITS) - 1)

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Position of the most significant set bit of v (v > 0), in six compare-and-shift steps: BPF's
 * (tests/unit/test_hist.c checks it against the instruction userspace uses). */
static __always_inline __u32 ll_hist_msb_steps(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/* Position of the most significant set bit of v (v > 0). */
static __always_inline __u32 ll_hist_msb(__u64 v)
{
#ifdef __bpf__
	return ll_hist_msb_steps(v);
#else
	return 63 - (__u32)__builtin_clzll(v);
#endif
}

/* Bucket index of a value in ns; always < LL_HIST_BUCKETS. */
static __always_inline __u32 ll_hist_bucket(__u64 v)
{
	__u32 shift;

	if (v > LL_HIST_MAX_VALUE)
		return LL_HIST_BUCKETS - 1;
	if (v < LL_HIST_SUB_COUNT)
		return (__u32)v;
	shift = ll_hist_msb(v) - LL_HIST_SUB_BITS;
	return ((shift + 1) << LL_HIST_SUB_BITS) + (__u32)((v >> shift) - LL_HIST_SUB_COUNT);
}

/* Lowest value that maps to bucket idx. */
static __always_inline __u64 ll_hist_bucket_low(__u32 idx)
{
	__u32 shift;

	if (idx < LL_HIST_SUB_COUNT)
		return idx;
	shift = (idx >> LL_HIST_SUB_BITS) - 1;
	return ((__u64)LL_HIST_SUB_COUNT + (idx & (LL_HIST_SUB_COUNT - 1))) << shift;
}

/* Number of distinct values that map to bucket idx. */
static __always_inline __u64 ll_hist_bucket_width(__u32 idx)
{
	if (idx < LL_HIST_SUB_COUNT)
		return 1;
	return 1ULL << ((idx >> LL_HIST_SUB_BITS) - 1);
}

#endif /* LOADLENS_HIST_H */
