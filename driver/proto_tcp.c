// SPDX-License-Identifier: MIT
/*
 * tcp:// — length-prefixed request/response over TCP, one request in flight per connection slot.
 *
 * Request: a 4-byte big-endian length N, then N payload bytes (built once per thread, shared by
 * every slot). Response: a 4-byte big-endian length M, then M bytes, which are counted and
 * dropped: one read buffer per thread serves every connection, since libuv hands out a buffer and
 * calls back before the next read. Nothing is allocated per request or per connection: each slot
 * embeds its uv_tcp_t, requests and timer, and a closed uv_tcp_t is re-initialised in place for
 * the next connection once its close callback has run.
 *
 * Slot life: ask the pacer → (connect) → send → read the response → record → ask again. A
 * failure is counted by class, the connection closed, and the slot asks the pacer again, so a
 * failed attempt uses up its share of -n like a successful one and the run always ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "config.h"
#include "drv.h"
#include "proto.h"
#include "worker.h"

#define TCP_READ_BUF (64 * 1024)
#define TCP_MAX_RESPONSE (256u << 20) /* a larger length prefix is not our framing */
#define TCP_BACKOFF_MS 10	      /* after EMFILE / EADDRNOTAVAIL: let resources free up */

struct tcp_thread;

struct tcp_conn {
	uv_tcp_t tcp;
	uv_connect_t connect_req;
	uv_write_t write_req;
	uv_timer_t wait; /* backoff, and later think time and open-loop send times */
	struct tcp_thread *tt;
	uint32_t slot;	   /* local slot index */
	bool open;	   /* tcp is initialised and not yet closed */
	bool closing;	   /* uv_close() called, close callback pending */
	bool pending;	   /* a request attempt is taken and not yet resolved */
	bool in_flight;	   /* its bytes are (being) sent; awaiting the response */
	bool writing;	   /* write_req in use */
	bool done;	   /* the pacer said no more */
	bool backoff;	   /* after close, wait TCP_BACKOFF_MS before the next attempt */
	uint8_t hdr_got;   /* bytes of the response length prefix received */
	uint8_t hdr[4];
	uint32_t body_left; /* response payload bytes still to come */
	uint32_t write_len; /* bytes handed to uv_write() */
	uint64_t t_intended; /* when the pacer meant the request to go */
	uint64_t t_op;	     /* connect start, then send time */
	uint64_t deadline;   /* t_op + timeout while connecting or in flight; 0 = none */
	uint64_t on_conn;    /* requests completed on this connection */
};

struct tcp_thread {
	struct drv_worker *w;
	struct tcp_conn *conns;
	char *req;
	size_t req_len;
	char *rbuf;
	uint64_t reconnect_every;
	uint64_t timeout_ns;
};

static void x__next(struct tcp_conn *c);
static void x__go(struct tcp_conn *c);

static inline struct drv_worker *x__w(const struct tcp_conn *c)
{
	return c->tt->w;
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

	drv_stats_error(&x__w(c)->stats, err);
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
	if (status < 0) {
		x__fail(c, status);
		return;
	}
	x__w(c)->stats.bytes_sent += c->write_len;
}

static void x__send(struct tcp_conn *c)
{
	struct tcp_thread *tt = c->tt;
	uv_buf_t b = uv_buf_init(tt->req, (unsigned int)tt->req_len);
	int n, err;

	c->hdr_got = 0;
	c->body_left = 0;
	c->in_flight = true;
	c->t_op = uv_hrtime();
	c->deadline = c->t_op + tt->timeout_ns;
	n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
	if (n == (int)tt->req_len) {
		x__w(c)->stats.bytes_sent += (uint64_t)n;
		return;
	}
	if (n < 0 && n != UV_EAGAIN) {
		x__fail(c, n);
		return;
	}
	if (n < 0)
		n = 0;
	x__w(c)->stats.bytes_sent += (uint64_t)n;
	c->write_len = (uint32_t)(tt->req_len - (size_t)n);
	b = uv_buf_init(tt->req + n, c->write_len);
	err = uv_write(&c->write_req, (uv_stream_t *)&c->tcp, &b, 1, x__on_write);
	if (err) {
		x__fail(c, err);
		return;
	}
	c->writing = true;
}

static void x__complete(struct tcp_conn *c)
{
	struct drv_worker *w = x__w(c);
	uint64_t now = uv_hrtime();

	if (c->writing) { /* an answer before the whole request was written */
		x__fail(c, DRV_E_MALFORMED);
		return;
	}
	ll_hist_record(w->stats.latency, now - c->t_op);
	drv_counter_add(&w->stats.requests, 1);
	c->pending = false;
	c->in_flight = false;
	c->deadline = 0;
	c->on_conn++;
	if (c->tt->reconnect_every && c->on_conn >= c->tt->reconnect_every) {
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
	const uint8_t *p = (const uint8_t *)buf->base;
	size_t n = nread > 0 ? (size_t)nread : 0;
	uint32_t len;

	if (nread < 0) {
		if (nread == UV_EOF && !c->pending)
			x__close(c); /* the server closed an idle connection: reopen quietly */
		else
			x__fail(c, nread == UV_EOF ? DRV_E_SHORT : (int)nread);
		return;
	}
	if (!n)
		return;
	x__w(c)->stats.bytes_received += n;
	if (!c->in_flight) {
		x__fail(c, DRV_E_MALFORMED);
		return;
	}
	while (c->hdr_got < 4 && n) {
		c->hdr[c->hdr_got++] = *p++;
		n--;
		if (c->hdr_got < 4)
			continue;
		len = (uint32_t)c->hdr[0] << 24 | (uint32_t)c->hdr[1] << 16 |
		      (uint32_t)c->hdr[2] << 8 | c->hdr[3];
		if (len > TCP_MAX_RESPONSE) {
			x__fail(c, DRV_E_MALFORMED);
			return;
		}
		c->body_left = len;
	}
	if (c->hdr_got < 4)
		return;
	if (n > c->body_left) { /* bytes beyond the response: not a request/response peer */
		x__fail(c, DRV_E_MALFORMED);
		return;
	}
	c->body_left -= (uint32_t)n;
	if (!c->body_left)
		x__complete(c);
}

static void x__on_connect(uv_connect_t *req, int status)
{
	struct tcp_conn *c = container_of(req, struct tcp_conn, connect_req);
	struct drv_worker *w = x__w(c);
	int err;

	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		x__fail(c, status);
		return;
	}
	drv_counter_add(&w->stats.connections, 1);
	ll_hist_record(w->stats.connect, uv_hrtime() - c->t_op);
	c->on_conn = 0;
	(void)uv_tcp_nodelay(&c->tcp, 1); /* best effort: latency, not correctness */
	err = uv_read_start((uv_stream_t *)&c->tcp, x__alloc, x__on_read);
	if (err) {
		x__fail(c, err);
		return;
	}
	x__send(c);
}

static void x__connect(struct tcp_conn *c)
{
	struct drv_worker *w = x__w(c);
	int err;

	err = uv_tcp_init(&w->loop, &c->tcp);
	if (err) { /* no handle to close: x__fail() retries after a backoff */
		x__fail(c, err);
		return;
	}
	c->open = true;
	w->stats.connect_attempts++;
	c->t_op = uv_hrtime();
	c->deadline = c->t_op + c->tt->timeout_ns;
	err = uv_tcp_connect(&c->connect_req, &c->tcp, (const struct sockaddr *)&w->cfg->addr,
			     x__on_connect);
	if (err)
		x__fail(c, err);
}

static void x__go(struct tcp_conn *c)
{
	c->pending = true;
	if (c->open)
		x__send(c);
	else
		x__connect(c);
}

static void x__on_wait(uv_timer_t *t)
{
	x__go(container_of(t, struct tcp_conn, wait));
}

/* The slot is ready for its next attempt: with an idle open connection, or none. */
static void x__next(struct tcp_conn *c)
{
	struct drv_worker *w = x__w(c);
	uint64_t now = uv_hrtime();

	if (w->stopping)
		return;
	switch (drv_pacer_next(&w->pacer, c->slot, now, &c->t_intended)) {
	case DRV_PACE_DONE:
		c->done = true;
		if (c->open)
			x__close(c); /* its close callback reports the slot done */
		else
			drv_worker_slot_done(w);
		return;
	case DRV_PACE_WAIT:
		c->pending = true;
		uv_timer_start(&c->wait, x__on_wait, (c->t_intended - now + 999999) / 1000000, 0);
		return;
	case DRV_PACE_GO:
		x__go(c);
		return;
	}
}

static int x__init(struct drv_worker *w)
{
	const struct drv_config *cfg = w->cfg;
	struct tcp_thread *tt;
	uint32_t i;
	size_t j;
	int err = -ENOMEM;

	tt = calloc(1, sizeof(*tt));
	if (!tt)
		return -ENOMEM;
	tt->w = w;
	tt->reconnect_every = cfg->reconnect_every;
	tt->timeout_ns = cfg->timeout_ns;
	tt->req_len = 4 + cfg->size;
	tt->req = malloc(tt->req_len);
	tt->rbuf = malloc(TCP_READ_BUF);
	tt->conns = calloc(w->nslots, sizeof(*tt->conns));
	if (!tt->req || !tt->rbuf || !tt->conns)
		goto cleanup;
	tt->req[0] = (char)(cfg->size >> 24);
	tt->req[1] = (char)(cfg->size >> 16);
	tt->req[2] = (char)(cfg->size >> 8);
	tt->req[3] = (char)cfg->size;
	for (j = 0; j < cfg->size; j++)
		tt->req[4 + j] = (char)('a' + j % 26);
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
	free(tt->conns);
	free(tt->rbuf);
	free(tt->req);
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
		if (c->pending)
			w->stats.cancelled++;
		c->pending = false;
		c->in_flight = false;
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
	free(tt->conns);
	free(tt->rbuf);
	free(tt->req);
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

const struct drv_proto *drv_proto_for(enum ll_scheme scheme)
{
	switch (scheme) {
	case LL_SCHEME_TCP:
		return &drv_proto_tcp;
	default:
		return NULL;
	}
}
