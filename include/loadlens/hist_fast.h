/* SPDX-License-Identifier: MIT */
/*
 * ll_hist_bucket() with fewer instructions, for the BPF programs' hot path (bpf/req.bpf.h): the
 * position of the top bit from a 256-entry table after at most three compares, where
 * ll_hist_msb() takes six compare-and-shift steps. Same result for every value
 * (tests/unit/test_hist.c checks it).
 */
#ifndef LOADLENS_HIST_FAST_H
#define LOADLENS_HIST_FAST_H

#include "loadlens/hist.h"

/* ll_hist_msb8[x]: position of the top set bit of x (0 for 0 and 1). */
static const __u8 ll_hist_msb8[256] = {
	0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
	5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
};

/* Position of the most significant set bit of v, for 0 < v < 2^40. */
static __always_inline __u32 ll_hist_msb_fast(__u64 v)
{
	if (v >> 24) {
		if (v >> 32)
			return 32 + ll_hist_msb8[(v >> 32) & 0xff];
		return 24 + ll_hist_msb8[(v >> 24) & 0xff];
	}
	if (v >> 16)
		return 16 + ll_hist_msb8[(v >> 16) & 0xff];
	if (v >> 8)
		return 8 + ll_hist_msb8[(v >> 8) & 0xff];
	return ll_hist_msb8[v & 0xff];
}

/* ll_hist_bucket(v), the same value for every v. */
static __always_inline __u32 ll_hist_bucket_fast(__u64 v)
{
	__u32 shift;

	if (v > LL_HIST_MAX_VALUE)
		return LL_HIST_BUCKETS - 1;
	if (v < LL_HIST_SUB_COUNT)
		return (__u32)v;
	shift = ll_hist_msb_fast(v) - LL_HIST_SUB_BITS;
	return ((shift + 1) << LL_HIST_SUB_BITS) + (__u32)((v >> shift) - LL_HIST_SUB_COUNT);
}

#endif /* LOADLENS_HIST_FAST_H */
