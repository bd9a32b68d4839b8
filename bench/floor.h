/* SPDX-License-Identifier: MIT */
/*
 * What the floor benches share (pingpong_floor.c, timer_floor.c): a clock read in ns and the
 * order to sort samples by for their percentiles.
 */
#ifndef LOADLENS_BENCH_FLOOR_H
#define LOADLENS_BENCH_FLOOR_H

#include <stdint.h>
#include <time.h>

static inline uint64_t floor_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* qsort's comparison of two uint64_t samples */
static inline int floor_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif /* LOADLENS_BENCH_FLOOR_H */
