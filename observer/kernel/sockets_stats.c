// SPDX-License-Identifier: MIT
/*
 * The arithmetic of bpf/sockets.bpf.c's connection counters (struct obs_sockets_stats, read by
 * sockets.c): an interval's difference, the accept-queue wait histogram, the drops. Pure: no map,
 * no object.
 */
#include "kernel/sockets.h"

void obs_sockets_stats_sub(struct obs_sockets_stats *st, const struct obs_sockets_stats *a,
			const struct obs_sockets_stats *b)
{
	size_t i;

	for (i = 0; i < OBS_CTR_MAX; i++)
		st->ctr[i] = a->ctr[i] - b->ctr[i];
	/* derived from two reads that are not one snapshot: it can step back by a few */
	st->ctr[OBS_CTR_ACCEPTED] = a->ctr[OBS_CTR_ACCEPTED] > b->ctr[OBS_CTR_ACCEPTED] ?
					    a->ctr[OBS_CTR_ACCEPTED] - b->ctr[OBS_CTR_ACCEPTED] : 0;
	st->ctr[OBS_CTR_WAIT_MAX_NS] = 0; /* unknown for an interval: taken from the buckets */
	st->ctr[OBS_CTR_QLEN_MAX] = a->ctr[OBS_CTR_QLEN_MAX]; /* since start */
	st->ctr[OBS_CTR_BACKLOG_MAX] = a->ctr[OBS_CTR_BACKLOG_MAX];
	for (i = 0; i < OBS_STATE_MOVES; i++)
		st->moves[i] = a->moves[i] - b->moves[i];
	for (i = 0; i < OBS_ERRNO_SLOTS; i++)
		st->errnos[i] = a->errnos[i] - b->errnos[i];
	for (i = 0; i < LL_HIST_BUCKETS; i++)
		st->wait[i] = a->wait[i] - b->wait[i];
	st->missed = a->missed - b->missed;
}

void obs_sockets_wait_hist(const struct obs_sockets_stats *st, struct ll_hist *h)
{
	uint32_t i;

	ll_hist_reset(h);
	for (i = 0; i < LL_HIST_BUCKETS; i++)
		ll_hist_add_bucket(h, i, st->wait[i]);
	if (!h->total)
		return;
	h->sum = st->ctr[OBS_CTR_WAIT_SUM_NS];
	if (st->ctr[OBS_CTR_WAIT_MAX_NS])
		h->max = st->ctr[OBS_CTR_WAIT_MAX_NS];
}

uint64_t obs_sockets_drops(const struct obs_sockets_stats *st)
{
	return st->ctr[OBS_CTR_DROP_UNRESOLVED] + st->missed;
}
