/* SPDX-License-Identifier: MIT */
/*
 * The contract a protocol (protocols/) fulfils for the scheduler: it drives connection slots on a
 * worker's loop. The worker owns the loop, the pacer, the waker and the stats; the slot base
 * (slot.h) owns each slot's life with them. The protocol owns its per-thread state
 * (w->proto_data) and, through struct drv_slot_ops, how one slot's request goes out and its
 * response comes back; it times and reports an answered request through timing.h and a failed
 * one through drv_slot_fail().
 */
#ifndef LOADLENS_DRV_PROTOCOL_H
#define LOADLENS_DRV_PROTOCOL_H

#include <stdint.h>

struct drv_worker;
struct drv_config;
struct drv_slot_ops;

struct drv_proto {
	const char *name;
	/* Allocate per-thread state and create handles on w->loop. Runs before the thread does. */
	int (*init)(struct drv_worker *w);
	/* The slots: their size and operations. */
	const struct drv_slot_ops *slot;
	/* Optional, at the stop, after every slot's: uv_close the per-thread handles. */
	void (*stop)(struct drv_worker *w);
	/* After the loop has drained and closed: free what init allocated. */
	void (*fini)(struct drv_worker *w);
	/* Optional, on the main thread around the whole run (libcurl's global init). */
	int (*global_init)(void);
	void (*global_fini)(void);
};

#endif /* LOADLENS_DRV_PROTOCOL_H */
