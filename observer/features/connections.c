// SPDX-License-Identifier: MIT
/* The connection feature: listen pass + counters -> accepted -> delta, and its output calls. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "connections.h"

struct obs_connections {
	const char *prog;
	struct obs_conn *conn;
	struct obs_census_ctx *lcen;
	struct obs_census lp; /* the last listen pass */
	struct obs_listen_queue lq;
	struct obs_conn_stats cur, prev, delta;
	struct obs_report rep;
};

struct obs_connections *obs_connections_new(const char *prog, struct obs_conn *conn,
					    struct obs_census_ctx *lcen)
{
	struct obs_connections *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->prog = prog;
	c->conn = conn;
	c->lcen = lcen;
	return c;
}

void obs_connections_free(struct obs_connections *c)
{
	free(c);
}

/* The target listeners' accept queues, from a listen-only sock_diag pass. */
static void x__listen_queue(struct obs_connections *c)
{
	struct obs_listen_queue *q = &c->lq;

	memset(q, 0, sizeof(*q));
	if (!c->lcen || obs_census_listeners(c->lcen, &c->lp))
		return;
	q->queued = c->lp.listen_queued;
	q->qlen_max = c->lp.listen_qlen_max;
	q->backlog = c->lp.listen_backlog;
	q->ok = true;
}

const char *obs_connections_base(struct obs_connections *c)
{
	x__listen_queue(c);
	obs_conn_base(c->conn, &c->lq);
	return c->lq.ok ? NULL : "no sock_diag";
}

struct obs_report *obs_connections_report(struct obs_connections *c)
{
	return &c->rep;
}

/* read -> accepted -> delta against the previous read, which the current one then becomes */
static int x__tick(void *self, struct obs_tick *tk)
{
	struct obs_connections *c = self;
	int err;

	x__listen_queue(c);
	err = obs_conn_read(c->conn, &c->cur);
	if (err) {
		ll_warn(c->prog, "cannot read BPF maps: %s", strerror(-err));
		return err;
	}
	obs_conn_accepted(c->conn, &c->cur, &c->lq);
	obs_conn_stats_sub(&c->delta, &c->cur, &c->prev);
	c->prev = c->cur;
	tk->conn_total = &c->cur;
	tk->conn_delta = &c->delta;
	/* the rules' sign that listen overflows are a target's: its queue full at this pass */
	if (tk->snap && c->lq.ok && c->lq.backlog && c->lq.qlen_max >= c->lq.backlog) {
		tk->snap->listen_target_full++;
		tk->snap->listen_port = c->lp.listen_port;
	}
	return 0;
}

static void x__live(void *self, const struct obs_tick *tk, FILE *out)
{
	struct obs_connections *c = self;

	obs_report_live_line(out, &c->delta, &c->cur, tk->dt, tk->live);
}

static int x__summary(void *self, FILE *out)
{
	struct obs_connections *c = self;

	return obs_report_summary(out, &c->rep, &c->cur);
}

static int x__json(void *self, json_t *root)
{
	struct obs_connections *c = self;

	return obs_report_json_add(root, &c->rep, &c->cur);
}

struct obs_feature obs_connections_feature(struct obs_connections *c)
{
	return (struct obs_feature){
		.name = "connections",
		.self = c,
		.tick = x__tick,
		.live = x__live,
		.finish = x__tick,
		.summary = x__summary,
		.json = x__json,
	};
}
