// SPDX-License-Identifier: MIT
/* Closed-loop pacing: per-slot request shares and the duration deadline. */
#include <errno.h>
#include <stdlib.h>
#include "config.h"
#include "pacer.h"

uint64_t drv_pacer_share(uint64_t total, uint64_t nslots, uint64_t g)
{
	return total / nslots + (g < total % nslots ? 1 : 0);
}

int drv_pacer_init(struct drv_pacer *p, const struct drv_config *cfg, uint32_t first_slot,
		   uint32_t nslots, uint64_t t_start_ns)
{
	uint32_t i;

	p->first_slot = first_slot;
	p->nslots = nslots;
	p->left = NULL;
	p->stopped = false;
	p->deadline_ns = cfg->duration_ns ? t_start_ns + cfg->duration_ns : 0;
	if (cfg->requests) {
		p->left = calloc(nslots, sizeof(*p->left));
		if (!p->left)
			return -ENOMEM;
		for (i = 0; i < nslots; i++)
			p->left[i] = drv_pacer_share(cfg->requests, cfg->connections,
						     (uint64_t)first_slot + i);
	}
	return 0;
}

void drv_pacer_fini(struct drv_pacer *p)
{
	free(p->left);
	p->left = NULL;
}

enum drv_pace drv_pacer_next(struct drv_pacer *p, uint32_t i, uint64_t now_ns,
			     uint64_t *intended_ns)
{
	if (p->stopped || (p->deadline_ns && now_ns >= p->deadline_ns))
		return DRV_PACE_DONE;
	if (p->left) {
		if (!p->left[i])
			return DRV_PACE_DONE;
		p->left[i]--;
	}
	*intended_ns = now_ns;
	return DRV_PACE_GO;
}

void drv_pacer_stop(struct drv_pacer *p)
{
	p->stopped = true;
}
