// SPDX-License-Identifier: MIT
/* The connection feature: the counters read (with accepted) -> delta, and its output calls. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "loadlens/cli.h"
#include "features/connections.h"
#include "output/summary.h"
#include "tick/snapshots.h"
#include "kernel/skeletons.h"

struct obs_connections {
	const char *prog;
	struct obs_kernel *k;
	struct obs_sockets *conn;
	struct obs_connections_snap snap; /* total and delta */
	struct obs_sockets_stats prev;
	struct obs_summary rep;
};

struct obs_connections *obs_connections_new(const char *prog, struct obs_kernel *k,
					    const uint16_t *ports, size_t nports)
{
	struct obs_connections *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->prog = prog;
	c->k = k;
	c->conn = obs_kernel_conn(k);
	c->rep.ports = ports;
	c->rep.nports = nports;
	return c;
}

/* the read, accepted set -> delta against the previous read, which the current one becomes */
static int tick(void *self, struct obs_tick *tk)
{
	struct obs_connections *c = self;
	const struct obs_sockets_stats *cd = &c->snap.delta;
	const struct obs_reads *rd = tk->reads;
	struct obs_snap *s = tk->snap;

	c->snap.total = rd->sockets;
	obs_sockets_stats_sub(&c->snap.delta, &c->snap.total, &c->prev);
	c->prev = c->snap.total;
	obs_sockets_wait_hist(&c->snap.delta, &c->snap.wait);
	obs_sockets_wait_hist(&c->snap.total, &c->snap.wait_total);
	c->snap.lost = obs_sockets_drops(&c->snap.total);
	tk->conn = &c->snap;
	if (!s)
		return 0;
	s->t = tk->t;
	s->dt = tk->dt;
	s->accepted = cd->ctr[OBS_CTR_ACCEPTED];
	s->listen_target_full += cd->ctr[OBS_CTR_QLEN_FULL];
	s->listen_qlen_max = (uint32_t)c->snap.total.ctr[OBS_CTR_QLEN_MAX];
	s->listen_backlog = (uint32_t)c->snap.total.ctr[OBS_CTR_BACKLOG_MAX];
	s->listen_queued = rd->lq.queued;
	s->listen_queued_ok = rd->lq.ok;
	/* the rules' sign that listen overflows are a target's: its queue full at this pass */
	if (rd->lq.ok && rd->lq.backlog && rd->lq.qlen_max >= rd->lq.backlog) {
		s->listen_target_full++;
		s->listen_port = rd->listeners.listen_port;
	}
	return 0;
}

/* The observer's own CPU seconds so far: user and system time of every thread of this process
 * (its helper children run nothing but attaches). What its programs run in the kernel is not
 * here: that is charged to the tasks they run in (the server's), see BENCHMARKS.md. */
static double self_cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The summary's figures that span the features, from the final tick's snapshots and the
 * syscall tier (observer/kernel/systier.c, through its owner). */
static void report_fill(struct obs_connections *c, const struct obs_tick *tk)
{
	struct obs_systier *tier = obs_kernel_systier(c->k);
	struct obs_summary *rep = &c->rep;

	rep->syscalls_mode = obs_systier_mode_name(obs_systier_mode(tier));
	rep->syscalls_share = obs_systier_share(tier);
	rep->syscalls_reason = obs_systier_reason(tier);
	rep->features = obs_sockets_features(c->conn);
	rep->elapsed_s = tk->t;
	rep->self_cpu_s = self_cpu_s();
	if (rep->start_cpu_s > rep->self_cpu_s)
		rep->start_cpu_s = rep->self_cpu_s;
	rep->lost_forensics = (tk->fail ? tk->fail->lost : 0) + (tk->procs ? tk->procs->ev_lost : 0);
	if (tk->req) {
		rep->lost_requests = tk->req->lost;
		rep->lost_requests_total = obs_reqtime_lost_total(&rep->lost_requests);
	}
}

/* Everything attached, the privileges dropped: what starting took. */
static int started(void *self)
{
	struct obs_connections *c = self;

	c->rep.start_cpu_s = self_cpu_s();
	return 0;
}

static int summary(void *self, const struct obs_tick *tk, FILE *out)
{
	struct obs_connections *c = self;

	report_fill(c, tk);
	return obs_summary_text(out, &c->rep, &c->snap);
}

static int json(void *self, const struct obs_tick *tk, json_t *root)
{
	struct obs_connections *c = self;

	report_fill(c, tk);
	return obs_summary_json_add(root, &c->rep, &c->snap);
}

static const char *attached(const void *self)
{
	return obs_sockets_attached(((const struct obs_connections *)self)->conn);
}

const struct obs_feature obs_connections_ops = {
	.name = "connections", .start_unprivileged = started, .attached = attached, .tick = tick,
	.finish = tick,
	.summary = summary, .json = json,
};
