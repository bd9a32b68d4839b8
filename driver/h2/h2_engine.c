// SPDX-License-Identifier: MIT
/*
 * The native HTTP/2 engine: libnghttp2 client sessions on the worker's libuv loop, h2c by prior
 * knowledge (http:// --http2, grpc://) or h2 over TLS chosen by ALPN (https:// --http2,
 * grpcs://; tls_conn.c). One connection per slot, --streams N streams in flight on it, each its
 * own ticket from the pacer, as -P's requests are (h2_conn.h). This file is the connection's
 * hooks on the stream base (stream_conn.h: connect, reads, writes, close): the handshake, the
 * session's bytes in and out, when to close, and the slot's life; h2_stream.c is the session.
 *
 * The session is driven by nghttp2_session_mem_recv() from the read callback and
 * nghttp2_session_mem_send() on the way out of every callback: what it writes collects in one
 * buffer and goes out in one write (the base's two buffers: the rest through one uv_write while the
 * next fills).
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
#include "h2/h2_conn.h"
#include "h2/h2_stream.h"
#include "h2/h2_engine.h"
#include "protocols/stream_conn.h"
#include "protocols/tls_conn.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

#define H2_READ_BUF (64 * 1024)
#define H2_PLAIN_BUF (64 * 1024)

static void h2_connect(struct h2_conn *c);
static void flush(struct h2_conn *c);

static inline struct h2_conn *conn_of(struct drv_stream *s)
{
	return container_of(s, struct h2_conn, sc);
}

/* The close callback ran (stream_conn.h). */
static void closed(struct drv_stream *s)
{
	struct h2_conn *c = conn_of(s);

	if (c->parked) { /* streams a GOAWAY refused: sent again on a new connection */
		if (c->sc.base.done)
			c->finishing = true;
		h2_connect(c);
	} else if (c->sc.base.done)
		drv_slot_done(&c->sc.base);
	else if (c->held) /* a ticket waits for a connection */
		h2_connect(c);
	else if (!c->sc.base.pending) /* else its next ticket waits for its time, then connects */
		drv_slot_retry(&c->sc.base);
}

/* The connection closes: its session and TLS go (stream_conn.h). */
static void closing(struct drv_stream *s)
{
	struct h2_conn *c = conn_of(s);

	h2__session_free(c);
	drv_tls_fini(&c->tls);
	c->o.pend.len = 0; /* out stays until its uv_write is cancelled */
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
		drv_worker_why(c->sc.base.w, negotiation_why(c, err));
		drv_slot_negotiation(&c->sc.base, err);
	}
	h2__streams_fail(c, err);
	if (c->sc.connecting && c->held) { /* the ticket that was connecting: counted, backs off */
		c->held = false;
		drv_slot_fail(&c->sc.base, err, true);
	} else if (!c->settings) { /* it came up but never spoke HTTP/2 */
		drv_slot_backoff(&c->sc.base);
	}
	c->sc.connecting = false;
	c->sc.base.deadline = 0;
	if (c->sc.open)
		drv_stream_close(&c->sc);
	else if (!c->held && !c->sc.base.pending)
		drv_slot_retry(&c->sc.base);
}

/* Open streams while there is room: the ticket held here first, then the pacer's next ones. */
static void pump(struct h2_conn *c)
{
	if (c->pumping) /* drv_slot_next() comes back through slot_go(): this loop goes on */
		return;
	c->pumping = true;
	while (!c->sc.base.w->stopping) {
		if (c->held) {
			if (!h2__room(c))
				break;
			c->held = false;
			if (h2__stream_start(c))
				continue;
			drv_slot_retry(&c->sc.base); /* from the loop: no busy loop of failures */
			break;
		}
		if (c->sc.base.pending || c->sc.base.done || !h2__room(c))
			break;
		drv_slot_next(&c->sc.base); /* GO: held again; WAIT: on the waker; DONE */
		if (!c->held)
			break;
	}
	c->pumping = false;
}

/* After a read or a send: a connection with nothing left to do closes. */
static void check_close(struct h2_conn *c)
{
	if (!c->sc.open || c->sc.closing || c->sc.connecting || !c->sess)
		return;
	if (!nghttp2_session_want_read(c->sess) && !nghttp2_session_want_write(c->sess)) {
		/* the session ended with streams open: its own GOAWAY after a protocol error
		 * (libnghttp2 refused a frame), or the server's (those it refused are parked
		 * for the next connection) */
		if (c->inflight > c->parked)
			h2__conn_fail(c, c->proto_err || !c->goaway ? DRV_E_H2_PROTOCOL
								     : DRV_E_SHORT);
		else
			drv_stream_close(&c->sc);
		return;
	}
	if (c->inflight == c->parked && (c->finishing || c->goaway ||
			     (c->ht->reconnect_every && c->on_conn >= c->ht->reconnect_every)))
		drv_stream_close(&c->sc);
}

static void stream_fail(struct drv_stream *s, int err)
{
	h2__conn_fail(conn_of(s), err);
}

/* The rest of a write is out: what the session made meanwhile goes. */
static void written(struct drv_stream *s)
{
	flush(conn_of(s));
}

/* TLS: the records OpenSSL wrote, into pend. */
static int tls_out(struct h2_conn *c)
{
	size_t n = drv_tls_out_pending(&c->tls);
	char *p;

	if (!n)
		return 0;
	p = drv_buf_room(&c->o.pend, n);
	if (!p)
		return -ENOMEM;
	c->o.pend.len += drv_tls_out_take(&c->tls, p, n);
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

	if (!c->sc.open || c->sc.closing || c->depth)
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
			p = drv_buf_room(&c->o.pend, (size_t)n);
			if (p) {
				memcpy(p, data, (size_t)n);
				c->o.pend.len += (size_t)n;
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
	err = drv_stream_write_pend(&c->sc, &c->o);
	if (err) {
		h2__conn_fail(c, err);
		return;
	}
	check_close(c);
}

/* The connection can carry requests (TLS: its handshake is over): the session starts. */
static int session_up(struct h2_conn *c)
{
	if (h2__session_new(c))
		return -ENOMEM;
	c->sc.connecting = false;
	c->sc.base.deadline = 0;
	h2__streams_resubmit(c); /* what the last connection's GOAWAY refused, first */
	drv_slot_connected(&c->sc.base);
	drv_stream_up(&c->sc);
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

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct h2_conn *c = container_of(s, struct h2_conn, sc.tcp);
	int err;

	if (nread < 0) {
		if (nread == UV_EOF && c->inflight == c->parked && !c->sc.connecting &&
		    c->settings) {
			/* the server closed an idle connection (after its GOAWAY: its refused
			 * streams are parked): reopen quietly */
			drv_stream_close(&c->sc);
			return;
		}
		err = nread != UV_EOF ? (int)nread : c->sc.connecting && c->ht->tls ? DRV_E_TLS
										 : DRV_E_SHORT;
		h2__conn_fail(c, err);
		return;
	}
	if (!nread || c->sc.closing)
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

/* The TCP connection is up (stream_conn.h): the ClientHello, or the session at once. */
static void connected(struct drv_stream *s)
{
	struct h2_conn *c = conn_of(s);
	const struct drv_config *cfg = c->sc.base.w->cfg;
	int err = 0;

	if (c->ht->tls)
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

static const struct drv_stream_ops stream_ops = {
	.read = on_read, .connected = connected, .closing = closing, .closed = closed,
	.written = written, .fail = stream_fail,
};

static void h2_connect(struct h2_conn *c)
{
	c->settings = false;
	c->not_h2 = NULL;
	c->rx = 0;
	drv_stream_connect(&c->sc);
}

/* The thread's part. */

static int init(struct drv_worker *w)
{
	const struct drv_config *cfg = w->cfg;
	struct h2_thread *ht;
	char msg[512];
	int err = drv_stream_thread_new(w, sizeof(*ht), H2_READ_BUF, &stream_ops);

	if (err)
		return err;
	ht = w->proto_data;
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
	drv_stream_out_free(&c->o);
}

static void slot_go(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);

	/* open loop: what came since the last drain first (a server that closed the connection
	 * is then seen before a stream goes out on it) */
	drv_stream_drain(&c->sc);
	c->held = true;
	if (c->sc.closing || c->sc.connecting) /* its close or its session's start takes it on */
		return;
	if (!c->sc.open) {
		h2_connect(c);
		return;
	}
	c->depth++;
	pump_out(c);
}

static void slot_finish(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);

	if (c->inflight && drv_stream_alive(&c->sc)) {
		c->finishing = true; /* the last answer in closes it */
		return;
	}
	if (c->parked && c->sc.closing)
		return; /* its close reconnects for them (closed) */
	drv_stream_finish(&c->sc); /* its close callback reports the slot done */
}

static void slot_expire(struct drv_slot *s)
{
	struct h2_conn *c = h2_conn_of(s);

	if (!c->sc.open || c->sc.closing)
		return;
	if (c->sc.connecting) {
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
	drv_stream_close(&c->sc);
}

static const struct drv_slot_ops slot_ops = {
	.size = sizeof(struct h2_conn), .init = slot_init, .go = slot_go,
	.finish = slot_finish, .expire = slot_expire, .stop = slot_stop,
	.release = slot_release,
};

const struct drv_proto drv_proto_h2 = {
	.name = "h2", .init = init, .slot = &slot_ops, .stop = drv_slot_io_stop, .fini = fini,
};
