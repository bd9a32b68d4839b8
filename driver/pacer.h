/* SPDX-License-Identifier: MIT */
/*
 * The pacer decides, for each connection slot, whether another request may go and when it was
 * meant to go. Closed loop (now): a slot may send as soon as its previous request completed,
 * until its share of -n is used up or the -d deadline passes. Open loop (--rate, later) returns
 * DRV_PACE_WAIT with the intended send time from a schedule, so latency can be measured from it.
 */
#ifndef LOADLENS_DRV_PACER_H
#define LOADLENS_DRV_PACER_H

#include <stdbool.h>
#include <stdint.h>

struct drv_config;

enum drv_pace {
	DRV_PACE_GO,   /* send now; *intended = now */
	DRV_PACE_WAIT, /* send at *intended (a time in the future) */
	DRV_PACE_DONE, /* this slot has no more requests */
};

struct drv_pacer {
	uint32_t first_slot; /* global index of this thread's first slot */
	uint32_t nslots;
	uint64_t *left;	     /* per slot: attempts left; NULL when bounded by duration only */
	uint64_t deadline_ns; /* uv_hrtime() after which nothing starts; 0 = none */
	bool stopped;
};

/*
 * Share cfg->requests exactly among cfg->connections global slots (the first requests %
 * connections slots get one more) and keep the shares of slots [first_slot, first_slot+nslots).
 * t_start_ns: the run's common start, for the -d deadline.
 */
int drv_pacer_init(struct drv_pacer *p, const struct drv_config *cfg, uint32_t first_slot,
		   uint32_t nslots, uint64_t t_start_ns);
void drv_pacer_fini(struct drv_pacer *p);
/* Take the next request attempt for local slot i (0-based). Consumes it unless DONE. */
enum drv_pace drv_pacer_next(struct drv_pacer *p, uint32_t i, uint64_t now_ns,
			     uint64_t *intended_ns);
/* Nothing more starts (SIGINT, SIGTERM). */
void drv_pacer_stop(struct drv_pacer *p);
/* The share of global slot g among n slots for total requests; exposed for tests. */
uint64_t drv_pacer_share(uint64_t total, uint64_t nslots, uint64_t g);

#endif /* LOADLENS_DRV_PACER_H */
