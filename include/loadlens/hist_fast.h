/* SPDX-License-Identifier: MIT */
/*
 * ll_hist_bucket() with fewer instructions, for the BPF programs' hot path (bpf/req.bpf.h): the
 * position of the top bit from a 256-entry table after at most four compares, where
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

/*
 * ll_hist_bucket(v), the same value for every v. The common case first: a value under 2^24 ns
 * (16.8 ms) costs two or three compares and no 64-bit constant; values past LL_HIST_MAX_VALUE
 * are checked for only above 2^24.
 */
static __always_inline __u32 ll_hist_bucket_fast(__u64 v)
{
	__u64 msb; /* 64 bits: no zero-extension before the shift */

	if (v >> 24) {
		if (v > LL_HIST_MAX_VALUE)
			return LL_HIST_BUCKETS - 1;
		if (v >> 32)
			msb = 32 + ll_hist_msb8[(v >> 32) & 0xff];
		else
			msb = 24 + ll_hist_msb8[(v >> 24) & 0xff];
	} else if (v >> 16) {
		msb = 16 + ll_hist_msb8[(v >> 16) & 0xff];
	} else if (v >> 8) {
		msb = 8 + ll_hist_msb8[(v >> 8) & 0xff];
	} else if (v >= LL_HIST_SUB_COUNT) {
		msb = LL_HIST_SUB_BITS;
	} else {
		return (__u32)v;
	}
	/* msb >= LL_HIST_SUB_BITS: shift = msb - LL_HIST_SUB_BITS */
	return (__u32)(((msb - LL_HIST_SUB_BITS + 1) << LL_HIST_SUB_BITS) +
		       (v >> (msb - LL_HIST_SUB_BITS)) - LL_HIST_SUB_COUNT);
}

#endif /* LOADLENS_HIST_FAST_H */
