// SPDX-License-Identifier: MIT
/* A request's timing and outcome, recorded once (timing.h). */
#include "base/drv.h"
#include "config/config.h"
#include "config/reqmix.h"
#include "results/stats.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

/* The --requests-file record r sent, of stats st, or NULL. */
static inline struct drv_rec_stats *x__rec(struct drv_stats *st, bool live, uint32_t rec)
{
	return live && st->rec && rec < st->nrec ? &st->rec[rec] : NULL;
}

int drv_timing_record(struct drv_worker *w, const struct drv_ticket *t,
		      const struct drv_timing_reply *r)
{
	struct drv_stats *st = drv_worker_stats(w, t);
	struct drv_rec_stats *rec = x__rec(st, r->rec_live, r->rec);
	uint64_t lat = r->at - t->intended;

	drv_stats_response(st, t->intended, r->sent, r->at);
	ll_hist_record(w->ivl_cur.hist, lat);
	if (r->status >= 0)
		st->status[r->status < DRV_STATUS_MAX ? r->status : 0]++;
	if (r->httpv >= 0 && r->httpv < DRV_HTTPV__COUNT)
		st->http_version[r->httpv]++;
	if (r->rcode >= 0)
		st->dns_rcode[r->rcode & 15]++;
	if (r->err) {
		drv_stats_error(st, r->err);
		w->ivl_cur.errors++;
	} else {
		drv_counter_add(&st->requests, 1);
	}
	if (rec) {
		if (r->err)
			rec->errors++;
		else
			rec->requests++;
		ll_hist_record(rec->latency, lat);
	}
	return r->err;
}

void drv_timing_unanswered(struct drv_worker *w, const struct drv_ticket *t, uint32_t rec,
			   int err)
{
	struct drv_rec_stats *r = x__rec(drv_worker_stats(w, t), true, rec);

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
