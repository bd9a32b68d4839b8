/* SPDX-License-Identifier: MIT */
/* Small helpers every driver module uses. */
#ifndef LOADLENS_DRV_H
#define LOADLENS_DRV_H

#include <stddef.h>
#include <stdint.h>

#define DRV_PROG "loadlens-driver"

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/*
 * Counters written by one worker thread and read, while the run goes on, by the main thread for
 * the live line: single writer, so a relaxed load and store (no locked instruction) is enough.
 */
static inline void drv_counter_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

static inline uint64_t drv_counter_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

#endif /* LOADLENS_DRV_H */
