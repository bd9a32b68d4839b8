// SPDX-License-Identifier: MIT
/* A request's timing and outcome, recorded once (timing.h). */
#include "base/drv.h"
#include "config/config.h"
#include "config/reqmix.h"
#include "results/stats.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

void drv_timing_unanswered(struct drv_worker *w, const struct drv_ticket *t, uint32_t rec,
			   int err)
{
	struct drv_rec_stats *r = drv__timing_rec(drv_worker_stats(w, t), true, rec);

	if (!r)
		return;
	if (err)
		r->errors++;
	else
		r->requests++;
}

int drv_timing_init(struct drv_worker *w)
{
	const struct drv_reqmix *m = w->cfg->mix;
	int e;

	if (!m)
		return 0;
	e = drv_stats_rec_init(&w->stats, m->n);
	return e ? e : drv_stats_rec_init(&w->warm, m->n);
}
