// SPDX-License-Identifier: MIT
/*
 * The native HTTP/2 engine: libnghttp2 client sessions on the worker's libuv loop, h2c by prior
 * knowledge (http:// --http2, grpc://) or h2 over TLS chosen by ALPN (https:// --http2,
 * grpcs://; tls_conn.c). One connection per slot, --streams N streams in flight on it, each its
 * own ticket from the pacer, as -P's requests are (h2_conn.h). This file is the connection:
 * connect, handshake, read, write, close, and the slot's life; h2_stream.c is the session.
 *
 * The session is driven by nghttp2_session_mem_recv() from the read callback and
 * nghttp2_session_mem_send() on the way out of every callback: what it writes collects in one
 * buffer and goes out in one write (the rest through one uv_write while the next fills).
 *
 * A connection that ends with streams in flight fails each (counted by cause); one that never
 * spoke HTTP/2 (an HTTP/1.x answer to the preface, ALPN without h2) backs off as a failed connect
 * would. A server's GOAWAY stops new streams; the connection closes once those it accepted are
 * answered, and the slot reopens. --reconnect-every K opens K streams per connection.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "base/drv.h"
#include "config/config.h"
#include "protocols/h2_conn.h"
#include "protocols/h2_stream.h"
#include "protocols/protocols.h"
#include "protocols/tls_conn.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

#define H2_READ_BUF (64 * 1024)
#define H2_PLAIN_BUF (64 * 1024)

static void h2_connect(struct h2_conn *c);
static void flush(struct h2_conn *c);

static void on_close(uv_handle_t *h)
{
	struct h2_conn *c = container_of(h, struct h2_conn, tcp);

	c->open = false;
	c->closing = false;
	if (c->base.w->stopping)
		return;
	if (c->parked) { /* streams a GOAWAY refused: sent again on a new connection */
		if (c->base.done)
			c->finishing = true;
		h2_connect(c);
	} else if (c->base.done)
		drv_slot_done(&c->base);
	else if (c->held) /* a ticket waits for a connection */
		h2_connect(c);
	else if (!c->base.pending) /* else its next ticket waits for its time, then connects */
		drv_slot_retry(&c->base);
}

/* Nothing in flight any more: close; its close callback starts what comes next. */
static void conn_close(struct h2_conn *c)
{
	if (!c->open || c->closing)
		return;
	c->closing = true;
	c->connecting = false;
	c->base.deadline = 0;
	h2__session_free(c);
	drv_tls_fini(&c->tls);
	c->pend.len = 0; /* out stays until its uv_write is cancelled */
	uv_close((uv_handle_t *)&c->tcp, on_close);
}

/* Why a connection's TLS or HTTP/2 negotiation failed with err, in words. */
static const char *negotiation_why(const struct h2_conn *c, int err)
{
	if (c->tls.why)
		return c->tls.why;
	if (err == DRV_E_NOT_H2 && c->not_h2) /* its first bytes (h2__recv) */
		return c->not_h2;
	if (err == DRV_E_NOT_H2)
		return "the server's ALPN chose no h2: it does not offer HTTP/2 there";
	return "the server closed the connection during the TLS handshake";
}

void h2__conn_fail(struct h2_conn *c, int err)
{
	if (drv_failfast_err(err)) { /* (its count: drv_slot_fail's below, or here) */
		drv_worker_why(c->base.w, negotiation_why(c, err));
		drv_slot_negotiation(&c->base, err);
	}
	h2__streams_fail(c, err);
	if (c->connecting && c->held) { /* the ticket that was connecting: counted, backs off */
		c->held = false;
		drv_slot_fail(&c->base, err, true);
	} else if (!c->settings) { /* it came up but never spoke HTTP/2 */
		drv_slot_backoff(&c->base);
	}
	c->connecting = false;
	c->base.deadline = 0;
	if (c->open)
		conn_close(c);
	else if (!c->held && !c->base.pending)
		drv_slot_retry(&c->base);
}

/* Open streams while there is room: the ticket held here first, then the pacer's next ones. */
static void pump(struct h2_conn *c)
{
	if (c->pumping) /* drv_slot_next() comes back through slot_go(): this loop goes on */
		return;
	c->pumping = true;
	while (!c->base.w->stopping) {
		if (c->held) {
			if (!h2__room(c))
				break;
			c->held = false;
			if (h2__stream_start(c))
				continue;
			drv_slot_retry(&c->base); /* from the loop: no busy loop of failures */
			break;
		}
		if (c->base.pending || c->base.done || !h2__room(c))
			break;
		drv_slot_next(&c->base); /* GO: held again; WAIT: on the waker; DONE */
		if (!c->held)
			break;
	}
	c->pumping = false;
}

/* After a read or a send: a connection with nothing left to do closes. */
static void check_close(struct h2_conn *c)
{
	if (!c->open || c->closing || c->connecting || !c->sess)
		return;
	if (!nghttp2_session_want_read(c->sess) && !nghttp2_session_want_write(c->sess)) {
		/* the session ended with streams open: its own GOAWAY after a protocol error
		 * (libnghttp2 refused a frame), or the server's (those it refused are parked
		 * for the next connection) */
		if (c->inflight > c->parked)
			h2__conn_fail(c, c->proto_err || !c->goaway ? DRV_E_H2_PROTOCOL
								     : DRV_E_SHORT);
		else
			conn_close(c);
		return;
	}
	if (c->inflight == c->parked && (c->finishing || c->goaway ||
			     (c->ht->reconnect_every && c->on_conn >= c->ht->reconnect_every)))
		conn_close(c);
}

static void on_write(uv_write_t *req, int status)
{
	struct h2_conn *c = container_of(req, struct h2_conn, write_req);

	c->writing = false;
	c->out.len = 0;
	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		h2__conn_fail(c, status);
		return;
	}
	flush(c);
}

/* pend to the socket: at once if it takes it all, else the rest through one uv_write. */
static void write_out(struct h2_conn *c)
{
	struct drv_buf t;
	uv_buf_t b;
	int n, err;

	if (c->writing || !c->pend.len)
		return;
	h2_conn_stats(c)->bytes_sent += c->pend.len;
	b = uv_buf_init(c->pend.p, (unsigned int)c->pend.len);
	n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
	if (n == (int)c->pend.len) {
		c->pend.len = 0;
		return;
	}
	if (n < 0 && n != UV_EAGAIN) {
		h2__conn_fail(c, n);
		return;
	}
	t = c->out;
	c->out = c->pend;
	c->pend = t;
	c->pend.len = 0;
	n = n < 0 ? 0 : n;
	b = uv_buf_init(c->out.p + n, (unsigned int)(c->out.len - (size_t)n));
	err = uv_write(&c->write_req, (uv_stream_t *)&c->tcp, &b, 1, on_write);
	if (err) {
		h2__conn_fail(c, err);
		return;
	}
	c->writing = true;
}

/* TLS: the records OpenSSL wrote, into pend. */
static int tls_out(struct h2_conn *c)
{
	size_t n = drv_tls_out_pending(&c->tls);
	char *p;

	if (!n)
		return 0;
	p = drv_buf_room(&c->pend, n);
	if (!p)
		return -ENOMEM;
	c->pend.len += drv_tls_out_take(&c->tls, p, n);
	return 0;
}

/* On the way out of every callback: what the session has to send, to the socket. */
/* Streams out (pump()), then, from the outermost of nested callers (each raised c->depth first),
 * the session's bytes written once (flush()). */
static void pump_out(struct h2_conn *c)
{
	pump(c);
	if (!--c->depth)
		flush(c);
}

static void flush(struct h2_conn *c)
{
	const uint8_t *data;
	ssize_t n;
	char *p;
	int err = 0;

	if (!c->open || c->closing || c->depth)
		return;
	while (c->sess && !err) {
		n = nghttp2_session_mem_send(c->sess, &data);
		if (n < 0) {
			err = DRV_E_H2_PROTOCOL;
		} else if (!n) {
			break;
		} else if (c->tls.ssl) {
			err = drv_tls_write(&c->tls, data, (size_t)n);
		} else {
			p = drv_buf_room(&c->pend, (size_t)n);
			if (p) {
				memcpy(p, data, (size_t)n);
				c->pend.len += (size_t)n;
			}
			err = p ? 0 : -ENOMEM;
		}
	}
	if (!err && c->tls.ssl)
		err = tls_out(c);
	if (err) {
		h2__conn_fail(c, err);
		return;
	}
	h2__stall_check(c);
	write_out(c);
	check_close(c);
}

/* The connection can carry requests (TLS: its handshake is over): the session starts. */
static int session_up(struct h2_conn *c)
{
	struct drv_stats *st = h2_conn_stats(c);

	if (h2__session_new(c))
		return -ENOMEM;
	c->connecting = false;
	c->base.deadline = 0;
	h2__streams_resubmit(c); /* what the last connection's GOAWAY refused, first */
	drv_slot_connected(&c->base);
	drv_counter_add(&st->connections, 1);
	ll_hist_record(st->connect, uv_hrtime() - c->t_op);
	return 0;
}

/* TLS records in: the handshake's steps, then plaintext for the session. */
static int tls_in(struct h2_conn *c, const char *p, size_t n)
{
	struct h2_thread *ht = c->ht;
	int r = drv_tls_feed(&c->tls, p, n);

	if (!r && !c->tls.done) {
		r = drv_tls_handshake(&c->tls);
		if (r <= 0)
			return r; /* more to come (its records go out at the flush), or failed */
		if (!drv_tls_alpn_is(&c->tls, "h2"))
			return DRV_E_NOT_H2;
		r = session_up(c);
	}
	while (!r && c->sess) {
		r = drv_tls_read(&c->tls, ht->plain, ht->plain_len);
		if (r <= 0)
			break;
		r = h2__recv(c, (const uint8_t *)ht->plain, (size_t)r);
	}
	return r;
}

static void alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct h2_conn *c = container_of(h, struct h2_conn, tcp);

	buf->base = c->ht->io.rbuf;
	buf->len = c->ht->io.rbuf_len;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct h2_conn *c = container_of(s, struct h2_conn, tcp);
	int err;

	if (nread < 0) {
		if (nread == UV_EOF && c->inflight == c->parked && !c->connecting && c->settings) {
			/* the server closed an idle connection (after its GOAWAY: its refused
			 * streams are parked): reopen quietly */
			conn_close(c);
			return;
		}
		err = nread != UV_EOF ? (int)nread : c->connecting && c->ht->tls ? DRV_E_TLS
										 : DRV_E_SHORT;
		h2__conn_fail(c, err);
		return;
	}
	if (!nread || c->closing)
		return;
	h2_conn_stats(c)->bytes_received += (uint64_t)nread;
	c->depth++;
	err = c->ht->tls ? tls_in(c, buf->base, (size_t)nread)
			 : h2__recv(c, (const uint8_t *)buf->base, (size_t)nread);
	if (err) {
		c->depth--;
		h2__conn_fail(c, err);
		return;
	}
	pump_out(c);
}

static bool alive(const uv_stream_t *s)
{
	const struct h2_conn *c = container_of(s, struct h2_conn, tcp);

	return c->open && !c->closing;
}

/* The open loop's read (scheduling/rxset.h): what a readable connection holds, timed by the
 * kernel. */
static void rx_read(struct drv_rxset *set, void *sock, const struct drv_rxclock *clk)
{
	struct h2_conn *c = sock;

	drv_rxset_read_stream((uv_stream_t *)&c->tcp,
			      uv_buf_init(c->ht->io.rbuf, (unsigned int)c->ht->io.rbuf_len), clk,
			      &c->t_rx, on_read, alive);
}

/* The connection is up: read through the thread's reply set (open loop), or by libuv. */
static int read_start(struct h2_conn *c)
{
	if (c->ht->io.rxset.epfd < 0)
		return uv_read_start((uv_stream_t *)&c->tcp, alloc, on_read);
	return drv_rxset_add(&c->ht->io.rxset, (uv_handle_t *)&c->tcp, c);
}

static void on_connect(uv_connect_t *req, int status)
{
	struct h2_conn *c = container_of(req, struct h2_conn, connect_req);
	const struct drv_config *cfg = c->base.w->cfg;
	int err;

	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		h2__conn_fail(c, status);
		return;
	}
	(void)uv_tcp_nodelay(&c->tcp, 1); /* best effort: latency, not correctness */
	err = read_start(c);
	if (!err && c->ht->tls)
		err = drv_tls_init(&c->tls, c->ht->tls, cfg->url.host, !cfg->insecure);
	if (!err)
		err = c->ht->tls ? drv_tls_handshake(&c->tls) : session_up(c); /* ClientHello */
	if (err < 0) {
		h2__conn_fail(c, err);
		return;
	}
	c->depth++;
	pump_out(c);
}

static void h2_connect(struct h2_conn *c)
{
	struct drv_worker *w = c->base.w;
	int err;

	c->connecting = true;
	c->settings = false;
	c->not_h2 = NULL;
	c->rx = 0;
	err = uv_tcp_init_ex(&w->loop, &c->tcp, w->cfg->addr.ss_family);
	if (err) { /* no handle to close: counted, retried after a backoff */
		h2__conn_fail(c, err);
		return;
	}
	c->open = true;
	h2_conn_stats(c)->connect_attempts++;
	c->t_op = uv_hrtime();
	c->base.deadline = c->t_op + c->ht->timeout_ns;
	err = uv_tcp_connect(&c->connect_req, &c->tcp, (const struct sockaddr *)&w->cfg->addr,
			     on_connect);
	if (err)
		h2__conn_fail(c, err);
}

/* The thread's part. */

static int init(struct drv_worker *w)
{
	const struct drv_config *cfg = w->cfg;
	struct h2_thread *ht;
	char msg[512];
	int err = drv_slot_io_new(w, sizeof(*ht), H2_READ_BUF, rx_read);

	if (err)
		return err;
	ht = w->proto_data;
	ht->timeout_ns = cfg->timeout_ns;
	ht->reconnect_every = cfg->reconnect_every;
	ht->streams = (uint32_t)cfg->streams;
	drv_mix_ctx_init(&ht->mix_ctx, cfg, w->id, (uint32_t)cfg->threads);
	err = h2__thread_init(ht, cfg);
	if (!err && drv_config_tls(cfg)) {
		/* http/1.1 too: a server without h2 then says so, rather than failing */
		ht->tls = drv_tls_ctx_new(cfg, (const unsigned char *)"\x02h2\x08http/1.1", 12,
					  msg, sizeof(msg));
		ht->plain_len = H2_PLAIN_BUF;
		ht->plain = malloc(ht->plain_len);
		if (!ht->tls)
			fprintf(stderr, "%s: %s\n", DRV_PROG, msg);
		err = !ht->tls ? -EINVAL : !ht->plain ? -ENOMEM : 0;
	}
	return err ? err : drv_timing_init(w);
}

static void fini(struct drv_worker *w)
{
	struct h2_thread *ht = w->proto_data;

	if (ht) {
		h2__thread_fini(ht);
		drv_tls_ctx_free(ht->tls);
		free(ht->plain);
	}
	drv_slot_io_fini(w);
}

/* The slot operations (slot.h). */

static int slot_init(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);
	struct h2_thread *ht = s->w->proto_data;
	uint32_t i;

	c->ht = ht;
	c->head = c->tail = H2_NONE;
	c->st = calloc(ht->streams, sizeof(*c->st));
	c->free_ids = calloc(ht->streams, sizeof(*c->free_ids));
	if (ht->grpc)
		c->msgs = malloc(ht->streams * ht->msg_cap);
	if (!c->st || !c->free_ids || (ht->grpc && !c->msgs))
		return -ENOMEM;
	for (i = 0; i < ht->streams; i++)
		c->free_ids[c->nfree++] = ht->streams - 1 - i;
	return 0;
}

static void slot_release(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);

	h2__session_free(c);
	drv_tls_fini(&c->tls);
	free(c->st);
	free(c->free_ids);
	free(c->msgs);
	free(c->out.p);
	free(c->pend.p);
}

static void slot_go(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);
	struct drv_rxclock clk;

	/* open loop: what came since the last drain first (a server that closed the connection
	 * is then seen before a stream goes out on it), as libuv would have read it on arrival */
	if (c->ht->io.rxset.epfd >= 0 && c->open && !c->closing && !c->connecting) {
		drv_rxset_clock(&clk);
		rx_read(&c->ht->io.rxset, c, &clk);
	}
	c->held = true;
	if (c->closing || c->connecting) /* its close or its session's start takes it on */
		return;
	if (!c->open) {
		h2_connect(c);
		return;
	}
	c->depth++;
	pump_out(c);
}

static void slot_finish(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);

	if (c->inflight && c->open && !c->closing) {
		c->finishing = true; /* the last answer in closes it */
		return;
	}
	if (c->parked && c->closing)
		return; /* its close reconnects for them (on_close) */
	if (c->open)
		conn_close(c); /* its close callback reports the slot done */
	else
		drv_slot_done(s);
}

static void slot_expire(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);

	if (!c->open || c->closing)
		return;
	if (c->connecting) {
		h2__conn_fail(c, -ETIMEDOUT);
		return;
	}
	c->depth++;
	h2__streams_expire(c, uv_hrtime());
	pump_out(c);
}

static void slot_stop(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);

	h2__streams_cancel(c);
	c->held = false; /* the base counts it cancelled */
	conn_close(c);
}

static const struct drv_slot_ops slot_ops = {
	.size = sizeof(struct h2_conn), .init = slot_init, .go = slot_go,
	.finish = slot_finish, .expire = slot_expire, .stop = slot_stop,
	.release = slot_release,
};

const struct drv_proto drv_proto_h2 = {
	.name = "h2", .init = init, .slot = &slot_ops, .stop = drv_slot_io_stop, .fini = fini,
};
