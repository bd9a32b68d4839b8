// SPDX-License-Identifier: MIT
/* The request-timing feature: the read -> delta -> previous, interval records, the rules' slots. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "sources/h2_status.h"
#include "features/payload_sampling.h"
#include "features/requests.h"
#include "sources/tick_reader.h"
#include "output/reqtime_report.h"
#include "tick/reqtime_hist.h"
#include "kernel/skeletons.h"
#include "kernel/systier.h"

/* Intervals kept for the JSON (only with live lines and no --metrics: obs_tick.records): a day
 * of 1 s ticks; later ones are not kept. */
#define MAX_INTERVALS 86400

struct obs_requests {
	const char *prog;
	struct obs_requests_opts o;
	struct obs_sockets *conn;
	struct bpf_program *arrival_prog; /* sampled arrivals: attached a window at a time */
	struct obs_systier *atier;	  /* which opens those windows */
	struct obs_lean *lean;		  /* the lean hooks' switch (kernel/lean.h), or NULL */
	struct obs_requests_snap snap;
	struct obs_reqtime *rt;
	struct obs_reqtime_stats *cur, *prev, *delta;
	json_t *intervals;
	struct obs_payload *pl;		     /* payload sampling: requests per read */
	struct rt_pl_ctrs pl_cur[RT_MAX_SLOTS]; /* its counters, as of the last read */
	struct obs_h2_status *h2s;	     /* HTTP/2 and gRPC statuses (NULL: not read) */
	struct obs_h2_status_counts *h2raw;  /* theirs per slot, decoded (the read phase's) */
	struct obs_h2_status_counts *h2c;    /* ... with the kernel's, as of the last tick */
	struct obs_h2_status_counts *h2prev; /* ... as of the tick before (all three one block) */
	uint32_t servers[OBS_REQUESTS_SERVERS]; /* processes serving the targets, at start */
	size_t nservers;
	bool servers_fixed; /* the --pid targets alone: the set does not grow */
};

void obs_requests_set_servers(struct obs_requests *r, const uint32_t *pids, size_t n, bool fixed)
{
	if (!r)
		return;
	r->servers_fixed = fixed;
	r->nservers = n < OBS_REQUESTS_SERVERS ? n : OBS_REQUESTS_SERVERS;
	memcpy(r->servers, pids, r->nservers * sizeof(pids[0]));
}

struct obs_requests *obs_requests_new(const char *prog, const struct obs_requests_opts *o)
{
	struct obs_requests *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->prog = prog;
	r->o = *o;
	return r;
}

void obs_requests_free(struct obs_requests *r)
{
	if (!r)
		return;
	json_decref(r->intervals);
	obs_h2_status_free(r->h2s);
	free(r->h2raw);
	obs_payload_free(r->pl);
	obs_reqtime_stats_free(r->delta);
	obs_reqtime_stats_free(r->prev);
	obs_reqtime_stats_free(r->cur);
	obs_systier_free(r->atier);
	obs_lean_free(r->lean);
	obs_reqtime_free(r->rt);
	if (r->o.trace_out)
		fclose(r->o.trace_out);
	free(r);
}

struct obs_reqtime *obs_requests_reqtime(struct obs_requests *r)
{
	return r->rt;
}

void obs_requests_reads(struct obs_requests *r, struct obs_reader_opts *o)
{
	o->rt = r->rt;
	o->req = r->cur;
	o->payload = r->pl;
	o->pl = r->pl_cur;
	o->h2s = r->h2s;
	o->h2c = r->h2raw;
	o->arrivals = r->atier;
	o->lean = r->lean;
}

/* It shares the socket programs, so it configures them before load (off: at their smallest). */
static int plan(void *self, struct obs_kernel *k)
{
	struct obs_requests *r = self;
	const struct obs_requests_opts *o = &r->o;

	r->conn = obs_kernel_conn(k);
	r->rt = o->off ? NULL : obs_reqtime_new(r->prog, &o->rt, r->conn);
	if (!r->rt && !o->off && (errno != ENOTSUP || o->rt.trace_path))
		return -errno;
	if (!r->rt)
		obs_reqtime_mech_off(r->conn);
	else
		obs_reqtime_mech_payload(r->conn, o->payload_off, o->payload_period_us);
	if (r->rt)
		r->arrival_prog = obs_reqtime_arrival_prog(r->rt);
	return 0;
}

/* Attached, privileged: the sampled arrivals' tier (the syscall tier's on-demand attaching,
 * without pressure: a window one interval in ten). */
static int start_feature(void *self)
{
	struct obs_requests *r = self;
	int err;

	/* TLS plaintext: the uprobes on the serving processes' libssl, while privileged */
	err = obs_reqtime_ssl_attach(r->rt, r->servers, r->nservers, r->servers_fixed);
	if (err)
		return err;
	if (obs_reqtime_features(r->rt)->lean) {
		r->lean = obs_reqtime_lean_new(r->rt, r->prog, r->o.netns_fd);
		if (!r->lean)
			return -errno;
	}
	if (!r->arrival_prog)
		return 0;
	r->atier = obs_systier_new(r->prog, OBS_SYSTIER_AUTO, &r->arrival_prog, 1);
	if (!r->atier)
		return -errno;
	obs_systier_on_attach(r->atier, obs_reqtime_arrival_window, r->rt);
	return 0;
}

/* After the drop: the --trace writer (a thread) and the snapshots. */
static int start_unprivileged(void *self)
{
	struct obs_requests *r = self;
	int err;

	err = obs_reqtime_start(r->rt, r->prog, r->o.trace_out);
	r->o.trace_out = NULL;
	if (err)
		return err;
	r->cur = obs_reqtime_stats_new(r->rt);
	r->prev = obs_reqtime_stats_new(r->rt);
	r->delta = obs_reqtime_stats_new(r->rt);
	r->intervals = json_array();
	if (r->cur)
		r->pl = obs_payload_new(r->conn, r->cur->nslots);
	if (!r->cur || !r->prev || !r->delta || !r->intervals || !r->pl)
		return -ENOMEM;
	/* HTTP/2 and gRPC statuses: the thread that decodes the server's header blocks */
	if (!obs_reqtime_features(r->rt)->h2_headers)
		return 0;
	r->h2raw = calloc(3 * r->cur->nslots, sizeof(*r->h2raw));
	if (!r->h2raw)
		return -ENOMEM;
	r->h2c = r->h2raw + r->cur->nslots;
	r->h2prev = r->h2c + r->cur->nslots;
	r->h2s = obs_h2_status_new(obs_sockets_h2_hb_fd(r->conn), obs_sockets_h2_hb_idle(r->conn),
				   obs_sockets_h2_hb_quiet(r->conn), r->cur->nslots);
	if (!r->h2s) {
		err = -errno;
		ll_warn(r->prog, "cannot start reading HTTP/2 statuses: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* Each slot's HTTP/2 and gRPC statuses as of the last read, or NULL when they are not read. */
static const struct obs_h2_status_counts *h2_counts(const struct obs_requests *r)
{
	return r->h2s ? r->h2c : NULL;
}

/* The statuses of the read (decoded, and the kernel's), and the interval's into the rules'
 * snapshot: a port with any, each (the TCP slots: HTTP/2 is TCP's). */
static void statuses(struct obs_requests *r, const struct obs_reads *rd, struct obs_snap *snap)
{
	struct obs_h2_status_counts d;
	size_t i;

	if (!rd->h2)
		return;
	snap->statuses_on = true;
	for (i = 0; i < r->cur->nslots; i++) {
		r->h2c[i] = rd->h2[i];
		obs_h2_status_add_kernel(&r->h2c[i], &r->cur->slot[i].c);
		obs_h2_status_sub(&d, &r->h2c[i], &r->h2prev[i]);
		r->h2prev[i] = r->h2c[i];
		if (i % 2 || snap->nstatus >= OBS_SNAP_STATUS_PORTS)
			continue;
		if (obs_h2_status_snap(&snap->status[snap->nstatus],
				       obs_reqtime_slot_port(r->rt, i), &d))
			snap->nstatus++;
	}
}

static const char *attached(const void *self)
{
	const struct obs_requests *r = self;
	static char buf[256];

	snprintf(buf, sizeof(buf), "requests: %s", obs_reqtime_attached(r->rt));
	return buf;
}

static double requests_pct(const struct obs_reqtime_stats *st, size_t i, unsigned int which,
		     struct ll_hist *h, double pct)
{
	obs_reqtime_hist(st, i, which, h);
	return ll_hist_count(h) ? (double)ll_hist_percentile(h, pct) : -1;
}

static double p50(const struct obs_reqtime_stats *st, size_t i, unsigned int which,
		     struct ll_hist *h)
{
	return requests_pct(st, i, which, h, 50);
}

/* The rules' view of the interval: per slot, requests and the p50s; the run-queue wait. */
static void requests_snap(const struct obs_requests *r, const struct obs_reads *rd,
			  struct obs_snap *snap, struct ll_hist *h)
{
	const struct obs_reqtime_stats *d = r->delta;
	struct obs_snap_slot *sl;
	size_t i;

	snap->requests_on = true;
	snap->foreign_sockets = r->cur->global[RT_G_FOREIGN];
	if (snap->foreign_sockets) {
		memcpy(snap->reader, rd->readers, rd->nreaders * sizeof(rd->readers[0]));
		snap->nreaders = rd->nreaders;
	}
	for (i = 0; i < d->nslots && snap->nslots < OBS_SNAP_SLOTS; i++) {
		if (!d->slot[i].c.requests)
			continue;
		sl = &snap->slot[snap->nslots++];
		sl->port = obs_reqtime_slot_port(r->rt, i);
		sl->udp = i % 2;
		sl->requests = d->slot[i].c.requests;
		sl->queue_p50_ns = p50(d, i, RT_QUEUE, h);
		sl->queue_p90_ns = requests_pct(d, i, RT_QUEUE, h, 90);
		sl->service_p50_ns = p50(d, i, RT_SERVICE, h);
		sl->service_p90_ns = requests_pct(d, i, RT_SERVICE, h, 90);
		sl->reads = r->cur->slot[i].c.requests;
		/* the kernel's signals that a count means something else (rules_requests.c) */
		sl->pipelined_reads = r->cur->slot[i].c.multi_arrival;
		sl->udp_multi_reader_sockets = r->cur->slot[i].c.udp_shared;
		sl->udp_reader_switches = r->cur->slot[i].c.udp_switch;
		sl->udp_unpaired = r->cur->slot[i].c.udp_unpaired;
		sl->udp_readers = RT_UDP_READERS;
		if (!sl->udp && i < RT_MAX_SLOTS) {
			sl->pl_samples = r->pl_cur[i].samples;
			sl->pl_multi = r->pl_cur[i].multi;
			sl->pl_requests = r->pl_cur[i].requests;
			sl->pl_max = r->pl_cur[i].max;
			sl->pl_extrapolated = r->pl_cur[i].extrapolated;
			sl->pl_scan = LL_PL_SCAN;
		}
	}
	ll_hist_reset(h);
	for (i = 0; i < LL_HIST_BUCKETS; i++)
		ll_hist_add_bucket(h, (uint32_t)i, d->runq[i]);
	snap->runq_on = obs_reqtime_features(r->rt)->runq;
	snap->runq_count = ll_hist_count(h);
	snap->runq_p50_ns = ll_hist_count(h) ? (double)ll_hist_percentile(h, 50) : -1;
	snap->runq_p99_ns = ll_hist_count(h) ? (double)ll_hist_percentile(h, 99) : -1;
}

/* The interval's longest socket-queue wait p99 over the TCP slots (0: none timed), in the
 * caller's scratch histogram h. */
static uint64_t queue_p99(const struct obs_reqtime_stats *d, struct ll_hist *h)
{
	uint64_t p, worst = 0;
	size_t i, b;

	for (i = 0; i < d->nslots; i += 2) {
		ll_hist_reset(h);
		for (b = 0; b < LL_HIST_BUCKETS; b++)
			ll_hist_add_bucket(h, (uint32_t)b, d->slot[i].hist[RT_QUEUE][b]);
		p = ll_hist_count(h) ? ll_hist_percentile(h, 99) : 0;
		if (p > worst)
			worst = p;
	}
	return worst;
}

/* The lean hooks' switch, on this interval's deltas (final: counted only); h: scratch. */
static void lean_tick(struct obs_requests *r, bool final, struct ll_hist *h)
{
	const struct obs_reqtime_stats *d = r->delta;
	struct obs_lean_interval iv = {0};
	const struct rt_ctrs *c;
	size_t i;

	if (!r->lean)
		return;
	for (i = 0; i < d->nslots; i++) {
		c = &d->slot[i].c;
		if (i % 2) {
			iv.udp += c->requests + c->unsolicited;
			continue;
		}
		iv.tcp_requests += c->requests;
		iv.untimed += c->untimed;
		iv.multi_write += c->multi_write;
		iv.multi_arrival += c->multi_arrival;
		iv.tls_h2 += c->tls_handshakes + c->tls_unseen + c->tls_plain_conns + c->h2_conns +
			     c->ktls_conns;
	}
	iv.lean_unknown = d->global[RT_G_LEAN_UNKNOWN];
	iv.lean_missed = d->global[RT_G_LEAN_MISSED];
	if (!final) /* (the final read's is only counted) */
		iv.queue_p99_ns = queue_p99(d, h);
	obs_lean_tick(r->lean, &iv, final);
	obs_reqtime_lean_said(r->rt, r->lean);
}

static void keep(struct obs_reqtime_stats *dst, const struct obs_reqtime_stats *src)
{
	memcpy(dst->slot, src->slot, src->nslots * sizeof(*src->slot));
	memcpy(dst->global, src->global, sizeof(src->global));
	memcpy(dst->runq, src->runq, sizeof(src->runq));
	dst->missed = src->missed;
}

/* The snapshot the live lines, the interval records and the summary read: the stats, and what
 * of the object they need, copied as of now. */
static void publish(struct obs_requests *r, struct obs_tick *tk)
{
	struct obs_requests_snap *s = &r->snap;

	s->cur = r->cur;
	s->delta = r->delta;
	s->features = *obs_reqtime_features(r->rt);
	s->attached = obs_reqtime_attached(r->rt);
	s->scope = obs_reqtime_scope(r->rt);
	s->mech = obs_reqtime_mech_name(s->features.mech);
	s->lean_mode = obs_lean_mode_name(s->features.lean_mode);
	obs_reqtime_trace_counts(r->rt, &s->trace_written, &s->trace_write_errors);
	s->h2 = h2_counts(r);
	tk->req = s;
}

static int tick(void *self, struct obs_tick *tk)
{
	struct obs_requests *r = self;
	struct ll_hist *h;
	json_t *iv;
	int err = tk->reads->req_err;

	if (err)
		return err;
	h = ll_hist_new();
	if (!h)
		return -ENOMEM;
	obs_reqtime_stats_sub(r->delta, r->cur, r->prev);
	lean_tick(r, false, h);
	if (tk->snap) {
		requests_snap(r, tk->reads, tk->snap, h);
		statuses(r, tk->reads, tk->snap);
	}
	publish(r, tk);
	if (tk->records && json_array_size(r->intervals) < MAX_INTERVALS) {
		iv = obs_reqtime_fmt_interval(&r->snap, tk->t, tk->dt);
		if (!iv || json_array_append_new(r->intervals, iv))
			err = -ENOMEM;
	}
	keep(r->prev, r->cur);
	ll_hist_free(h);
	return err;
}

/* The final read's: what was lost, and the rules' last interval. */
static int finish(void *self, struct obs_tick *tk)
{
	struct obs_requests *r = self;
	struct ll_hist *h;
	int err = tk->reads->req_err;

	obs_reqtime_lost(r->rt, r->cur, &r->snap.lost);
	obs_reqtime_lean_said(r->rt, r->lean);
	publish(r, tk);
	if (err || !tk->snap)
		return err;
	/* The rules decide on the final read too: after the last tick it holds a short burst's
	 * reads (with --interval 0 the ticks are a second apart). Its interval runs from the last
	 * tick (the start, for a run shorter than one). */
	h = ll_hist_new();
	if (!h)
		return -ENOMEM;
	obs_reqtime_stats_sub(r->delta, r->cur, r->prev);
	lean_tick(r, true, h); /* says the final lean state too */
	requests_snap(r, tk->reads, tk->snap, h);
	statuses(r, tk->reads, tk->snap);
	keep(r->prev, r->cur);
	publish(r, tk); /* again: the final lean state, the final statuses */
	ll_hist_free(h);
	return 0;
}

static int summary(void *self, const struct obs_tick *tk, FILE *out)
{
	struct obs_requests *r = self;

	int err;

	(void)tk;
	err = obs_reqtime_fmt_summary(out, &r->snap);

	obs_payload_fmt_summary(out, r->rt, r->pl, r->pl_cur);
	fflush(out);
	return err;
}

static int json(void *self, const struct obs_tick *tk, json_t *root)
{
	struct obs_requests *r = self;

	int err;

	(void)tk;
	err = obs_reqtime_fmt_json_add(root, &r->snap, r->intervals);
	return err ? err : obs_payload_json_add(root, r->rt, r->pl, r->pl_cur);
}

static void free_feature(void *self)
{
	obs_requests_free(self);
}

const struct obs_feature obs_requests_ops = {
	.name = "requests", .plan = plan, .start = start_feature,
	.start_unprivileged = start_unprivileged, .attached = attached, .tick = tick,
	.finish = finish, .summary = summary, .json = json,
	.free = free_feature,
};
