// SPDX-License-Identifier: MIT
/* The slot base shared by the protocols: pacing, waiting, retries and backoff, sweep, stop. */
#include <errno.h>
#include <stdlib.h>
#include "config/config.h"
#include "base/drv.h"
#include "scheduling/protocol.h"
#include "scheduling/slot.h"
#include "scheduling/worker.h"

static void on_due(struct drv_sched_ent *e);

/* -d ends: a slot held open since its last request ends with the run. */
static void on_hold(struct drv_sched_ent *e)
{
	struct drv_slot *s = container_of(e, struct drv_slot, ent);

	if (s->w->stopping)
		return;
	s->done = true;
	s->ops->finish(s);
}

/*
 * The pacer has nothing more for the slot before -d, though -d is still ahead (its next think
 * time or scheduled send falls past it): the connection stays open until -d, as a user holding
 * connections for the run's duration expects, rather than closing early.
 */
static bool hold(struct drv_slot *s)
{
	const struct drv_pacer *p = &s->w->pacer;

	if (p->stopped || !p->deadline_ns || (p->left && !p->left[s->idx]) ||
	    uv_hrtime() >= p->deadline_ns)
		return false;
	s->pending = false;
	drv_sched_add(&s->w->sched, &s->ent, p->deadline_ns, on_hold);
	return true;
}

static void go(struct drv_slot *s, bool waited)
{
	/* the closed loop records nothing here: no clock read (the protocol stamps the send) */
	if (waited || s->w->pacer.rate)
		drv_worker_started(s->w, &s->ticket, uv_hrtime(), waited);
	s->ops->go(s);
}

/* Act on the pacer's answer for the ticket just taken into s->ticket. */
static void take(struct drv_slot *s, enum drv_pace r)
{
	switch (r) {
	case DRV_PACE_DONE:
		if (hold(s))
			return;
		s->done = true;
		s->ops->finish(s);
		return;
	case DRV_PACE_WAIT:
		s->pending = true;
		drv_sched_add(&s->w->sched, &s->ent, s->ticket.intended, on_due);
		return;
	case DRV_PACE_GO:
		s->pending = true;
		go(s, false);
		return;
	}
}

static void on_due(struct drv_sched_ent *e)
{
	struct drv_slot *s = container_of(e, struct drv_slot, ent);

	if (s->w->stopping)
		return;
	if (drv_worker_due(s->w, &s->ticket)) {
		go(s, true);
		return;
	}
	s->pending = false; /* -d passed while it waited: counted not sent */
	drv_slot_next(s);
}

static void on_wait(struct drv_sched_ent *e)
{
	drv_slot_next(container_of(e, struct drv_slot, wait));
}

/* Local slot i takes its first request t: allocated now. NULL if that failed (counted). */
static struct drv_slot *new(struct drv_worker *w, uint32_t i, const struct drv_ticket *t)
{
	const struct drv_slot_ops *ops = w->proto->slot;
	struct drv_slot *s = calloc(1, ops->size);
	int err = -ENOMEM;

	if (s) {
		s->w = w;
		s->ops = ops;
		s->idx = i;
		s->ticket = *t;
		w->slots[i] = s; /* from here on the stop and the free see it */
		err = ops->init ? ops->init(s) : 0;
		if (!err)
			return s;
		s->done = true;
	}
	drv_worker_error(w, t, err);
	drv_worker_slot_done(w);
	return NULL;
}

void drv_slots_start(struct drv_worker *w)
{
	struct drv_ticket t;
	struct drv_slot *s;
	enum drv_pace r;
	uint32_t i;

	for (i = 0; i < w->nslots && !w->stopping; i++) {
		r = drv_worker_pace(w, i, &t);
		if (r == DRV_PACE_DONE) { /* no request for this slot: no memory either */
			drv_worker_slot_done(w);
			continue;
		}
		s = new(w, i, &t);
		if (s)
			take(s, r);
	}
}

void drv_slot_next(struct drv_slot *s)
{
	if (s->w->stopping)
		return;
	take(s, drv_worker_pace(s->w, s->idx, &s->ticket));
}

void drv_slot_fail(struct drv_slot *s, int err, bool connecting)
{
	enum drv_err e = drv_err_class(err);
	bool local = e == DRV_ERR_EMFILE || e == DRV_ERR_ADDRNOTAVAIL;

	drv_worker_error(s->w, &s->ticket, err);
	drv_slot_negotiation(s, err);
	drv_slot_resolved(s);
	/* a refused or unreachable target: back off; a local shortage (no fd, no ephemeral port)
	 * is retried after a short fixed pause, so that its rate shows how long it lasts */
	if (connecting && !local)
		drv_slot_backoff(s);
	else
		s->delay_ms = local ? DRV_SLOT_RESOURCE_MS : 0;
}

void drv_slot_negotiation(struct drv_slot *s, int err)
{
	if (s->negfailed || !drv_failfast_err(err))
		return;
	s->negfailed = true;
	drv_worker_negfail(s->w, err);
}

void drv_slot_backoff(struct drv_slot *s)
{
	s->backoff_ms = s->backoff_ms ? s->backoff_ms * 2 : 1;
	if (s->backoff_ms > DRV_SLOT_BACKOFF_MAX_MS)
		s->backoff_ms = DRV_SLOT_BACKOFF_MAX_MS;
	s->delay_ms = s->backoff_ms;
}

void drv_slot_retry(struct drv_slot *s)
{
	if (s->w->stopping)
		return;
	drv_sched_timer(&s->w->sched, &s->wait, uv_hrtime() + (uint64_t)s->delay_ms * 1000000,
			on_wait);
	s->delay_ms = 0;
}

/* Free the slots done since the last call: none of their callbacks can still be on the stack. */
static void free_retired(struct drv_worker *w)
{
	struct drv_slot *s;

	while ((s = w->retired)) {
		w->retired = s->retired;
		if (s->ops->release)
			s->ops->release(s);
		free(s);
	}
}

void drv_slot_done(struct drv_slot *s)
{
	struct drv_worker *w = s->w;

	/* its protocol handles are closed: it leaves the table, freed at the next sweep (its
	 * caller may still be in one of its callbacks) */
	w->slots[s->idx] = NULL;
	drv_sched_cancel(&w->sched, &s->wait);
	s->retired = w->retired;
	w->retired = s;
	drv_worker_slot_done(w);
}

uint64_t drv_slots_sweep(struct drv_worker *w, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	struct drv_slot *s;
	uint32_t i;

	free_retired(w);
	for (i = 0; i < w->nslots; i++) {
		s = w->slots[i];
		if (s && s->deadline && now >= s->deadline && s->ops->expire)
			s->ops->expire(s);
		s = w->slots[i]; /* its next deadline (-P: the next request's), if any */
		if (s && s->deadline && s->deadline < next)
			next = s->deadline;
	}
	return next;
}

void drv_slots_stop(struct drv_worker *w)
{
	struct drv_slot *s;
	uint32_t i;

	for (i = 0; i < w->nslots; i++) {
		s = w->slots[i];
		if (!s)
			continue;
		if (s->pending && !s->ent.pos) /* sent, not merely scheduled */
			drv_worker_stats(w, &s->ticket)->cancelled++;
		drv_slot_resolved(s);
		drv_sched_cancel(&w->sched, &s->ent);
		drv_sched_cancel(&w->sched, &s->wait);
		s->ops->stop(s);
	}
}

void drv_slots_free(struct drv_worker *w)
{
	struct drv_slot *s;
	uint32_t i;

	free_retired(w);
	for (i = 0; w->slots && i < w->nslots; i++) {
		s = w->slots[i];
		if (!s)
			continue;
		if (s->ops->release)
			s->ops->release(s);
		free(s);
	}
	free(w->slots);
	w->slots = NULL;
}

int drv_slot_io_new(struct drv_worker *w, size_t size, size_t rbuf_len, drv_rxset_cb rx)
{
	struct drv_slot_io *io = calloc(1, size);
	int err = -ENOMEM;

	if (!io)
		return -ENOMEM;
	io->w = w;
	io->rxset.epfd = -1;
	io->rbuf_len = rbuf_len;
	io->rbuf = malloc(rbuf_len);
	if (io->rbuf)
		err = drv_request_init(&io->rq, w->cfg, w->id + 1);
	if (!err && rx && w->cfg->rate > 0)
		err = drv_rxset_init(&io->rxset, w, w->nslots < 2, rx);
	if (err) {
		drv_request_fini(&io->rq);
		free(io->rbuf);
		free(io);
		return err;
	}
	w->proto_data = io;
	return 0;
}

void drv_slot_io_stop(struct drv_worker *w)
{
	drv_rxset_stop(&((struct drv_slot_io *)w->proto_data)->rxset);
}

void drv_slot_io_fini(struct drv_worker *w)
{
	struct drv_slot_io *io = w->proto_data;

	w->proto_data = NULL;
	if (!io)
		return;
	drv_rxset_fini(&io->rxset);
	drv_request_fini(&io->rq);
	free(io->rbuf_spare);
	free(io->rbuf);
	free(io);
}
