// SPDX-License-Identifier: MIT
/*
 * udp:// — one datagram each way, one request in flight per slot. Each slot has its own
 * connected socket, so a reply can only be for that slot. A request with no reply within
 * --timeout is counted "lost"; a reply that comes after that is counted "late", apart.
 *
 * Matching: when the payload is ours (no --payload, every size >= 8), its first 8 bytes carry a
 * tag ("LL" and a 48-bit sequence number); an echoing server (the refserver) sends it back, so a
 * late reply is told from the current one exactly. Otherwise any reply while a request is in
 * flight answers it, and a reply while none is in flight is late.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "config.h"
#include "drv.h"
#include "proto.h"
#include "request.h"
#include "worker.h"

#define UDP_READ_BUF (64 * 1024)
#define UDP_BACKOFF_MS 10
#define UDP_TAG_MAGIC 0x4c4cULL /* "LL" in the top 16 bits */

struct udp_thread;

struct udp_slot {
	uv_udp_t udp;
	uv_udp_send_t send_req;
	uv_timer_t wait; /* next attempt after a failure (never recursing) */
	struct drv_sched_ent ent;
	struct udp_thread *ut;
	uint32_t slot;
	bool open, closing, pending, in_flight, sending, done;
	bool got; /* a datagram was read in this readiness callback (see x__alloc) */
	uint8_t tag[8];
	uint64_t seq;
	uint64_t t_send, deadline;
	struct drv_ticket ticket;
};

struct udp_thread {
	struct drv_worker *w;
	struct udp_slot *slots;
	struct drv_request rq;
	char *rbuf;
	bool tagged;
	uint64_t timeout_ns;
};

static void x__next(struct udp_slot *u);

static inline struct drv_worker *x__w(const struct udp_slot *u)
{
	return u->ut->w;
}

static inline struct drv_stats *x__st(struct udp_slot *u)
{
	return drv_worker_stats(x__w(u), &u->ticket);
}

static void x__on_wait(uv_timer_t *t)
{
	struct udp_slot *u = container_of(t, struct udp_slot, wait);

	if (u->closing) /* a failed socket still closing: try once it is gone */
		uv_timer_start(&u->wait, x__on_wait, 1, 0);
	else
		x__next(u);
}

static void x__on_close(uv_handle_t *h)
{
	struct udp_slot *u = container_of((uv_udp_t *)h, struct udp_slot, udp);

	u->open = false;
	u->closing = false;
}

/* Count a failure; the next attempt starts from the loop, after a backoff for resource errors. */
static void x__fail(struct udp_slot *u, int err)
{
	enum drv_err e = drv_err_class(err);

	drv_worker_error(x__w(u), &u->ticket, err);
	u->pending = false;
	u->in_flight = false;
	u->deadline = 0;
	if (x__w(u)->stopping)
		return;
	uv_timer_start(&u->wait, x__on_wait,
		       e == DRV_ERR_EMFILE || e == DRV_ERR_ADDRNOTAVAIL ? UDP_BACKOFF_MS : 0, 0);
}

static void x__on_send(uv_udp_send_t *req, int status)
{
	struct udp_slot *u = container_of(req, struct udp_slot, send_req);

	u->sending = false;
	if (status == UV_ECANCELED || u->closing)
		return;
	if (status < 0 && u->in_flight)
		x__fail(u, status);
}

static void x__complete(struct udp_slot *u)
{
	struct drv_worker *w = x__w(u);

	drv_worker_response(w, &u->ticket, u->t_send, uv_hrtime());
	drv_counter_add(&x__st(u)->requests, 1);
	u->pending = false;
	u->in_flight = false;
	u->deadline = 0;
	x__next(u);
}

static void x__alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct udp_slot *u = container_of((uv_udp_t *)h, struct udp_slot, udp);

	/*
	 * libuv reads a readable socket until EAGAIN: after a reply, that is one more recvmsg
	 * (about 0.5 us here, 4% of a same-CPU round trip) which nearly always fails. An empty
	 * buffer ends its loop instead (UV_ENOBUFS, no syscall); epoll is level-triggered, so a
	 * second datagram already queued is read on the next turn of the loop.
	 */
	if (u->got) {
		u->got = false;
		*buf = uv_buf_init(NULL, 0);
		return;
	}
	*buf = uv_buf_init(u->ut->rbuf, UDP_READ_BUF);
}

static void x__on_recv(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf,
		       const struct sockaddr *addr, unsigned flags)
{
	struct udp_slot *u = container_of(h, struct udp_slot, udp);
	uint64_t v = 0;
	unsigned i;

	if (nread == UV_ENOBUFS) /* x__alloc ended libuv's read loop */
		return;
	if (nread < 0) {
		if (u->in_flight)
			x__fail(u, (int)nread);
		return;
	}
	if (!addr) /* nothing more to read for now */
		return;
	u->got = true;
	x__st(u)->bytes_received += (uint64_t)nread;
	if (u->ut->tagged && nread >= 8) {
		for (i = 0; i < 8; i++)
			v = v << 8 | (uint8_t)buf->base[i];
		if (v >> 48 == UDP_TAG_MAGIC) {
			if (u->in_flight && (v & 0xffffffffffffULL) == (u->seq & 0xffffffffffffULL))
				x__complete(u);
			else
				x__st(u)->late++;
			return;
		}
	}
	if (u->in_flight)
		x__complete(u);
	else
		x__st(u)->late++;
}

static void x__send(struct udp_slot *u)
{
	struct udp_thread *ut = u->ut;
	uv_buf_t b[2];
	unsigned nb = 0, i;
	uint64_t size, v;
	int n, err;

	u->in_flight = true;
	u->t_send = uv_hrtime();
	u->deadline = u->t_send + ut->timeout_ns;
	u->seq++;
	if (ut->rq.sized) {
		size = drv_request_size(&ut->rq);
		if (ut->tagged) {
			v = UDP_TAG_MAGIC << 48 | (u->seq & 0xffffffffffffULL);
			for (i = 0; i < 8; i++)
				u->tag[i] = (uint8_t)(v >> (56 - 8 * i));
			b[nb++] = uv_buf_init((char *)u->tag, 8);
			b[nb++] = uv_buf_init(ut->rq.buf + 8, (unsigned int)(size - 8));
		} else {
			b[nb++] = uv_buf_init(ut->rq.buf, (unsigned int)size);
		}
	} else {
		size = ut->rq.len;
		b[nb++] = uv_buf_init(ut->rq.buf, (unsigned int)size);
	}
	x__st(u)->bytes_sent += size;
	n = uv_udp_try_send(&u->udp, b, nb, NULL);
	if (n >= 0)
		return;
	if (n != UV_EAGAIN) {
		x__fail(u, n);
		return;
	}
	err = uv_udp_send(&u->send_req, &u->udp, b, nb, NULL, x__on_send);
	if (err) {
		x__fail(u, err);
		return;
	}
	u->sending = true;
}

static int x__open(struct udp_slot *u)
{
	struct drv_worker *w = x__w(u);
	int err;

	err = uv_udp_init_ex(&w->loop, &u->udp, w->cfg->addr.ss_family);
	if (err)
		return err;
	u->open = true;
	if (w->cfg->nsources) { /* --source-addr: round-robin over the local addresses */
		err = uv_udp_bind(&u->udp,
				  (const struct sockaddr *)&w->cfg->sources[u->slot %
									 w->cfg->nsources],
				  0);
		if (err)
			return err;
	}
	err = uv_udp_connect(&u->udp, (const struct sockaddr *)&w->cfg->addr);
	if (!err)
		err = uv_udp_recv_start(&u->udp, x__alloc, x__on_recv);
	return err; /* on error the socket stays open; it is closed at stop */
}

static void x__go(struct udp_slot *u, bool waited)
{
	int err;

	drv_worker_started(x__w(u), &u->ticket, uv_hrtime(), waited);
	if (!u->open) {
		x__st(u)->connect_attempts++;
		err = x__open(u);
		if (err) {
			if (u->open) {
				u->closing = true;
				uv_close((uv_handle_t *)&u->udp, x__on_close);
			}
			x__fail(u, err);
			return;
		}
		drv_counter_add(&x__st(u)->connections, 1);
	}
	x__send(u);
}

static void x__on_due(struct drv_sched_ent *e)
{
	struct udp_slot *u = container_of(e, struct udp_slot, ent);

	if (!x__w(u)->stopping)
		x__go(u, true);
}

static void x__next(struct udp_slot *u)
{
	struct drv_worker *w = x__w(u);

	if (w->stopping)
		return;
	switch (drv_worker_pace(w, u->slot, &u->ticket, &u->ent, x__on_due, &u->pending)) {
	case DRV_PACE_DONE:
		u->done = true;
		drv_worker_slot_done(w);
		return;
	case DRV_PACE_GO:
		x__go(u, false);
		return;
	case DRV_PACE_WAIT:
		return;
	}
}

static int x__init(struct drv_worker *w)
{
	const struct drv_config *cfg = w->cfg;
	struct udp_thread *ut;
	uint32_t i;
	int err = -ENOMEM;

	ut = calloc(1, sizeof(*ut));
	if (!ut)
		return -ENOMEM;
	ut->w = w;
	ut->timeout_ns = cfg->timeout_ns;
	ut->rbuf = malloc(UDP_READ_BUF);
	ut->slots = calloc(w->nslots, sizeof(*ut->slots));
	if (!ut->rbuf || !ut->slots)
		goto cleanup;
	err = drv_request_init(&ut->rq, cfg, w->id + 1);
	if (err)
		goto cleanup;
	ut->tagged = ut->rq.sized && ut->rq.size_min >= 8;
	for (i = 0; i < w->nslots; i++) {
		ut->slots[i].ut = ut;
		ut->slots[i].slot = i;
		ut->slots[i].seq = (uint64_t)(w->first_slot + i) << 32;
		err = uv_timer_init(&w->loop, &ut->slots[i].wait);
		if (err)
			goto cleanup_timers;
	}
	w->proto_data = ut;
	return 0;

cleanup_timers:
	while (i--)
		uv_close((uv_handle_t *)&ut->slots[i].wait, NULL);
	ut->w = NULL;
	w->proto_data = ut;
	return err;
cleanup:
	drv_request_fini(&ut->rq);
	free(ut->slots);
	free(ut->rbuf);
	free(ut);
	return err;
}

static void x__start(struct drv_worker *w)
{
	struct udp_thread *ut = w->proto_data;
	uint32_t i;

	for (i = 0; i < w->nslots && !w->stopping; i++)
		x__next(&ut->slots[i]);
}

static void x__sweep(struct drv_worker *w, uint64_t now)
{
	struct udp_thread *ut = w->proto_data;
	struct udp_slot *u;
	uint32_t i;

	for (i = 0; i < w->nslots; i++) {
		u = &ut->slots[i];
		if (u->in_flight && now >= u->deadline) {
			drv_worker_error(w, &u->ticket, DRV_E_LOST);
			u->pending = false;
			u->in_flight = false;
			u->deadline = 0;
			x__next(u);
		}
	}
}

static void x__stop(struct drv_worker *w)
{
	struct udp_thread *ut = w->proto_data;
	struct udp_slot *u;
	uint32_t i;

	if (!ut->w)
		return;
	for (i = 0; i < w->nslots; i++) {
		u = &ut->slots[i];
		if (u->pending && !u->ent.pos) /* sent, not merely scheduled */
			x__st(u)->cancelled++;
		u->pending = false;
		u->in_flight = false;
		drv_sched_cancel(&w->sched, &u->ent);
		if (u->open && !u->closing) {
			u->closing = true;
			uv_close((uv_handle_t *)&u->udp, x__on_close);
		}
		uv_timer_stop(&u->wait);
		uv_close((uv_handle_t *)&u->wait, NULL);
	}
}

static void x__fini(struct drv_worker *w)
{
	struct udp_thread *ut = w->proto_data;

	w->proto_data = NULL;
	if (!ut)
		return;
	drv_request_fini(&ut->rq);
	free(ut->slots);
	free(ut->rbuf);
	free(ut);
}

const struct drv_proto drv_proto_udp = {
	.name = "udp",
	.init = x__init,
	.start = x__start,
	.sweep = x__sweep,
	.stop = x__stop,
	.fini = x__fini,
};
