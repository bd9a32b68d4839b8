// SPDX-License-Identifier: MIT
/* A worker as its slots see it: their next request from the pacer, the deadline, and the end of
 * their work handed to the main thread. Its thread's life is worker_thread.c. */
#include "base/drv.h"
#include "config/config.h"
#include "scheduling/worker.h"

/* Tell the main thread this worker is done; it then sends the stop. */
void drv__worker_finish(struct drv_worker *w)
{
	if (w->finished)
		return;
	w->finished = true;
	w->stats.t_last_ns = uv_hrtime();
	__atomic_add_fetch(w->nfinished, 1, __ATOMIC_SEQ_CST);
	uv_async_send(w->wake);
}

void drv_worker_negfail(struct drv_worker *w, int err)
{
	/* answers (errors such as http_status too), and connections whose server SETTINGS came */
	uint64_t answered = ll_hist_count(w->stats.latency) + ll_hist_count(w->warm.latency) +
			    w->stats.h2_settings;

	w->ff.slots++;
	if (!w->ff.err)
		w->ff.err = err;
	if (w->ff.told || !drv_failfast_due(w->ff.slots, w->nslots, answered) || !w->nnegfail)
		return;
	w->ff.told = true;
	__atomic_add_fetch(w->nnegfail, 1, __ATOMIC_SEQ_CST);
	uv_async_send(w->wake);
}

void drv_worker_slot_done(struct drv_worker *w)
{
	if (!w->slots_active || --w->slots_active)
		return;
	drv_sched_cancel(&w->sched, &w->sweep);
	drv_sched_cancel(&w->sched, &w->end);
	drv__worker_finish(w);
}

/* The smallest k whose intended time t0 + sched(g, k) is at or after `at`. */
static uint64_t first_at(const struct drv_pacer *p, uint64_t g, uint64_t at)
{
	long double x;
	uint64_t k;

	if (at <= p->t0)
		return 0;
	x = ((long double)(at - p->t0) * (long double)p->rate / 1e9L - (long double)g) /
	    (long double)p->gslots;
	k = x > 0 ? (uint64_t)x : 0;
	while (k > 0 && p->t0 + drv_pacer_sched_ns(p->rate, p->gslots, g, k - 1) >= at)
		k--;
	while (p->t0 + drv_pacer_sched_ns(p->rate, p->gslots, g, k) < at)
		k++;
	return k;
}

uint64_t drv_worker_untaken(const struct drv_pacer *p, uint32_t i)
{
	uint64_t g = p->gslot0 + i, k0 = p->k[i], ke, n;

	if (!p->rate || !p->deadline_ns)
		return 0;
	ke = first_at(p, g, p->deadline_ns);
	if (k0 < first_at(p, g, p->warm_end))
		k0 = first_at(p, g, p->warm_end);
	n = ke > k0 ? ke - k0 : 0;
	if (p->left && n > p->left[i])
		n = p->left[i];
	return n;
}

bool drv_worker_due(struct drv_worker *w, const struct drv_ticket *t)
{
	if (!w->pacer.deadline_ns || uv_hrtime() < w->pacer.deadline_ns)
		return true;
	if (!t->warm)
		w->stats.not_sent++;
	return false;
}

enum drv_pace drv_worker_pace(struct drv_worker *w, uint32_t i, struct drv_ticket *t)
{
	uint64_t now = uv_hrtime();

	if (w->pacer.deadline_ns && now >= w->pacer.deadline_ns)
		return DRV_PACE_DONE; /* by the clock, however far behind the schedule is */
	return drv_pacer_next(&w->pacer, i, now, t);
}
