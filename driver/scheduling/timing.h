/* SPDX-License-Identifier: MIT */
/*
 * A request is timed here, and only here. Every protocol (protocols/) goes through three calls:
 *
 *  - drv_timing_send(): the send's stamp, read when the request's bytes go to the socket (or
 *    the transfer is handed to libcurl), and the deadline of its --timeout from it;
 *  - drv_timing_reply_at(): the reply's stamp, the time its bytes came in (the kernel's receive
 *    stamp where the protocol has one, else now), never before the send;
 *  - drv_timing_record(): the whole outcome of an answered request, recorded once, into the stats
 *    its ticket counts into (looked up once): latency from the intended send (corrected for
 *    coordinated omission) and from the actual send, the live interval's histogram, the
 *    --requests-file record's, the counts by HTTP status, version, DNS RCODE and grpc-status,
 *    then ok or the error's class.
 *
 * A request that got no reply (lost, failed, cancelled) is counted by the slot base
 * (scheduling/slot.c, drv_slot_fail) and its record by drv_timing_unanswered().
 */
#ifndef LOADLENS_DRV_TIMING_H
#define LOADLENS_DRV_TIMING_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include "base/drv.h"
#include "results/stats.h"
#include "scheduling/slot.h"
#include "scheduling/worker.h"

/* What an answered request came to. */
struct drv_timing_reply {
	uint64_t sent; /* drv_timing_send()'s stamp */
	uint64_t at;   /* drv_timing_reply_at()'s */
	int err;       /* 0: ok; else a DRV_E_* code (base/errors.h) or -errno: counted by class */
	int status;    /* http: the status code (0 = none); -1: not http */
	int httpv;     /* http: an enum drv_httpv (below DRV_HTTPV__COUNT); -1: none */
	int rcode;     /* dns: the RCODE counted (0..15); -1: none */
	int grpc;      /* grpc: the grpc-status counted (0..LL_GRPC_OTHER); -1: none */
	int64_t app_code; /* a protocol's result code (an LDAP search's); -1: none */
	uint32_t app_items, app_refs; /* ...and its items and references (stats.h's app) */
	uint32_t rec;  /* --requests-file: the record sent, when rec_live */
	bool rec_live;
};

/* Before the worker's thread runs: the --requests-file per-record stats (none without one). */
int drv_timing_init(struct drv_worker *w);

/* An answered request's reply, before its outcome is known: nothing counted yet. */
static inline struct drv_timing_reply drv_timing_reply_init(uint64_t sent, uint64_t at)
{
	return (struct drv_timing_reply){
		.sent = sent, .at = at, .status = -1, .httpv = -1, .rcode = -1, .grpc = -1,
		.app_code = -1};
}

/* The send's stamp: now, into s->t_send, and s->deadline --timeout later (timeout_ns 0: none). */
static inline uint64_t drv_timing_send(struct drv_slot *s, uint64_t timeout_ns)
{
	s->t_send = uv_hrtime();
	s->deadline = timeout_ns ? s->t_send + timeout_ns : 0;
	if (s->deadline && (!s->w->sweep.pos || s->deadline < s->w->sweep.at))
		drv_worker_sweep_by(s->w, s->deadline);
	return s->t_send;
}

/* The reply's stamp: rx, the time its bytes came in (0: now); never before the send. */
static inline uint64_t drv_timing_reply_at(uint64_t sent, uint64_t rx)
{
	if (!rx)
		rx = uv_hrtime();
	return rx > sent ? rx : sent;
}

/* The --requests-file record sent, of stats st, or NULL. */
static inline struct drv_rec_stats *drv__timing_rec(struct drv_stats *st, bool live, uint32_t rec)
{
	return live && st->rec && rec < st->nrec ? &st->rec[rec] : NULL;
}

/*
 * An answered request, of ticket t: record r once (see above). Returns r->err. Inline: it is the
 * hot path, and most fields of r are constants at each call.
 */
static inline int drv_timing_record(struct drv_worker *w, const struct drv_ticket *t,
				    const struct drv_timing_reply *r)
{
	struct drv_stats *st = drv_worker_stats(w, t);
	struct drv_rec_stats *rec = drv__timing_rec(st, r->rec_live, r->rec);
	uint64_t lat = r->at - t->intended;

	drv_stats_response(st, t->intended, r->sent, r->at);
	ll_hist_record(w->ivl_cur.hist, lat);
	if (r->status >= 0)
		st->status[r->status < DRV_STATUS_MAX ? r->status : 0]++;
	if (r->httpv >= 0)
		st->http_version[r->httpv]++;
	if (r->rcode >= 0)
		st->dns_rcode[r->rcode & 15]++;
	if (r->grpc >= 0)
		st->grpc_status[r->grpc <= LL_GRPC_OTHER ? r->grpc : LL_GRPC_OTHER]++;
	if (r->app_code >= 0) {
		st->app.result[drv_stats_code_slot(r->app_code)]++;
		st->app.items += r->app_items;
		st->app.refs += r->app_refs;
		st->app.empty += !r->app_code && !r->app_items;
	}
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

/* A --requests-file record sent and never answered (its error counted by drv_slot_fail). */
void drv_timing_unanswered(struct drv_worker *w, const struct drv_ticket *t, uint32_t rec,
			   int err);

#endif /* LOADLENS_DRV_TIMING_H */
