// SPDX-License-Identifier: MIT
/* A request-timing slot's histogram from its stats' buckets (reqtime_hist.h). */
#include "tick/reqtime_hist.h"

/*
 * Service to the last write, derived without a per-request cost: every request is in SERVICE;
 * those whose response took several writes are also in MULTI_FIRST (same value) and MULTI_LAST.
 * So last-write = SERVICE - MULTI_FIRST + MULTI_LAST, bucket by bucket. In an interval a request
 * can be in SERVICE one tick and in MULTI_* the next; a bucket that would go negative is 0.
 */
static void service_last(const struct obs_reqtime_slot *sl, struct ll_hist *h)
{
	int64_t n;
	uint32_t i;

	for (i = 0; i < LL_HIST_BUCKETS; i++) {
		n = (int64_t)sl->hist[RT_SERVICE][i] - (int64_t)sl->hist[RT_MULTI_FIRST][i] +
		    (int64_t)sl->hist[RT_MULTI_LAST][i];
		if (n > 0)
			ll_hist_add_bucket(h, i, (uint64_t)n);
	}
	if (!h->total)
		return;
	h->sum = sl->c.sum_ns[RT_SERVICE] - sl->c.sum_ns[RT_MULTI_FIRST] +
		 sl->c.sum_ns[RT_MULTI_LAST];
	if (sl->c.max_ns[RT_SERVICE] || sl->c.max_ns[RT_MULTI_LAST])
		h->max = sl->c.max_ns[RT_SERVICE] > sl->c.max_ns[RT_MULTI_LAST]
				 ? sl->c.max_ns[RT_SERVICE]
				 : sl->c.max_ns[RT_MULTI_LAST];
}

void obs_reqtime_hist(const struct obs_reqtime_stats *st, size_t slot, unsigned int which,
		      struct ll_hist *h)
{
	const struct obs_reqtime_slot *sl = &st->slot[slot];
	uint32_t i;

	ll_hist_reset(h);
	if (which == OBS_REQTIME_SERVICE_LAST) {
		service_last(sl, h);
		return;
	}
	for (i = 0; i < LL_HIST_BUCKETS; i++)
		ll_hist_add_bucket(h, i, sl->hist[which][i]);
	if (!h->total)
		return;
	h->sum = sl->c.sum_ns[which];
	if (sl->c.max_ns[which])
		h->max = sl->c.max_ns[which];
}
