// SPDX-License-Identifier: MIT
/*
 * Stream protocols on uv_tcp_t, one request in flight per connection slot: tcp:// (refserver
 * framing, or a --payload with a --response rule) and the native http:// engine (HTTP/1.1 with
 * http_parser). They differ only in the request bytes (config/request.c) and where a response
 * ends (framing/frame.c). A request is timed through scheduling/timing.h.
 *
 * Nothing is allocated per request or per connection: the request bytes are built once per
 * thread, one read buffer per thread serves every connection (libuv hands out a buffer and calls
 * back before the next read), and each slot (allocated once, on its first request) embeds the
 * slot base, its uv_tcp_t and requests; a closed uv_tcp_t is re-initialised in place once its
 * close callback has run.
 *
 * Slot life (the base paces and waits, slot.c): (connect) → send → read the response → record →
 * next. A failure is counted by class, the connection closed, and the slot asks the pacer again
 * once it is, so a failed attempt uses up its share of -n like a successful one; after a failed
 * connect (refused, unreachable, timed out) it first backs off, 1 ms doubling to 1 s.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "config/config.h"
#include "base/drv.h"
#include "framing/frame.h"
#include "protocols/protocols.h"
#include "config/ldap_request.h"
#include "protocols/proto_tcp_ldap.h"
#include "protocols/proto_tcp_pipe.h"
#include "protocols/proto_tcp_tls.h"
#include "protocols/tcp_conn.h"
#include "config/reqmix.h"
#include "config/request.h"
#include "scheduling/pingpong.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

#define TCP_READ_BUF (64 * 1024)

static void proto_tcp_connect(struct tcp_conn *c);

static void on_close(uv_handle_t *h)
{
	struct tcp_conn *c = container_of(h, struct tcp_conn, tcp);

	c->open = false;
	c->closing = false;
	if (c->base.w->stopping)
		return;
	if (c->base.done) {
		drv_slot_done(&c->base);
	} else if (c->resume) {
		c->resume = false;
		proto_tcp_connect(c);
	} else if (!c->base.pending) { /* else its next request waits for its time, then connects */
		drv_slot_retry(&c->base);
	}
}

static void proto_tcp_close(struct tcp_conn *c)
{
	if (!c->open || c->closing)
		return;
	c->closing = true;
	c->base.deadline = 0;
	if (c->tl)
		drv__tcp_tls_close(c);
	uv_close((uv_handle_t *)&c->tcp, on_close);
}

static void drop(struct tcp_conn *c)
{
	c->in_flight = false;
	c->connecting = false;
	c->binding = false;
	if (c->open)
		proto_tcp_close(c);
	else
		drv_slot_retry(&c->base);
}

/* Count a failure, drop the connection; its close callback starts the slot's next attempt. */
static void fail(struct tcp_conn *c, int err)
{
	if (c->tt->pipeline > 1) {
		drv__tcp_pipe_fail(c, err);
		return;
	}
	if (c->rec_live)
		drv_timing_unanswered(c->base.w, &c->base.ticket, c->rec, err);
	c->rec_live = false;
	if (c->tl)
		drv__tcp_tls_why(c, err); /* a tls error's reason, for the run's stop */
	/* ldap: bound is connected (after StartTLS and the handshake, with TLS) */
	drv_slot_fail(&c->base, err, c->connecting || c->binding || (c->tl && c->tl->step));
	drop(c);
}

static void on_write(uv_write_t *req, int status)
{
	struct tcp_conn *c = container_of(req, struct tcp_conn, write_req);

	c->writing = false;
	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0)
		fail(c, status);
	else if (c->tl && (status = drv__tcp_tls_flush(c))) /* records made meanwhile */
		fail(c, status);
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
	n = drv_pingpong_write(c->base.w, (uv_handle_t *)&c->tcp, b, nb);
	if (n == UV_ENOSYS)
		n = uv_try_write((uv_stream_t *)&c->tcp, b, nb);
	if (n == (int)total) {
		tcp_conn_stats(c)->bytes_sent += (uint64_t)n;
		drv_pingpong_sent(&c->base, (uv_handle_t *)&c->tcp); /* all out: its reply */
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
	err = uv_write(&c->write_req, (uv_stream_t *)&c->tcp, b, nb, on_write);
	if (err) {
		fail(c, err);
		return;
	}
	c->writing = true;
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
	if (tt->ldap)
		err = drv__tcp_ldap_search(c, b); /* proto_tcp_ldap.c */
	else
		nb = drv__tcp_request(tt, c->mbuf, c->lp, &c->rec, &c->rec_live, b);
	drv_timing_send(&c->base, tt->timeout_ns); /* made: the bytes go now */
	if (err)
		fail(c, err);
	else
		write_out(c, b, nb);
}

/* ldap: the connection is up; bind before the first request */
static void ldap_bind(struct tcp_conn *c)
{
	uv_buf_t b;
	int err = drv__tcp_ldap_bind(c, &b);

	if (err)
		fail(c, err);
	else
		write_out(c, &b, 1);
}

static void complete(struct tcp_conn *c)
{
	uint64_t at = drv_timing_reply_at(c->base.t_send, c->t_rx);
	struct drv_timing_reply r = drv_timing_reply_init(c->base.t_send, at);

	if (c->writing) { /* an answer before the whole request was written */
		fail(c, DRV_E_MALFORMED);
		return;
	}
	drv_slot_resolved(&c->base);
	c->in_flight = false;
	c->on_conn++;
	drv__tcp_outcome(c->tt, &c->frame, &r);
	r.rec = c->rec;
	r.rec_live = c->rec_live;
	c->rec_live = false;
	drv_timing_record(c->base.w, &c->base.ticket, &r);
	if (!c->frame.keep_alive ||
	    (c->tt->reconnect_every && c->on_conn >= c->tt->reconnect_every)) {
		proto_tcp_close(c); /* the client closes first: TIME_WAIT stays on this side */
		return;
	}
	drv_slot_next(&c->base);
}

static void alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct tcp_conn *c = container_of(h, struct tcp_conn, tcp);

	buf->base = c->tt->io.rbuf;
	buf->len = c->tt->io.rbuf_len;
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
		err = drv__tcp_ldap_bound(c, p, n);
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

/* ldaps, --starttls: bytes from the socket; once TLS is up, the bind, and plaintext in order. */
static void tls_in(struct tcp_conn *c, const char *p, size_t n)
{
	int r = drv__tcp_tls_in(c, p, n);

	if (r == 1) {
		ldap_bind(c);
		r = 0;
	}
	while (!r && c->open && !c->closing) {
		r = drv__tcp_tls_plain(c);
		if (r <= 0)
			break;
		on_bytes(c, c->tt->plain, (size_t)r);
		r = 0;
	}
	if (r == DRV_E_SHORT && c->open && !c->closing) /* close_notify: as the end of stream */
		on_read((uv_stream_t *)&c->tcp, UV_EOF, NULL);
	else if (r < 0 && c->open && !c->closing)
		fail(c, r);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct tcp_conn *c = container_of(s, struct tcp_conn, tcp);
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
			proto_tcp_close(c);
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

static bool alive(const uv_stream_t *s)
{
	const struct tcp_conn *c = container_of(s, struct tcp_conn, tcp);

	return c->open && !c->closing;
}

/* The open loop's read (rxset.h): what a readable connection holds, timed by the kernel. */
static void rx_read(struct drv_rxset *set, void *sock, const struct drv_rxclock *clk)
{
	struct tcp_conn *c = sock;

	drv_rxset_read_stream((uv_stream_t *)&c->tcp,
			      uv_buf_init(c->tt->io.rbuf, (unsigned int)c->tt->io.rbuf_len), clk,
			      &c->t_rx, on_read, alive);
}

/* The connection is up: its responses are read through the thread's reply set, or by libuv. */
static int read_start(struct tcp_conn *c)
{
	if (c->tt->io.rxset.epfd < 0)
		return uv_read_start((uv_stream_t *)&c->tcp, alloc, on_read);
	return drv_rxset_add(&c->tt->io.rxset, (uv_handle_t *)&c->tcp, c);
}

static void on_connect(uv_connect_t *req, int status)
{
	struct tcp_conn *c = container_of(req, struct tcp_conn, connect_req);
	int err;

	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		fail(c, status);
		return;
	}
	c->connecting = false;
	if (!c->tt->ldap) /* ldap: connected once bound */
		drv_slot_connected(&c->base);
	drv_counter_add(&tcp_conn_stats(c)->connections, 1);
	ll_hist_record(tcp_conn_stats(c)->connect, uv_hrtime() - c->t_op);
	c->on_conn = 0;
	(void)uv_tcp_nodelay(&c->tcp, 1); /* best effort: latency, not correctness */
	err = read_start(c);
	if (err) {
		fail(c, err);
		return;
	}
	if (c->tl) /* ldaps, --starttls: TLS first, then the bind */
		err = drv__tcp_tls_connected(c);
	else if (c->tt->ldap)
		ldap_bind(c);
	else
		proto_tcp_send(c);
	if (err)
		fail(c, err);
}

/* --source-addr: bind to the next local address, the port chosen at connect time. */
static int bind_source(struct tcp_conn *c)
{
	const struct drv_config *cfg = c->base.w->cfg;
	const struct sockaddr_storage *src = &cfg->sources[c->tt->src_next++ % cfg->nsources];
	uv_os_fd_t fd;
	int one = 1, err;

	err = uv_fileno((uv_handle_t *)&c->tcp, &fd);
	if (err)
		return err;
	(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	return uv_tcp_bind(&c->tcp, (const struct sockaddr *)src, 0);
}

static void proto_tcp_connect(struct tcp_conn *c)
{
	struct drv_worker *w = c->base.w;
	int err;

	c->connecting = true;
	err = uv_tcp_init_ex(&w->loop, &c->tcp, w->cfg->addr.ss_family);
	if (err) { /* no handle to close: fail() retries after a backoff */
		fail(c, err);
		return;
	}
	c->open = true;
	tcp_conn_stats(c)->connect_attempts++;
	c->t_op = uv_hrtime();
	c->base.deadline = c->t_op + c->tt->timeout_ns;
	drv_worker_sweep_by(w, c->base.deadline);
	err = w->cfg->nsources ? bind_source(c) : 0;
	if (!err)
		err = uv_tcp_connect(&c->connect_req, &c->tcp,
				     (const struct sockaddr *)&w->cfg->addr, on_connect);
	if (err)
		fail(c, err);
}

/* The thread's part: request bytes, framing rule, read buffer. */

static int init(struct drv_worker *w)
{
	struct tcp_thread *tt;
	int err = drv_slot_io_new(w, sizeof(*tt), TCP_READ_BUF, rx_read);

	if (err)
		return err;
	tt = w->proto_data;
	tt->reconnect_every = w->cfg->reconnect_every;
	tt->timeout_ns = w->cfg->timeout_ns;
	drv_frame_rule_init(&tt->rule, w->cfg);
	tt->mix = w->cfg->mix;
	tt->pipeline = (uint32_t)w->cfg->pipeline;
	tt->close = proto_tcp_close;
	tt->drop = drop;
	tt->on_write = on_write;
	if (tt->mix)
		drv_mix_ctx_init(&tt->mix_ctx, w->cfg, w->id, (uint32_t)w->cfg->threads);
	err = w->cfg->ldap ? drv__tcp_ldap_init(tt, w) : 0;
	if (!err)
		err = drv__tcp_tls_init(tt, w); /* ldaps, --starttls (proto_tcp_tls.c) */
	return err ? err : drv_timing_init(w);
}

/* The slot operations (slot.h). */

static int slot_init(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	c->tt = s->w->proto_data;
	if (c->tt->ldap) {
		c->mbuf = malloc(c->tt->ldap->max_len);
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
	struct drv_rxclock clk;

	/*
	 * Open loop: what came in on the connection since the last drain is read before the send,
	 * as libuv would have read it on arrival: an end of stream (a server closing an idle
	 * connection) then reconnects quietly instead of failing this request. Usually one
	 * recvmsg() that finds nothing.
	 */
	if (c->tt->io.rxset.epfd >= 0 && c->open && !c->closing && !c->connecting) {
		drv_rxset_clock(&clk);
		rx_read(&c->tt->io.rxset, c, &clk);
		if (!s->pending) /* bytes nobody asked for failed this request (counted): no send */
			return;
	}
	if (c->closing)
		c->resume = true;
	else if (c->open)
		proto_tcp_send(c);
	else
		proto_tcp_connect(c);
}

static void slot_finish(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	if (c->qlen && c->open && !c->closing) {
		c->finishing = true; /* the last response in closes it */
		return;
	}
	if (c->open)
		proto_tcp_close(c); /* its close callback reports the slot done */
	else
		drv_slot_done(s);
}

static void slot_expire(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	if (c->open && !c->closing)
		fail(c, -ETIMEDOUT);
}

static void slot_stop(struct drv_slot *s)
{
	struct tcp_conn *c = tcp_conn_of(s);

	for (; c->qlen; c->qlen--, c->qhead = (c->qhead + 1) % c->tt->pipeline)
		drv_worker_stats(s->w, &c->q[c->qhead].ticket)->cancelled++;
	c->in_flight = false;
	proto_tcp_close(c);
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

	if (!c->in_flight || c->writing || !c->open || c->closing || c->connecting ||
	    c->binding || !c->on_conn || c->tt->pipeline > 1 || c->tl)
		return NULL;
	return (uv_handle_t *)&c->tcp;
}

/* What it read: on_read's path (0 bytes: the server closed, as libuv's UV_EOF). */
static void slot_received(struct drv_slot *s, ssize_t n, uint64_t at)
{
	struct tcp_conn *c = tcp_conn_of(s);

	c->t_rx = at; /* as the open loop's kernel stamp: the reply's time, if this read ends it */
	on_read((uv_stream_t *)&c->tcp, n ? n : UV_EOF,
		&(uv_buf_t){.base = c->tt->io.rbuf, .len = n > 0 ? (size_t)n : 0});
	c->t_rx = 0;
}

static const struct drv_slot_ops slot_ops = {
	.size = sizeof(struct tcp_conn), .init = slot_init, .go = slot_go,
	.finish = slot_finish, .expire = slot_expire, .stop = slot_stop,
	.release = slot_release, .awaited = slot_awaited, .received = slot_received,
};

static void fini(struct drv_worker *w)
{
	if (w->proto_data) {
		drv__tcp_ldap_fini(w->proto_data);
		drv__tcp_tls_fini(w->proto_data);
	}
	drv_slot_io_fini(w);
}

/* tcp:// and native http:// are the same slots; the framing rule (config) tells them apart */
#define X_PROTO(n)                                                                            \
	{.name = n, .init = init, .slot = &slot_ops, .stop = drv_slot_io_stop, .fini = fini}
const struct drv_proto drv_proto_tcp = X_PROTO("tcp");
const struct drv_proto drv_proto_http_native = X_PROTO("http");
