// SPDX-License-Identifier: MIT
/*
 * Stream protocols on uv_tcp_t, one request in flight per connection slot: tcp:// (refserver
 * framing, or a --payload with a --response rule) and the native http:// engine (HTTP/1.1 with
 * http_parser). They differ only in the request bytes (request.c) and where a response ends
 * (frame.c).
 *
 * Nothing is allocated per request or per connection: the request bytes are built once per
 * thread, one read buffer per thread serves every connection (libuv hands out a buffer and calls
 * back before the next read), and each slot embeds its uv_tcp_t, requests, timer and scheduler
 * entry; a closed uv_tcp_t is re-initialised in place once its close callback has run.
 *
 * Slot life: ask the pacer → (wait for the intended time) → (connect) → send → read the response
 * → record → ask again. A failure is counted by class, the connection closed, and the slot asks
 * the pacer again, so a failed attempt uses up its share of -n like a successful one.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "config.h"
#include "drv.h"
#include "frame.h"
#include "proto.h"
#include "request.h"
#include "worker.h"

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

#define TCP_READ_BUF (64 * 1024)
#define TCP_BACKOFF_MS 10 /* after EMFILE / EADDRNOTAVAIL: let resources free up */

struct tcp_thread;

struct tcp_conn {
	uv_tcp_t tcp;
	uv_connect_t connect_req;
	uv_write_t write_req;
	uv_timer_t wait; /* backoff after an error */
	struct drv_sched_ent ent;
	struct tcp_thread *tt;
	uint32_t slot;	 /* local slot index */
	bool open;	 /* tcp is initialised and not yet closed */
	bool closing;	 /* uv_close() called, close callback pending */
	bool pending;	 /* a request attempt is taken and not yet resolved */
	bool in_flight;	 /* its bytes are (being) sent; awaiting the response */
	bool writing;	 /* write_req in use */
	bool done;	 /* the pacer said no more */
	bool backoff;	 /* after close, wait TCP_BACKOFF_MS before the next attempt */
	bool resume;	 /* a due request waits for the close to finish, then connects */
	uint8_t lp[4];	 /* refserver framing: this request's length prefix */
	uint64_t rx;	 /* bytes of the current response received */
	uint64_t t_send;
	uint64_t t_op;	   /* connect start, then send time */
	uint64_t deadline; /* t_op + timeout while connecting or in flight; 0 = none */
	uint64_t on_conn;  /* requests completed on this connection */
	struct drv_ticket ticket;
	struct drv_frame frame;
};

struct tcp_thread {
	struct drv_worker *w;
	struct tcp_conn *conns;
	struct drv_request rq;
	struct drv_frame_rule rule;
	char *rbuf;
	uint64_t reconnect_every;
	uint64_t timeout_ns;
	unsigned src_next;
};

static void x__next(struct tcp_conn *c);
static void x__connect(struct tcp_conn *c);

static inline struct drv_worker *x__w(const struct tcp_conn *c)
{
	return c->tt->w;
}

static inline struct drv_stats *x__st(struct tcp_conn *c)
{
	return drv_worker_stats(x__w(c), &c->ticket);
}

static void x__on_backoff(uv_timer_t *t)
{
	struct tcp_conn *c = container_of(t, struct tcp_conn, wait);

	c->backoff = false;
	x__next(c);
}

static void x__on_close(uv_handle_t *h)
{
	struct tcp_conn *c = container_of(h, struct tcp_conn, tcp);

	c->open = false;
	c->closing = false;
	if (x__w(c)->stopping)
		return;
	if (c->done) {
		drv_worker_slot_done(x__w(c));
		return;
	}
	if (c->resume) {
		c->resume = false;
		x__connect(c);
		return;
	}
	if (c->ent.pos) /* closed while its next request waits: that one will connect */
		return;
	if (c->backoff) {
		c->backoff = false;
		uv_timer_start(&c->wait, x__on_backoff, TCP_BACKOFF_MS, 0);
		return;
	}
	x__next(c);
}

static void x__close(struct tcp_conn *c)
{
	if (!c->open || c->closing)
		return;
	c->closing = true;
	c->deadline = 0;
	uv_close((uv_handle_t *)&c->tcp, x__on_close);
}

/* Count a failure, drop the connection; its close callback starts the slot's next attempt. */
static void x__fail(struct tcp_conn *c, int err)
{
	enum drv_err e = drv_err_class(err);

	drv_worker_error(x__w(c), &c->ticket, err);
	c->pending = false;
	c->in_flight = false;
	c->deadline = 0;
	if (e == DRV_ERR_EMFILE || e == DRV_ERR_ADDRNOTAVAIL)
		c->backoff = true;
	if (c->open)
		x__close(c);
	else if (!x__w(c)->stopping)
		uv_timer_start(&c->wait, x__on_backoff, TCP_BACKOFF_MS, 0);
}

static void x__on_write(uv_write_t *req, int status)
{
	struct tcp_conn *c = container_of(req, struct tcp_conn, write_req);

	c->writing = false;
	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0)
		x__fail(c, status);
}

static void x__send(struct tcp_conn *c)
{
	struct tcp_thread *tt = c->tt;
	uv_buf_t b[2];
	unsigned nb = 0;
	uint64_t size;
	size_t total;
	int n, err;

	drv_frame_reset(&tt->rule, &c->frame);
	c->rx = 0;
	c->in_flight = true;
	c->t_send = c->t_op = uv_hrtime();
	c->deadline = c->t_op + tt->timeout_ns;
	if (tt->rq.sized) {
		size = drv_request_size(&tt->rq);
		c->lp[0] = (uint8_t)(size >> 24);
		c->lp[1] = (uint8_t)(size >> 16);
		c->lp[2] = (uint8_t)(size >> 8);
		c->lp[3] = (uint8_t)size;
		b[nb++] = uv_buf_init((char *)c->lp, 4);
		if (size)
			b[nb++] = uv_buf_init(tt->rq.buf, (unsigned int)size);
	} else {
		b[nb++] = uv_buf_init(tt->rq.buf, (unsigned int)tt->rq.len);
	}
	total = b[0].len + (nb > 1 ? b[1].len : 0);
	n = uv_try_write((uv_stream_t *)&c->tcp, b, nb);
	if (n == (int)total) {
		x__st(c)->bytes_sent += (uint64_t)n;
		return;
	}
	if (n < 0 && n != UV_EAGAIN) {
		x__fail(c, n);
		return;
	}
	if (n < 0)
		n = 0;
	x__st(c)->bytes_sent += total;
	/* the rest from stable memory: c->lp lives in the slot, the payload in the thread */
	if ((size_t)n >= b[0].len) {
		n -= (int)b[0].len;
		b[0] = uv_buf_init(b[1].base + n, b[1].len - (unsigned int)n);
		nb = 1;
	} else {
		b[0] = uv_buf_init(b[0].base + n, b[0].len - (unsigned int)n);
	}
	err = uv_write(&c->write_req, (uv_stream_t *)&c->tcp, b, nb, x__on_write);
	if (err) {
		x__fail(c, err);
		return;
	}
	c->writing = true;
}

static void x__complete(struct tcp_conn *c)
{
	struct drv_worker *w = x__w(c);
	struct drv_stats *st = x__st(c);
	uint64_t now = uv_hrtime();
	uint16_t status = c->frame.status;

	if (c->writing) { /* an answer before the whole request was written */
		x__fail(c, DRV_E_MALFORMED);
		return;
	}
	drv_worker_response(w, &c->ticket, c->t_send, now);
	c->pending = false;
	c->in_flight = false;
	c->deadline = 0;
	c->on_conn++;
	if (c->tt->rule.rule == DRV_RESP_HTTP) {
		st->status[status < DRV_STATUS_MAX ? status : 0]++;
		st->http_version[c->frame.hp.http_minor ? DRV_HTTPV_1_1 : DRV_HTTPV_1_0]++;
		if (status < 200 || status > 299)
			drv_worker_error(w, &c->ticket, DRV_E_HTTP_STATUS);
		else
			drv_counter_add(&st->requests, 1);
	} else {
		drv_counter_add(&st->requests, 1);
	}
	if (!c->frame.keep_alive ||
	    (c->tt->reconnect_every && c->on_conn >= c->tt->reconnect_every)) {
		x__close(c); /* the client closes first: TIME_WAIT stays on this side */
		return;
	}
	x__next(c);
}

static void x__alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct tcp_conn *c = container_of(h, struct tcp_conn, tcp);

	buf->base = c->tt->rbuf;
	buf->len = TCP_READ_BUF;
}

static void x__on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct tcp_conn *c = container_of(s, struct tcp_conn, tcp);
	int err;

	if (nread < 0) {
		if (nread == UV_EOF && !c->in_flight) {
			x__close(c); /* the server closed an idle connection: reopen quietly */
			return;
		}
		if (nread == UV_EOF && c->in_flight && c->rx) {
			err = drv_frame_eof(&c->tt->rule, &c->frame);
			if (!err) {
				c->frame.keep_alive = false;
				x__complete(c);
				return;
			}
		}
		x__fail(c, nread == UV_EOF ? DRV_E_SHORT : (int)nread);
		return;
	}
	if (!nread)
		return;
	x__st(c)->bytes_received += (uint64_t)nread;
	if (!c->in_flight) {
		x__fail(c, DRV_E_MALFORMED);
		return;
	}
	c->rx += (uint64_t)nread;
	err = drv_frame_feed(&c->tt->rule, &c->frame, buf->base, (size_t)nread);
	if (err)
		x__fail(c, err);
	else if (c->frame.done)
		x__complete(c);
}

static void x__on_connect(uv_connect_t *req, int status)
{
	struct tcp_conn *c = container_of(req, struct tcp_conn, connect_req);
	int err;

	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		x__fail(c, status);
		return;
	}
	drv_counter_add(&x__st(c)->connections, 1);
	ll_hist_record(x__st(c)->connect, uv_hrtime() - c->t_op);
	c->on_conn = 0;
	(void)uv_tcp_nodelay(&c->tcp, 1); /* best effort: latency, not correctness */
	err = uv_read_start((uv_stream_t *)&c->tcp, x__alloc, x__on_read);
	if (err) {
		x__fail(c, err);
		return;
	}
	x__send(c);
}

/* --source-addr: bind to the next local address, the port chosen at connect time. */
static int x__bind_source(struct tcp_conn *c)
{
	const struct drv_config *cfg = x__w(c)->cfg;
	const struct sockaddr_storage *src = &cfg->sources[c->tt->src_next++ % cfg->nsources];
	uv_os_fd_t fd;
	int one = 1, err;

	err = uv_fileno((uv_handle_t *)&c->tcp, &fd);
	if (err)
		return err;
	(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	return uv_tcp_bind(&c->tcp, (const struct sockaddr *)src, 0);
}

static void x__connect(struct tcp_conn *c)
{
	struct drv_worker *w = x__w(c);
	int err;

	err = uv_tcp_init_ex(&w->loop, &c->tcp, w->cfg->addr.ss_family);
	if (err) { /* no handle to close: x__fail() retries after a backoff */
		x__fail(c, err);
		return;
	}
	c->open = true;
	x__st(c)->connect_attempts++;
	c->t_op = uv_hrtime();
	c->deadline = c->t_op + c->tt->timeout_ns;
	err = w->cfg->nsources ? x__bind_source(c) : 0;
	if (!err)
		err = uv_tcp_connect(&c->connect_req, &c->tcp,
				     (const struct sockaddr *)&w->cfg->addr, x__on_connect);
	if (err)
		x__fail(c, err);
}

static void x__go(struct tcp_conn *c, bool waited)
{
	drv_worker_started(x__w(c), &c->ticket, uv_hrtime(), waited);
	if (c->closing)
		c->resume = true;
	else if (c->open)
		x__send(c);
	else
		x__connect(c);
}

static void x__on_due(struct drv_sched_ent *e)
{
	struct tcp_conn *c = container_of(e, struct tcp_conn, ent);

	if (x__w(c)->stopping)
		return;
	if (drv_worker_due(x__w(c), &c->ticket, &c->pending))
		x__go(c, true);
	else
		x__next(c);
}

/* The slot is ready for its next attempt: with an idle open connection, or none. */
static void x__next(struct tcp_conn *c)
{
	struct drv_worker *w = x__w(c);

	if (w->stopping)
		return;
	switch (drv_worker_pace(w, c->slot, &c->ticket, &c->ent, x__on_due, &c->pending)) {
	case DRV_PACE_DONE:
		c->done = true;
		if (c->open)
			x__close(c); /* its close callback reports the slot done */
		else
			drv_worker_slot_done(w);
		return;
	case DRV_PACE_GO:
		x__go(c, false);
		return;
	case DRV_PACE_WAIT:
		return;
	}
}

static int x__init(struct drv_worker *w)
{
	struct tcp_thread *tt;
	uint32_t i;
	int err = -ENOMEM;

	tt = calloc(1, sizeof(*tt));
	if (!tt)
		return -ENOMEM;
	tt->w = w;
	tt->reconnect_every = w->cfg->reconnect_every;
	tt->timeout_ns = w->cfg->timeout_ns;
	drv_frame_rule_init(&tt->rule, w->cfg);
	tt->rbuf = malloc(TCP_READ_BUF);
	tt->conns = calloc(w->nslots, sizeof(*tt->conns));
	if (!tt->rbuf || !tt->conns)
		goto cleanup;
	err = drv_request_init(&tt->rq, w->cfg, w->id + 1);
	if (err)
		goto cleanup;
	for (i = 0; i < w->nslots; i++) {
		tt->conns[i].tt = tt;
		tt->conns[i].slot = i;
		err = uv_timer_init(&w->loop, &tt->conns[i].wait);
		if (err)
			goto cleanup_timers;
	}
	w->proto_data = tt;
	return 0;

cleanup_timers:
	while (i--)
		uv_close((uv_handle_t *)&tt->conns[i].wait, NULL);
	/* the timers are closed on the loop; drv_worker_abandon() drains it before conns go */
	tt->w = NULL;
	w->proto_data = tt;
	return err;
cleanup:
	drv_request_fini(&tt->rq);
	free(tt->conns);
	free(tt->rbuf);
	free(tt);
	return err;
}

static void x__start(struct drv_worker *w)
{
	struct tcp_thread *tt = w->proto_data;
	uint32_t i;

	for (i = 0; i < w->nslots && !w->stopping; i++)
		x__next(&tt->conns[i]);
}

static void x__sweep(struct drv_worker *w, uint64_t now)
{
	struct tcp_thread *tt = w->proto_data;
	struct tcp_conn *c;
	uint32_t i;

	for (i = 0; i < w->nslots; i++) {
		c = &tt->conns[i];
		if (c->deadline && now >= c->deadline && c->open && !c->closing)
			x__fail(c, -ETIMEDOUT);
	}
}

static void x__stop(struct drv_worker *w)
{
	struct tcp_thread *tt = w->proto_data;
	struct tcp_conn *c;
	uint32_t i;

	if (!tt->w) /* init failed half-way: its timers are already closing */
		return;
	for (i = 0; i < w->nslots; i++) {
		c = &tt->conns[i];
		if (c->pending && !c->ent.pos) /* sent, not merely scheduled */
			x__st(c)->cancelled++;
		c->pending = false;
		c->in_flight = false;
		drv_sched_cancel(&w->sched, &c->ent);
		x__close(c);
		uv_timer_stop(&c->wait);
		uv_close((uv_handle_t *)&c->wait, NULL);
	}
}

static void x__fini(struct drv_worker *w)
{
	struct tcp_thread *tt = w->proto_data;

	w->proto_data = NULL;
	if (!tt)
		return;
	drv_request_fini(&tt->rq);
	free(tt->conns);
	free(tt->rbuf);
	free(tt);
}

const struct drv_proto drv_proto_tcp = {
	.name = "tcp",
	.init = x__init,
	.start = x__start,
	.sweep = x__sweep,
	.stop = x__stop,
	.fini = x__fini,
};

const struct drv_proto drv_proto_http_native = {
	.name = "http",
	.init = x__init,
	.start = x__start,
	.sweep = x__sweep,
	.stop = x__stop,
	.fini = x__fini,
};
