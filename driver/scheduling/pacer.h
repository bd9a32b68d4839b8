/* SPDX-License-Identifier: MIT */
/*
 * The pacer decides, for each connection slot, whether another request may go and when it was
 * meant to go (its intended send time, from which latency is measured).
 *
 * Closed loop: a slot sends as soon as its previous request completed (plus --delay think time),
 * until its share of -n is used up or the -d deadline passes.
 *
 * Open loop (--rate R): every slot has a fixed schedule. With G slots over all shards, global slot
 * g sends its k-th request at t0 + (g + k*G) / R seconds, so the slots interleave into one even
 * stream of R requests/s, whatever the responses do. A slot whose previous request is still
 * outstanding sends late; its latency still counts from the schedule (coordinated omission).
 *
 * --warmup W: requests meant to start before t0 + W are "warm": they run but are not counted,
 * and neither use up -n nor count toward -d, which starts after the warm-up.
 */
#ifndef LOADLENS_DRV_PACER_H
#define LOADLENS_DRV_PACER_H

#include <stdbool.h>
#include <stdint.h>

struct drv_config;

enum drv_pace {
	DRV_PACE_GO,   /* send now; intended <= now */
	DRV_PACE_WAIT, /* send at intended (in the future) */
	DRV_PACE_DONE, /* this slot has no more requests */
};

struct drv_ticket {
	uint64_t intended; /* uv_hrtime() the request was meant to start */
	bool warm;	   /* inside the warm-up: not counted */
};

struct drv_pacer {
	uint32_t first_slot; /* index of this thread's first slot on this machine */
	uint32_t nslots;
	uint64_t gslot0;     /* global index of the first slot over every shard */
	uint64_t gslots;     /* global slot count */
	uint64_t *left;	     /* per slot: counted attempts left; NULL when no -n */
	uint64_t *k;	     /* per slot: attempts taken, warm ones included */
	uint64_t t0;	     /* schedule origin */
	uint64_t warm_end;   /* t0 + warmup */
	uint64_t deadline_ns; /* nothing starts at or after it; 0 = none */
	uint64_t warmup_ns, duration_ns, delay_ns;
	double rate;	     /* total over every shard; 0 = closed loop */
	double connect_rate; /* --connect-rate: slot g's first request not before t0 + g/rate */
	bool stopped;
};

/*
 * Share cfg->requests exactly among the global slots (the first requests % slots get one more)
 * and keep the shares of this thread's slots [first_slot, first_slot+nslots).
 */
int drv_pacer_init(struct drv_pacer *p, const struct drv_config *cfg, uint32_t first_slot,
		   uint32_t nslots);
void drv_pacer_fini(struct drv_pacer *p);
/* The common start of the run: schedule origin, warm-up end and deadline. */
void drv_pacer_set_start(struct drv_pacer *p, uint64_t t0);
/* Take the next request attempt for local slot i (0-based). */
enum drv_pace drv_pacer_next(struct drv_pacer *p, uint32_t i, uint64_t now,
			     struct drv_ticket *t);
/* Nothing more starts (SIGINT, SIGTERM). */
void drv_pacer_stop(struct drv_pacer *p);
/* The share of global slot g among n slots for total requests; exposed for tests. */
uint64_t drv_pacer_share(uint64_t total, uint64_t nslots, uint64_t g);
/* Open loop: intended time of the k-th request of global slot g (t0 = 0). */
uint64_t drv_pacer_sched_ns(double rate, uint64_t gslots, uint64_t g, uint64_t k);

#endif /* LOADLENS_DRV_PACER_H */
