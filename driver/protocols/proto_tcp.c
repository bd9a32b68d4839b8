// SPDX-License-Identifier: MIT
/*
 * Stream protocols on uv_tcp_t, one request in flight per connection slot: tcp:// (refserver
 * framing, or a --payload with a --response rule) and the native http:// engine (HTTP/1.1 with
 * http_parser). They differ only in the request bytes (config/request.c) and where a response
 * ends (framing/frame.c). A request is timed through scheduling/timing.h. The socket's life
 * (connect, reads, the rest of a write, close) is the stream base's (stream_conn.h); this file is
 * its hooks.
 *
 * Nothing is allocated per request or per connection: the request bytes are built once per
 * thread, one read buffer per thread serves every connection (libuv hands out a buffer and calls
 * back before the next read), and each slot (allocated once, on its first request) embeds the
 * stream base (the slot base, its uv_tcp_t and requests); a closed uv_tcp_t is re-initialised in
 * place once its close callback has run.
 *
 * Slot life (the base paces and waits, slot.c): (connect) → send → read the response → record →
 * next. A failure is counted by class, the connection closed, and the slot asks the pacer again
 * once it is, so a failed attempt uses up its share of -n like a successful one; after a failed
 * connect (refused, unreachable, timed out) it first backs off, 1 ms doubling to 1 s.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "config/app.h"
#include "config/config.h"
#include "base/drv.h"
#include "framing/frame.h"
#include "protocols/protocols.h"
#include "protocols/proto_tcp_pipe.h"
#include "protocols/proto_tcp_tls.h"
#include "protocols/stream_conn.h"
#include "protocols/tcp_conn.h"
#include "config/reqmix.h"
#include "config/request.h"
#include "scheduling/pingpong.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

#define TCP_READ_BUF (64 * 1024)

static inline struct tcp_conn *conn_of(struct drv_stream *s)
{
	return container_of(s, struct tcp_conn, sc);
}

/* The close callback ran (stream_conn.h). */
static void closed(struct drv_stream *s)
{
	struct tcp_conn *c = conn_of(s);

	if (c->sc.base.done) {
		drv_slot_done(&c->sc.base);
	} else if (c->resume) {
		c->resume = false;
		drv_stream_connect(&c->sc);
	} else if (!c->sc.base.pending) { /* else its next request waits for its time, connects */
		drv_slot_retry(&c->sc.base);
	}
}

/* The connection closes: its TLS state goes (stream_conn.h). */
static void closing(struct drv_stream *s)
{
	if (conn_of(s)->tl)
		drv__tcp_tls_close(conn_of(s));
}

static void drop(struct tcp_conn *c)
{
	c->in_flight = false;
	c->sc.connecting = false;
	c->binding = false;
	if (c->sc.open)
		drv_stream_close(&c->sc);
	else
		drv_slot_retry(&c->sc.base);
}

/* Count a failure, drop the connection; its close callback starts the slot's next attempt. */
static void fail(struct tcp_conn *c, int err)
{
	if (c->tt->pipeline > 1) {
		drv__tcp_pipe_fail(c, err);
		return;
	}
	if (c->rec_live)
		drv_timing_unanswered(c->sc.base.w, &c->sc.base.ticket, c->rec, err);
	c->rec_live = false;
	if (c->tl)
		drv__tcp_tls_why(c, err); /* a tls error's reason, for the run's stop */
	/* a greeting (LDAP's bind): answered is connected (after StartTLS and the handshake) */
	drv_slot_fail(&c->sc.base, err, c->sc.connecting || c->binding || (c->tl && c->tl->step));
	drop(c);
}

static void stream_fail(struct drv_stream *s, int err)
{
	fail(conn_of(s), err);
}

/* A write through write_req is done: with TLS, the records made meanwhile go out. */
static void written(struct drv_stream *s)
{
	struct tcp_conn *c = conn_of(s);
	int err;

	if (c->tl && (err = drv__tcp_tls_flush(c)))
		fail(c, err);
}

/* The request's bytes b[0..nb), from stable memory: now, or the rest through write_req. */
static void write_out(struct tcp_conn *c, uv_buf_t *b, unsigned nb)
{
	size_t total = b[0].len + (nb > 1 ? b[1].len : 0);
	int n, err;

	if (c->tl) { /* as records, never by the blocking read's write */
		err = drv__tcp_tls_send(c, b, nb);
		if (err)
			fail(c, err);
		return;
	}
	n = drv_pingpong_write(c->sc.base.w, (uv_handle_t *)&c->sc.tcp, b, nb);
	if (n == UV_ENOSYS)
		n = uv_try_write((uv_stream_t *)&c->sc.tcp, b, nb);
	if (n == (int)total) {
		tcp_conn_stats(c)->bytes_sent += (uint64_t)n;
		drv_pingpong_sent(&c->sc.base, (uv_handle_t *)&c->sc.tcp); /* all out: its reply */
		return;
	}
	if (n < 0 && n != UV_EAGAIN) {
		fail(c, n);
		return;
	}
	if (n < 0)
		n = 0;
	tcp_conn_stats(c)->bytes_sent += total;
	/* the rest from stable memory: c->lp lives in the slot, the payload in the thread */
	if ((size_t)n >= b[0].len) {
		n -= (int)b[0].len;
		b[0] = uv_buf_init(b[1].base + n, b[1].len - (unsigned int)n);
		nb = 1;
	} else {
		b[0] = uv_buf_init(b[0].base + n, b[0].len - (unsigned int)n);
	}
	err = drv_stream_write_rest(&c->sc, b, nb);
	if (err)
		fail(c, err);
}

static void proto_tcp_send(struct tcp_conn *c)
{
	struct tcp_thread *tt = c->tt;
	uv_buf_t b[2];
	unsigned nb = 1;
	int err = 0;

	if (tt->pipeline > 1) {
		drv__tcp_pipe_send(c);
		return;
	}
	drv_frame_reset(&tt->rule, &c->frame);
	c->rx = 0;
	c->in_flight = true;
	if (tt->app)
		err = tt->app->request(c, b); /* a protocol's (tcp_ext.h) */
	else
		nb = drv__tcp_request(tt, c->mbuf, c->lp, &c->rec, &c->rec_live, b);
	drv_timing_send(&c->sc.base, tt->th.timeout_ns); /* made: the bytes go now */
	if (err)
		fail(c, err);
	else
		write_out(c, b, nb);
}

/* a protocol's greeting (LDAP's bind): the connection is up, before the first request */
static void hello(struct tcp_conn *c)
{
	uv_buf_t b;
	int err = c->tt->app->hello(c, &b);

	if (err)
		fail(c, err);
	else
		write_out(c, &b, 1);
}

static void complete(struct tcp_conn *c)
{
	uint64_t at = drv_timing_reply_at(c->sc.base.t_send, c->sc.t_rx);
	struct drv_timing_reply r = drv_timing_reply_init(c->sc.base.t_send, at);

	if (c->sc.writing) { /* an answer before the whole request was written */
		fail(c, DRV_E_MALFORMED);
		return;
	}
	drv_slot_resolved(&c->sc.base);
	c->in_flight = false;
	c->on_conn++;
	drv__tcp_outcome(c->tt, &c->frame, &r);
	r.rec = c->rec;
	r.rec_live = c->rec_live;
	c->rec_live = false;
	drv_timing_record(c->sc.base.w, &c->sc.base.ticket, &r);
	if (!c->frame.keep_alive ||
	    (c->tt->reconnect_every && c->on_conn >= c->tt->reconnect_every)) {
		drv_stream_close(&c->sc); /* the client closes first: TIME_WAIT stays here */
		return;
	}
	drv_slot_next(&c->sc.base);
}

/* n bytes of the byte stream (with TLS: plaintext), in order. */
static void on_bytes(struct tcp_conn *c, const char *p, size_t n)
{
	int err;

	if (c->tt->pipeline > 1) {
		drv__tcp_pipe_read(c, p, n);
		return;
	}
	if (c->binding) {
		err = c->tt->app->hello_in(c, p, n);
		if (err < 0)
			fail(c, err);
		else if (err == 1)
			proto_tcp_send(c);
		return;
	}
	if (!c->in_flight) {
		fail(c, DRV_E_MALFORMED);
		return;
	}
	c->rx += (uint64_t)n;
	err = drv_frame_feed(&c->tt->rule, &c->frame, p, n);
	if (err)
		fail(c, err);
	else if (c->frame.done)
		complete(c);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

/* ldaps, --starttls: bytes from the socket; once TLS is up, the greeting, and plaintext in order. */
static void tls_in(struct tcp_conn *c, const char *p, size_t n)
{
	int r = drv__tcp_tls_in(c, p, n);

	if (r == 1) {
		hello(c);
		r = 0;
	}
	while (!r && drv_stream_alive(&c->sc)) {
		r = drv__tcp_tls_plain(c);
		if (r <= 0)
			break;
		on_bytes(c, c->tt->plain, (size_t)r);
		r = 0;
	}
	if (r == DRV_E_SHORT && drv_stream_alive(&c->sc)) /* close_notify: as the end of stream */
		on_read((uv_stream_t *)&c->sc.tcp, UV_EOF, NULL);
	else if (r < 0 && drv_stream_alive(&c->sc))
		fail(c, r);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct tcp_conn *c = container_of(s, struct tcp_conn, sc.tcp);
	int err;

	if (nread < 0 && c->tl && c->tl->step) { /* closed before TLS was up */
		fail(c, nread == UV_EOF ? DRV_E_TLS : (int)nread);
		return;
	}
	if (nread < 0 && c->tt->pipeline > 1) {
		drv__tcp_pipe_eof(c, nread);
		return;
	}
	if (nread < 0 && c->binding) { /* closed or reset before the bind was answered */
		fail(c, nread == UV_EOF ? DRV_E_SHORT : (int)nread);
		return;
	}
	if (nread < 0) {
		if (nread == UV_EOF && !c->in_flight) {
			/* the server closed an idle connection: reopen quietly */
			drv_stream_close(&c->sc);
			return;
		}
		if (nread == UV_EOF && c->in_flight && c->rx) {
			err = drv_frame_eof(&c->tt->rule, &c->frame);
			if (!err) {
				c->frame.keep_alive = false;
				complete(c);
				return;
			}
		}
		fail(c, nread == UV_EOF ? DRV_E_SHORT : (int)nread);
		return;
	}
	if (!nread)
		return;
	tcp_conn_stats(c)->bytes_received += (uint64_t)nread;
	if (c->tl)
		tls_in(c, buf->base, (size_t)nread);
	else
		on_bytes(c, buf->base, (size_t)nread);
}

/* The TCP connection is up (stream_conn.h): TLS, the bind, or the first request. */
static void connected(struct drv_stream *s)
{
	struct tcp_conn *c = conn_of(s);
	int err = 0;

	c->sc.connecting = false;
	if (!c->tt->app) /* a protocol's: connected once its greeting is answered */
		drv_slot_connected(&c->sc.base);
	drv_stream_up(&c->sc);
	c->on_conn = 0;
	if (c->tl) /* ldaps, --starttls: TLS first, then the greeting */
		err = drv__tcp_tls_connected(c);
	else if (c->tt->app)
		hello(c);
	else
		proto_tcp_send(c);
	if (err)
		fail(c, err);
}

static const struct drv_stream_ops stream_ops = {
	.read = on_read, .connected = connected, .closing = closing, .closed = closed,
	.written = written, .fail = stream_fail,
};

/* The thread's part: request bytes, framing rule, read buffer. */

static int init(struct drv_worker *w)
{
	const struct drv_app *a = drv_config_app(w->cfg);
	struct tcp_thread *tt;
	int err = drv_stream_thread_new(w, sizeof(*tt), TCP_READ_BUF, &stream_ops);

	if (err)
		return err;
	tt = w->proto_data;
	tt->reconnect_every = w->cfg->reconnect_every;
	drv_frame_rule_init(&tt->rule, w->cfg);
	tt->mix = w->cfg->mix;
	tt->pipeline = (uint32_t)w->cfg->pipeline;
	tt->drop = drop;
	if (tt->mix)
		drv_mix_ctx_init(&tt->mix_ctx, w->cfg, w->id, (uint32_t)w->cfg->threads);
	tt->app = a ? a->tcp : NULL; /* --proto ldap (tcp_ext.h) */
	err = tt->app ? tt->app->init(tt, w) : 0;
	if (!err)
		err = drv__tcp_tls_init(tt, w); /* ldaps, --starttls (proto_tcp_tls.c) */
	return err ? err : drv_timing_init(w);
}

/* The slot operations (slot.h). */

static int slot_init(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	c->tt = s->w->proto_data;
	if (c->tt->app) {
		c->mbuf = malloc(c->tt->app->max_len(c->tt));
		if (!c->mbuf)
			return -ENOMEM;
	} else if (c->tt->mix) {
		c->mbuf = malloc(c->tt->mix->max_len * c->tt->pipeline);
		if (!c->mbuf)
			return -ENOMEM;
	}
	if (c->tt->pipeline > 1) {
		c->q = calloc(c->tt->pipeline, sizeof(*c->q));
		c->iov = calloc(2 * (size_t)c->tt->pipeline, sizeof(*c->iov));
		if (!c->q || !c->iov)
			return -ENOMEM;
	}
	return drv__tcp_tls_slot_init(c);
}

static void slot_release(struct drv_slot *s)
{
	drv_frame_free(&tcp_conn_of(s)->tt->rule, &tcp_conn_of(s)->frame);
	free(tcp_conn_of(s)->mbuf);
	free(tcp_conn_of(s)->q);
	free(tcp_conn_of(s)->iov);
	drv__tcp_tls_slot_release(tcp_conn_of(s));
}

static void slot_go(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	/*
	 * Open loop: what came in on the connection since the last drain is read before the send:
	 * an end of stream (a server closing an idle connection) then reconnects quietly instead
	 * of failing this request. Usually one recvmsg() that finds nothing.
	 */
	drv_stream_drain(&c->sc);
	if (!s->pending) /* bytes nobody asked for failed this request (counted): no send */
		return;
	if (c->sc.closing)
		c->resume = true;
	else if (c->sc.open)
		proto_tcp_send(c);
	else
		drv_stream_connect(&c->sc);
}

static void slot_finish(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	if (c->qlen && drv_stream_alive(&c->sc)) {
		c->finishing = true; /* the last response in closes it */
		return;
	}
	drv_stream_finish(&c->sc); /* its close callback reports the slot done */
}

static void slot_expire(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	if (drv_stream_alive(&c->sc))
		fail(c, -ETIMEDOUT);
}

static void slot_stop(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	for (; c->qlen; c->qlen--, c->qhead = (c->qhead + 1) % c->tt->pipeline)
		drv_worker_stats(s->w, &c->q[c->qhead].ticket)->cancelled++;
	c->in_flight = false;
	drv_stream_close(&c->sc);
}

/*
 * The closed loop's blocking read (pingpong.h): the connection, once the request is written and
 * one response has come on it (a connection used once, as with Connection: close, would pay the
 * few syscalls of the way in and out for a single read). Never with TLS (ldaps, --starttls): that
 * read hands the socket's bytes to the framing as they are, and these are records to decrypt.
 */
static uv_handle_t *slot_awaited(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	if (!c->in_flight || c->sc.writing || !c->sc.open || c->sc.closing || c->sc.connecting ||
	    c->binding || !c->on_conn || c->tt->pipeline > 1 || c->tl)
		return NULL;
	return (uv_handle_t *)&c->sc.tcp;
}

/* What it read: on_read's path (0 bytes: the server closed, as libuv's UV_EOF). */
static void slot_received(struct drv_slot *s, ssize_t n, uint64_t at)
{
	struct tcp_conn *c = tcp_conn_of(s);

	c->sc.t_rx = at; /* as the open loop's kernel stamp: the reply's time, if it ends it */
	on_read((uv_stream_t *)&c->sc.tcp, n ? n : UV_EOF,
		&(uv_buf_t){.base = c->tt->th.io.rbuf, .len = n > 0 ? (size_t)n : 0});
	c->sc.t_rx = 0;
}

static const struct drv_slot_ops slot_ops = {
	.size = sizeof(struct tcp_conn), .init = slot_init, .go = slot_go,
	.finish = slot_finish, .expire = slot_expire, .stop = slot_stop,
	.release = slot_release, .awaited = slot_awaited, .received = slot_received,
};

static void fini(struct drv_worker *w)
{
	if (w->proto_data) {
		if (((struct tcp_thread *)w->proto_data)->app)
			((struct tcp_thread *)w->proto_data)->app->fini(w->proto_data);
		drv__tcp_tls_fini(w->proto_data);
	}
	drv_slot_io_fini(w);
}

/* tcp:// and native http:// are the same slots; the framing rule (config) tells them apart */
#define X_PROTO(n)                                                                            \
	{.name = n, .init = init, .slot = &slot_ops, .stop = drv_slot_io_stop, .fini = fini}
const struct drv_proto drv_proto_tcp = X_PROTO("tcp");
const struct drv_proto drv_proto_http_native = X_PROTO("http");
