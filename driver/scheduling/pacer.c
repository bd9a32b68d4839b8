// SPDX-License-Identifier: MIT
/* Pacing: per-slot request shares, the open-loop schedule, think time, warm-up and deadline. */
#include <errno.h>
#include <stdlib.h>
#include "config/config.h"
#include "scheduling/pacer.h"

uint64_t drv_pacer_share(uint64_t total, uint64_t nslots, uint64_t g)
{
	return total / nslots + (g < total % nslots ? 1 : 0);
}

uint64_t drv_pacer_sched_ns(double rate, uint64_t gslots, uint64_t g, uint64_t k)
{
	/* long double: exact to the ns over days of schedule at any rate we accept */
	return (uint64_t)(((long double)g + (long double)k * (long double)gslots) * 1e9L /
			  (long double)rate);
}

int drv_pacer_init(struct drv_pacer *p, const struct drv_config *cfg, uint32_t first_slot,
		   uint32_t nslots)
{
	uint32_t i;

	p->first_slot = first_slot;
	p->nslots = nslots;
	p->gslots = drv_config_global_slots(cfg);
	p->gslot0 = (uint64_t)cfg->shard_index * (cfg->conn_total ? cfg->conn_total : cfg->connections) +
		    cfg->conn_base + first_slot;
	p->left = NULL;
	p->stopped = false;
	p->rate = cfg->rate;
	p->connect_rate = cfg->connect_rate;
	p->warmup_ns = cfg->warmup_ns;
	p->duration_ns = cfg->duration_ns;
	p->delay_ns = cfg->delay_ns;
	p->k = calloc(nslots, sizeof(*p->k));
	if (!p->k)
		return -ENOMEM;
	if (cfg->requests) {
		p->left = calloc(nslots, sizeof(*p->left));
		if (!p->left) {
			free(p->k);
			p->k = NULL;
			return -ENOMEM;
		}
		for (i = 0; i < nslots; i++)
			p->left[i] = drv_pacer_share(cfg->requests, p->gslots, p->gslot0 + i);
	}
	drv_pacer_set_start(p, 0);
	return 0;
}

void drv_pacer_set_start(struct drv_pacer *p, uint64_t t0)
{
	p->t0 = t0;
	p->warm_end = t0 + p->warmup_ns;
	p->deadline_ns = p->duration_ns ? p->warm_end + p->duration_ns : 0;
}

void drv_pacer_fini(struct drv_pacer *p)
{
	free(p->left);
	free(p->k);
	p->left = NULL;
	p->k = NULL;
}

enum drv_pace drv_pacer_next(struct drv_pacer *p, uint32_t i, uint64_t now,
			     struct drv_ticket *t)
{
	uint64_t at;

	if (p->stopped)
		return DRV_PACE_DONE;
	if (p->rate)
		at = p->t0 + drv_pacer_sched_ns(p->rate, p->gslots, p->gslot0 + i, p->k[i]);
	else
		at = now + (p->k[i] ? p->delay_ns : 0);
	/* the connections open on a schedule of their own: the slots' first requests, spaced */
	if (!p->k[i] && p->connect_rate) {
		uint64_t open = p->t0 + (uint64_t)((long double)(p->gslot0 + i) * 1e9L /
						  (long double)p->connect_rate);

		if (open > at)
			at = open;
	}
	if (p->deadline_ns && at >= p->deadline_ns)
		return DRV_PACE_DONE;
	t->warm = at < p->warm_end;
	if (!t->warm && p->left) {
		if (!p->left[i])
			return DRV_PACE_DONE;
		p->left[i]--;
	}
	p->k[i]++;
	t->intended = at;
	return at <= now ? DRV_PACE_GO : DRV_PACE_WAIT;
}

void drv_pacer_stop(struct drv_pacer *p)
{
	p->stopped = true;
}
