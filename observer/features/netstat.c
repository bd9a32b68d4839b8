// SPDX-License-Identifier: MIT
/* The netstat feature: the namespace's listen counters -> this interval's overflows and drops. */
#include <errno.h>
#include <stdlib.h>
#include "kernel/sockets.h"
#include "features/feature.h"
#include "tick/snapshots.h"
#include "features/netstat.h"
#include "tick/record.h"

struct obs_netstat_feature {
	struct obs_census_ctx *census;
	struct obs_netstat start, cur;
	struct obs_netstat_snap snap;
	/* the run */
	uint64_t listen_overflows, listen_drops, reqq_full;
	uint64_t queue_max, backlog; /* the connection counters, at the last tick */
	uint64_t drop_listen_overflow;
};

struct obs_netstat_feature *obs_netstat_new(struct obs_census_ctx *census)
{
	struct obs_netstat_feature *n = calloc(1, sizeof(*n));

	if (n)
		n->census = census;
	return n;
}

/* Attached: the counters' base. */
static int start_feature(void *self)
{
	struct obs_netstat_feature *n = self;

	if (n->census)
		obs_census_netstat(n->census, &n->start);
	n->cur = n->start;
	return 0;
}

static int tick(void *self, struct obs_tick *tk)
{
	struct obs_netstat_feature *n = self;
	const struct obs_sockets_stats *ct = &tk->conn->total;
	struct obs_record *iv = tk->rec;
	uint64_t listen_overflow_delta = 0, tw_overflow_delta = 0;
	const struct obs_netstat *ns = &tk->reads->netstat;

	n->snap.overflows_drops = 0;
	n->queue_max = ct->ctr[OBS_CTR_QLEN_MAX];
	n->backlog = ct->ctr[OBS_CTR_BACKLOG_MAX];
	if (tk->reads->have_netstat) {
		iv->have_listen = true;
		iv->overflows = ns->listen_overflows - n->cur.listen_overflows;
		iv->drops = ns->listen_drops - n->cur.listen_drops;
		iv->reqq_full_drops = ns->reqq_full_drop - n->cur.reqq_full_drop;
		iv->queue_max = n->queue_max;
		iv->backlog = n->backlog;
		n->snap.overflows_drops = iv->overflows + iv->drops;
		listen_overflow_delta = ns->listen_overflows - n->cur.listen_overflows;
		tw_overflow_delta = ns->tw_overflow - n->cur.tw_overflow;
		n->cur = *ns;
		n->listen_overflows = ns->listen_overflows - n->start.listen_overflows;
		n->listen_drops = ns->listen_drops - n->start.listen_drops;
		n->reqq_full = ns->reqq_full_drop - n->start.reqq_full_drop;
	}
	if (tk->fail && tk->fail->have_listen_overflow_drops) {
		/* the drop reason counts what ListenOverflows may miss (another namespace's view) */
		if (tk->fail->listen_overflow_drops > listen_overflow_delta)
			listen_overflow_delta = tk->fail->listen_overflow_drops;
		n->drop_listen_overflow = tk->fail->listen_overflow_drops_total;
	}
	if (tk->snap) {
		tk->snap->tw_overflow = tw_overflow_delta;
		tk->snap->listen_overflows = listen_overflow_delta;
	}
	tk->netstat = &n->snap;
	return 0;
}

/* "listen" of the "forensics" object. */
static int json_add(void *self, const struct obs_tick *tk, json_t *root)
{
	const struct obs_netstat_feature *n = self;

	(void)tk;
	return obs_feature_forensics_set(root, "listen", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
		"overflows", (json_int_t)n->listen_overflows, "drops", (json_int_t)n->listen_drops,
		"reqq_full_drops", (json_int_t)n->reqq_full,
		"drop_reason_listen_overflow", (json_int_t)n->drop_listen_overflow,
		"queue_max", (json_int_t)n->queue_max, "backlog", (json_int_t)n->backlog));
}

const struct obs_feature obs_netstat_ops = {
	.name = "netstat", .start = start_feature, .tick = tick, .finish = tick, .json = json_add,
};
