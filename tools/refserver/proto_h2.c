// SPDX-License-Identifier: MIT
/*
 * HTTP/2 by prior knowledge (h2c), for --proto h2 and grpc: one libnghttp2 server session per
 * connection, fed from the connection's reads (nghttp2_session_mem_recv) and flushed to its
 * writes (nghttp2_session_mem_send) on the worker's loop. A stream whose request is complete
 * (END_STREAM) joins the connection's queue. The worker takes the queued streams one at a time,
 * in that order: it spends the service time, answers, and writes the response out before it takes
 * the next one, so the streams of one connection queue at the server. The switches --max-streams,
 * --rst-every, --goaway-after and --stall-every act here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto_grpc.h"
#include "loadlens/dlist.h"

#define OUT_SOFT (256u << 10) /* the session's output is written in pieces of about this */

/* Built by rs_h2_prepare() before the workers start; read-only afterwards. */
static nghttp2_session_callbacks *callbacks;
static char content_length[24];
static nghttp2_nv plain_nv[] = {
	RS_NV("content-type", "text/plain"),
	RS_NV("content-length", ""), /* set to content_length */
};

static bool is_grpc(const struct rs_h2_conn *h)
{
	return h->c->w->cfg->proto == RS_PROTO_GRPC;
}

/* --- the queue of complete requests --- */

static void enqueue(struct rs_h2_conn *h, struct rs_h2_stream *st)
{
	st->queued = true;
	st->qnext = NULL;
	st->qprev = h->qtail;
	if (h->qtail)
		h->qtail->qnext = st;
	else
		h->qhead = st;
	h->qtail = st;
}

static void dequeue(struct rs_h2_conn *h, struct rs_h2_stream *st)
{
	LL_DLIST_UNLINK_TAIL(&h->qhead, &h->qtail, st, qprev, qnext);
	st->queued = false;
	st->qprev = st->qnext = NULL;
}

static void stream_free(struct rs_h2_conn *h, struct rs_h2_stream *st)
{
	if (st->queued)
		dequeue(h, st);
	LL_DLIST_UNLINK(&h->streams, st, prev, next);
	free(st);
}

/* --- the response --- */

static int respond_plain(struct rs_h2_conn *h, struct rs_h2_stream *st)
{
	const struct rs_config *cfg = h->c->w->cfg;

	return rs_h2_respond(h, st, 200, plain_nv, sizeof(plain_nv) / sizeof(plain_nv[0]),
			     cfg->body, st->head ? 0 : cfg->body_len, NULL, 0);
}

/*
 * The worker's next stream: the switches by its number in the worker (1, 2, ...), else the service
 * time and the answer.
 */
static void serve_one(struct rs_h2_conn *h, struct rs_h2_stream *st)
{
	struct rs_worker *w = h->c->w;
	const struct rs_misbehave *mb = &w->cfg->mb;
	uint64_t seq, t0;
	bool reset;
	int rv;

	if (is_grpc(h) && !rs_grpc_admit(h, st)) {
		/* answered at once, as a gRPC server does; no service time */
		w->c.requests++;
		w->c.responses++;
		return;
	}
	seq = ++w->h2_seq;
	if (mb->stall_every && seq % mb->stall_every == 0) {
		/* left open, never answered: freed with its connection */
		w->c.requests++;
		w->c.streams_stalled++;
		return;
	}
	reset = mb->rst_every && seq % mb->rst_every == 0;
	t0 = rs_service_begin(w);
	rv = reset ? 0 : is_grpc(h) ? rs_grpc_respond(h, st, seq) : respond_plain(h, st);
	if (!reset && !rv) {
		rs_service_end(w, t0);
		return;
	}
	/* --rst-every (or out of memory): the stream fails alone */
	nghttp2_submit_rst_stream(h->session, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_INTERNAL_ERROR);
	rs_service_record(w, t0);
	w->c.streams_reset++;
}

/* --- the session's output --- */

/* Hand the session's output to the socket unless a write is pending. */
static void write_out(struct rs_h2_conn *h)
{
	struct rs_conn *c = h->c;
	uv_buf_t buf;

	if (c->write_pending || c->closing || h->out.off == h->out.len)
		return;
	buf = uv_buf_init(h->out.data + h->out.off, (unsigned)(h->out.len - h->out.off));
	h->out.off = h->out.len = 0;
	/* an unsent tail is copied by rs_conn_send, so our buffer is free again at once */
	rs_conn_send(c, &buf, 1, false);
}

/* A broken session: counted once, closed once its last output is written. */
static void fail(struct rs_h2_conn *h)
{
	struct rs_conn *c = h->c;

	if (!h->broken)
		c->w->c.protocol_errors++;
	h->broken = true;
	if (c->closing || c->close_after_write)
		return;
	c->close_after_write = true;
	if (!c->write_pending)
		rs_conn_close(c);
}

/*
 * Write out the session's output: in pieces of about OUT_SOFT (all of it at once with FORCE),
 * until the session has nothing more to send or a write is pending (then write_cb resumes it).
 */
static void flush(struct rs_h2_conn *h, bool force)
{
	const uint8_t *data;
	bool more = true;
	ssize_t n;

	for (;;) {
		while (more && (force || h->out.len - h->out.off < OUT_SOFT)) {
			n = nghttp2_session_mem_send(h->session, &data);
			if (n < 0) {
				fail(h);
				return;
			}
			more = n > 0;
			if (more && rs_buf_append(&h->out, (const char *)data, (size_t)n)) {
				fail(h);
				return;
			}
		}
		write_out(h);
		if (!more || h->c->closing || h->c->write_pending)
			return;
	}
}

/* Serve the queued streams one at a time, each written out before the next; then close if done. */
static void serve(struct rs_h2_conn *h)
{
	struct rs_conn *c = h->c;
	struct rs_h2_stream *st;

	while (!c->closing && !c->write_pending && (st = h->qhead)) {
		dequeue(h, st);
		serve_one(h, st);
		flush(h, false);
	}
	if (c->closing)
		return;
	flush(h, false);
	if (c->closing || nghttp2_session_want_read(h->session) ||
	    nghttp2_session_want_write(h->session) || h->out.off != h->out.len)
		return;
	/* GOAWAY sent (or received) and every stream done: the session is over */
	c->close_after_write = true;
	if (!c->write_pending)
		rs_conn_close(c);
}

/* --- nghttp2 callbacks --- */

static int on_begin_headers(nghttp2_session *s, const nghttp2_frame *f, void *user_data)
{
	struct rs_h2_conn *h = user_data;
	struct rs_worker *w = h->c->w;
	struct rs_h2_stream *st;

	if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	st->id = f->hd.stream_id;
	st->next = h->streams;
	if (h->streams)
		h->streams->prev = st;
	h->streams = st;
	nghttp2_session_set_stream_user_data(s, st->id, st);
	w->c.streams_opened++;
	if (++h->opened != w->cfg->mb.goaway_after)
		return 0;
	/*
	 * This is the Nth stream: GOAWAY with it as the last. nghttp2 refuses new streams only once
	 * the GOAWAY has gone out, so the input pauses at this stream's first header until it has.
	 */
	if (!nghttp2_submit_goaway(s, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_NO_ERROR, NULL, 0)) {
		h->goaway_submitted = true;
		h->goaway_pause = true;
	}
	return 0;
}

static bool name_is(const uint8_t *name, size_t len, const char *want)
{
	return len == strlen(want) && !memcmp(name, want, len);
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
		     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
		     void *user_data)
{
	struct rs_h2_conn *h = user_data;
	struct rs_h2_stream *st;

	if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	st = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);
	if (!st)
		return 0;
	if (name_is(name, namelen, ":method")) {
		st->head = name_is(value, valuelen, "HEAD");
		st->post = name_is(value, valuelen, "POST");
	} else if (name_is(name, namelen, ":path")) {
		st->path_len = valuelen;
		if (valuelen < RS_GRPC_PATH_MAX)
			memcpy(st->path, value, valuelen);
	} else if (name_is(name, namelen, "content-type")) {
		st->grpc_type = rs_grpc_content_type_ok((const char *)value, valuelen);
	}
	if (h->goaway_pause) {
		h->goaway_pause = false;
		return NGHTTP2_ERR_PAUSE;
	}
	return 0;
}

static int on_data_chunk_recv(nghttp2_session *s, uint8_t flags, int32_t id,
			      const uint8_t *data, size_t len, void *user_data)
{
	struct rs_h2_conn *h = user_data;
	struct rs_h2_stream *st;

	/* the body is read and discarded; gRPC's message framing is followed */
	if (!is_grpc(h))
		return 0;
	st = nghttp2_session_get_stream_user_data(s, id);
	if (st)
		rs_grpc_scan_feed(&st->scan, data, len);
	return 0;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *f, void *user_data)
{
	struct rs_h2_conn *h = user_data;
	struct rs_h2_stream *st;

	if (f->hd.type == NGHTTP2_RST_STREAM) {
		h->c->w->c.rst_received++;
		return 0;
	}
	if ((f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA) ||
	    !(f->hd.flags & NGHTTP2_FLAG_END_STREAM))
		return 0;
	st = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);
	if (st && !st->queued)
		enqueue(h, st);
	return 0;
}

static int on_frame_send(nghttp2_session *s, const nghttp2_frame *f, void *user_data)
{
	struct rs_h2_conn *h = user_data;

	if (f->hd.type == NGHTTP2_RST_STREAM) {
		h->c->w->c.rst_sent++;
		h->c->w->c.rst_sent_codes[f->rst_stream.error_code < RS_H2_CODES
						  ? f->rst_stream.error_code
						  : RS_H2_CODES - 1]++;
	} else if (f->hd.type == NGHTTP2_GOAWAY) {
		h->c->w->c.goaway_sent++;
		h->goaway_sent = true;
		/* nghttp2's answer to a connection error (a malformed frame, a flood, ...) */
		if (f->goaway.error_code != NGHTTP2_NO_ERROR && !h->broken) {
			h->broken = true;
			h->c->w->c.protocol_errors++;
		}
	}
	return 0;
}

static int on_stream_close(nghttp2_session *s, int32_t id, uint32_t error_code,
			   void *user_data)
{
	struct rs_h2_conn *h = user_data;
	struct rs_h2_stream *st = nghttp2_session_get_stream_user_data(s, id);

	if (st)
		stream_free(h, st);
	return 0;
}

/* --- the connection --- */

static size_t consume(struct rs_conn *c, const char *p, size_t n)
{
	struct rs_h2_conn *h = c->h2;
	size_t off = 0;
	ssize_t rv;

	while (off < n && !c->closing && !c->close_after_write && !c->write_pending) {
		/* a --goaway-after pause: the GOAWAY goes out before the next frame is read */
		if (h->goaway_submitted && !h->goaway_sent)
			flush(h, true);
		rv = nghttp2_session_mem_recv(h->session, (const uint8_t *)p + off, n - off);
		if (rv < 0) {
			/* nghttp2 has queued a GOAWAY for most errors; send it, then close */
			flush(h, true);
			fail(h);
			return n;
		}
		off += (size_t)rv;
		serve(h);
	}
	return c->closing || c->close_after_write ? n : off;
}

static void writable(struct rs_conn *c)
{
	write_out(c->h2);
	serve(c->h2);
}

static void conn_free(struct rs_conn *c)
{
	struct rs_h2_conn *h = c->h2;

	if (!h)
		return;
	while (h->qhead) {
		c->w->c.streams_unserved++;
		dequeue(h, h->qhead);
	}
	nghttp2_session_del(h->session);
	while (h->streams)
		stream_free(h, h->streams);
	rs_buf_free(&h->out);
	free(h);
	c->h2 = NULL;
}

static int conn_init(struct rs_conn *c)
{
	const struct rs_misbehave *mb = &c->w->cfg->mb;
	nghttp2_settings_entry iv[1];
	struct rs_h2_conn *h;
	size_t niv = 0;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->c = c;
	c->h2 = h;
	if (nghttp2_session_server_new(&h->session, callbacks, h)) {
		free(h);
		c->h2 = NULL;
		return -ENOMEM;
	}
	if (mb->max_streams)
		iv[niv++] = (nghttp2_settings_entry){NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS,
						     (uint32_t)mb->max_streams};
	/* the server's connection preface: our SETTINGS, sent at once */
	if (nghttp2_submit_settings(h->session, NGHTTP2_FLAG_NONE, iv, niv))
		return -ENOMEM;
	flush(h, true);
	return 0;
}

const struct rs_stream_proto rs_h2_proto = {
	.conn_init = conn_init,
	.consume = consume,
	.writable = writable,
	.conn_free = conn_free,
};

int rs_h2_prepare(const struct rs_config *cfg)
{
	nghttp2_session_callbacks *cb;

	snprintf(content_length, sizeof(content_length), "%zu", cfg->body_len);
	plain_nv[1].value = (uint8_t *)content_length;
	plain_nv[1].valuelen = strlen(content_length);
	if (nghttp2_session_callbacks_new(&cb))
		return -ENOMEM;
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk_recv);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
	nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
	callbacks = cb;
	return cfg->proto == RS_PROTO_GRPC ? rs_grpc_prepare(cfg) : 0;
}

void rs_h2_release(void)
{
	rs_grpc_release();
	nghttp2_session_callbacks_del(callbacks);
	callbacks = NULL;
}
