// SPDX-License-Identifier: MIT
/* The libnghttp2 client session: streams out, frames in, outcomes counted (h2_stream.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <nghttp2/nghttp2.h>
#include "base/drv.h"
#include "loadlens/grpc_status.h"
#include "config/config.h"
#include "config/app.h"
#include "h2/h2_conn.h"
#include "h2/h2_stream.h"
#include "scheduling/timing.h"

#define H2_WINDOW ((1U << 30) - 1) /* our receive windows, stream and connection: h2load's */

/* The session's callbacks. */

static struct h2_stream *stream_of(nghttp2_session *sess, int32_t id)
{
	return id > 0 ? nghttp2_session_get_stream_user_data(sess, id) : NULL;
}

/* The stream leaves the in-flight list; the slot's deadline is the oldest one's. */
static void stream_free(struct h2_conn *c, struct h2_stream *e)
{
	uint32_t i = (uint32_t)(e - c->st);

	if (e->prev != H2_NONE)
		c->st[e->prev].next = e->next;
	else
		c->head = e->next;
	if (e->next != H2_NONE)
		c->st[e->next].prev = e->prev;
	else
		c->tail = e->prev;
	if (e->parked) {
		e->parked = false;
		c->parked--;
	} else if (e->body_off < e->body_len) {
		c->body_waiting--;
	}
	if (c->sess && e->id > 0)
		nghttp2_session_set_stream_user_data(c->sess, e->id, NULL);
	e->id = 0;
	e->rec_live = false;
	c->free_ids[c->nfree++] = i;
	c->inflight--;
	c->sc.base.deadline = c->head != H2_NONE ? c->st[c->head].deadline : 0;
}

/* A stream that got no answer: counted under err, its record too. */
static void stream_fail(struct h2_conn *c, struct h2_stream *e, int err)
{
	drv_worker_error(c->sc.base.w, &e->ticket, err);
	if (e->rec_live)
		drv_timing_unanswered(c->sc.base.w, &e->ticket, e->rec, err);
	stream_free(c, e);
}

/* The server ended the stream (on a header block: by_headers): its answer, timed and counted
 * once. */
static void stream_done(struct h2_conn *c, struct h2_stream *e, bool by_headers)
{
	uint64_t at = drv_timing_reply_at(e->t_send, c->sc.t_rx); /* open loop: kernel's stamp */
	struct drv_timing_reply r = drv_timing_reply_init(e->t_send, at);

	r.status = e->status;
	r.httpv = DRV_HTTPV_2;
	if (e->status < 200 || e->status > 299) {
		r.err = DRV_E_HTTP_STATUS;
	} else if (c->ht->grpc) {
		/* a malformed reply is its own error, counted under no grpc-status */
		r.err = c->ht->app->reply_end(e->app, by_headers, &r.grpc);
	}
	r.rec = e->rec;
	r.rec_live = e->rec_live;
	e->rec_live = false;
	drv_timing_record(c->sc.base.w, &e->ticket, &r);
	if (e->body_off < e->body_len) /* answered before its body was sent: stop sending it */
		nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, e->id, NGHTTP2_NO_ERROR);
	stream_free(c, e);
}

static int on_header(nghttp2_session *sess, const nghttp2_frame *f, const uint8_t *name,
		     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
		     void *ud)
{
	const struct h2_conn *c = ud;
	struct h2_stream *e = stream_of(sess, f->hd.stream_id);
	int v = 0;
	size_t i;

	if (!e || f->hd.type != NGHTTP2_HEADERS)
		return 0;
	if (namelen == 7 && !memcmp(name, ":status", 7) && valuelen == 3) {
		for (i = 0; i < 3; i++)
			v = v * 10 + (value[i] - '0'); /* nghttp2 checked: three digits */
		e->status = v;
	} else if (c->ht->grpc) {
		c->ht->app->reply_header(e->app, f->headers.cat == NGHTTP2_HCAT_RESPONSE, name,
					 namelen, value, valuelen);
	}
	return 0;
}

/* grpc: a header block begins (response headers, trailers): its own grpc-status counts. */
static int on_begin_headers(nghttp2_session *sess, const nghttp2_frame *f, void *ud)
{
	const struct h2_conn *c = ud;
	struct h2_stream *e = stream_of(sess, f->hd.stream_id);

	if (e && f->hd.type == NGHTTP2_HEADERS && c->ht->grpc)
		c->ht->app->reply_block(e->app, f->headers.cat == NGHTTP2_HCAT_RESPONSE);
	return 0;
}

/* grpc: the reply's DATA, walked for its messages (nghttp2 has taken the padding off). */
static int on_data_chunk(nghttp2_session *sess, uint8_t flags, int32_t id, const uint8_t *p,
			 size_t n, void *ud)
{
	const struct h2_conn *c = ud;
	struct h2_stream *e = stream_of(sess, id);

	if (e && c->ht->grpc)
		c->ht->app->reply_data(e->app, p, n);
	return 0;
}

/*
 * The server's SETTINGS: it speaks HTTP/2; its stream limit, the smallest seen, reported. What
 * the connection saw counts in the run's stats, even during a warm-up: the server's limit holds
 * for the whole run.
 */
static void on_settings(struct h2_conn *c, const nghttp2_settings *s)
{
	struct drv_stats *st = &c->sc.base.w->stats;
	size_t i;

	if (!c->settings) {
		c->settings = true;
		st->h2_settings++;
	}
	for (i = 0; i < s->niv; i++) {
		if (s->iv[i].settings_id != NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
			continue;
		if (!st->h2_max_streams_set || s->iv[i].value < st->h2_max_streams)
			st->h2_max_streams = s->iv[i].value;
		st->h2_max_streams_set++;
	}
}

static int on_frame_recv(nghttp2_session *sess, const nghttp2_frame *f, void *ud)
{
	struct h2_conn *c = ud;
	struct h2_stream *e = stream_of(sess, f->hd.stream_id);

	switch (f->hd.type) {
	case NGHTTP2_SETTINGS:
		if (!(f->hd.flags & NGHTTP2_FLAG_ACK))
			on_settings(c, &f->settings);
		break;
	case NGHTTP2_HEADERS:
	case NGHTTP2_DATA:
		/* a 1xx HEADERS comes before the final one: not the end */
		if (e && (f->hd.flags & NGHTTP2_FLAG_END_STREAM))
			stream_done(c, e, f->hd.type == NGHTTP2_HEADERS);
		break;
	case NGHTTP2_RST_STREAM:
		if (e) {
			e->rst = true;
			e->rst_code = f->rst_stream.error_code;
		}
		break;
	case NGHTTP2_GOAWAY:
		c->goaway = true;
		c->goaway_last = f->goaway.last_stream_id;
		h2_conn_stats(c)->h2_goaway++;
		if (f->goaway.error_code != NGHTTP2_NO_ERROR)
			c->proto_err = f->goaway.error_code == NGHTTP2_PROTOCOL_ERROR ||
				       f->goaway.error_code == NGHTTP2_FRAME_SIZE_ERROR ||
				       f->goaway.error_code == NGHTTP2_COMPRESSION_ERROR;
		break;
	}
	return 0;
}

/* A frame libnghttp2 refused (malformed, or against the protocol): stream or connection. */
static int on_invalid_frame(nghttp2_session *sess, const nghttp2_frame *f, int lib_err, void *ud)
{
	struct h2_conn *c = ud;

	if (!f->hd.stream_id)
		c->proto_err = true;
	return 0;
}

/* Why a stream closed without its answer. */
static int close_cause(struct h2_conn *c, struct h2_stream *e, uint32_t code)
{
	if (e->rst) {
		h2_conn_stats(c)->h2_rst[e->rst_code < DRV_H2_RST_CODES - 1 ? e->rst_code
									: DRV_H2_RST_CODES - 1]++;
		return DRV_E_H2_RST;
	}
	if (c->goaway && e->id > c->goaway_last)
		return DRV_E_H2_GOAWAY;
	if (c->proto_err || code == NGHTTP2_PROTOCOL_ERROR || code == NGHTTP2_FRAME_SIZE_ERROR ||
	    code == NGHTTP2_COMPRESSION_ERROR || code == NGHTTP2_FLOW_CONTROL_ERROR)
		return DRV_E_H2_PROTOCOL;
	return DRV_E_SHORT;
}

/*
 * A stream a GOAWAY refused (past its last stream id: RFC 9113 8.7, not processed, safe to
 * retry): parked, still in flight, its ticket, body and send time kept, and sent again on the
 * next connection (h2__streams_resubmit()); once only: refused again, it is an error.
 */
static void stream_park(struct h2_conn *c, struct h2_stream *e)
{
	if (c->sess && e->id > 0)
		nghttp2_session_set_stream_user_data(c->sess, e->id, NULL);
	if (e->body_off < e->body_len)
		c->body_waiting--;
	e->id = 0;
	e->parked = e->retried = true;
	c->parked++;
	h2_conn_stats(c)->h2_goaway_retried++;
}

static int on_stream_close(nghttp2_session *sess, int32_t id, uint32_t code, void *ud)
{
	struct h2_conn *c = ud;
	struct h2_stream *e = stream_of(sess, id);
	int err;

	if (!e) /* answered streams were freed at their END_STREAM */
		return 0;
	err = close_cause(c, e, code);
	if (err == DRV_E_H2_GOAWAY && !e->retried && !c->sc.base.w->stopping)
		stream_park(c, e);
	else
		stream_fail(c, e, err);
	return 0;
}

static ssize_t body_read(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t len,
			 uint32_t *flags, nghttp2_data_source *src, void *ud)
{
	struct h2_conn *c = ud;
	struct h2_stream *e = stream_of(sess, id);
	size_t n;

	if (!e)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* gone: nghttp2 resets it */
	n = e->body_len - e->body_off;
	if (n > len)
		n = len;
	memcpy(buf, e->body + e->body_off, n);
	e->body_off += n;
	if (e->body_off == e->body_len) {
		*flags |= NGHTTP2_DATA_FLAG_EOF;
		c->body_waiting--;
	}
	return (ssize_t)n;
}

int h2__thread_init(struct h2_thread *ht, const struct drv_config *cfg)
{
	int err = nghttp2_session_callbacks_new(&ht->cbs);

	if (err || nghttp2_option_new(&ht->opt))
		return -ENOMEM;
	nghttp2_session_callbacks_set_on_header_callback(ht->cbs, on_header);
	nghttp2_session_callbacks_set_on_begin_headers_callback(ht->cbs, on_begin_headers);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(ht->cbs, on_data_chunk);
	nghttp2_session_callbacks_set_on_frame_recv_callback(ht->cbs, on_frame_recv);
	nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(ht->cbs, on_invalid_frame);
	nghttp2_session_callbacks_set_on_stream_close_callback(ht->cbs, on_stream_close);
	/* one stream until the server's SETTINGS say how many: never more than it allows */
	nghttp2_option_set_peer_max_concurrent_streams(ht->opt, 1);
	ht->grpc = ll_scheme_is_grpc(cfg->url.scheme);
	ht->app = drv_config_app(cfg) ? drv_config_app(cfg)->h2 : NULL; /* grpc (h2_ext.h) */
	if (ht->grpc && !ht->app)
		return -ENOPROTOOPT; /* apps.c registers it before any command line is parsed */
	ht->msg_cap = 5 + (ht->app ? ht->app->msg_max(cfg) : 0);
	return h2__headers(ht, cfg);
}

void h2__thread_fini(struct h2_thread *ht)
{
	size_t i;

	for (i = 0; i < ht->nowned; i++)
		free(ht->owned[i]);
	free(ht->owned);
	free(ht->nva);
	nghttp2_option_del(ht->opt);
	nghttp2_session_callbacks_del(ht->cbs);
}

int h2__session_new(struct h2_conn *c)
{
	static const nghttp2_settings_entry iv[] = {
		{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
		{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_WINDOW},
	};

	c->settings = c->goaway = c->proto_err = false;
	c->on_conn = 0;
	if (nghttp2_session_client_new2(&c->sess, c->ht->cbs, c, c->ht->opt))
		return -ENOMEM;
	if (nghttp2_submit_settings(c->sess, NGHTTP2_FLAG_NONE, iv, sizeof(iv) / sizeof(iv[0])) ||
	    nghttp2_session_set_local_window_size(c->sess, NGHTTP2_FLAG_NONE, 0,
						  (int32_t)H2_WINDOW))
		return -ENOMEM;
	return 0;
}

void h2__session_free(struct h2_conn *c)
{
	nghttp2_session_del(c->sess);
	c->sess = NULL;
}

bool h2__room(const struct h2_conn *c)
{
	uint32_t max;

	if (!c->sess || c->sc.closing || c->goaway || c->finishing || !c->nfree ||
	    (c->ht->reconnect_every && c->on_conn >= c->ht->reconnect_every))
		return false;
	max = nghttp2_session_get_remote_settings(c->sess, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
	return c->inflight < max;
}

/* grpc: the next message behind its 5-byte prefix; its method path (NULL: the target's).
 * False if the message could not be made. */
static bool grpc_body(struct h2_conn *c, struct h2_stream *e, uint32_t i, const char **path)
{
	struct h2_thread *ht = c->ht;
	uint8_t *b = c->msgs + (size_t)i * ht->msg_cap;
	size_t n = ht->app->msg_next(c->sc.base.w->cfg, &ht->mix_ctx, (char *)b + 5,
				     ht->msg_cap - 5, path, &e->rec);

	e->rec_live = e->rec != DRV_H2_NO_REC;
	if (n == DRV_H2_MSG_FAILED)
		return false;
	b[0] = 0; /* not compressed */
	b[1] = (uint8_t)(n >> 24);
	b[2] = (uint8_t)(n >> 16);
	b[3] = (uint8_t)(n >> 8);
	b[4] = (uint8_t)n;
	e->body = b;
	e->body_len = 5 + n;
	return true;
}

/* The ticket's call had no message: counted failed (-EINVAL), resolved. */
static void no_message(struct h2_conn *c, struct h2_stream *e, uint32_t i)
{
	c->free_ids[c->nfree++] = i;
	if (e->rec_live)
		drv_timing_unanswered(c->sc.base.w, &c->sc.base.ticket, e->rec, -EINVAL);
	e->rec_live = false;
	drv_slot_fail(&c->sc.base, -EINVAL, false);
	c->sc.base.deadline = c->head != H2_NONE ? c->st[c->head].deadline : 0; /* the streams' */
}

bool h2__stream_start(struct h2_conn *c)
{
	struct h2_thread *ht = c->ht;
	const struct drv_config *cfg = c->sc.base.w->cfg;
	uint32_t i = c->free_ids[--c->nfree];
	struct h2_stream *e = &c->st[i];
	nghttp2_data_provider dp = {.read_callback = body_read};
	nghttp2_nv nva[H2_NV_MAX];
	const nghttp2_nv *hv = ht->nva;
	const char *path = NULL;
	int32_t id;

	e->ticket = c->sc.base.ticket;
	e->status = 0;
	if (ht->app)
		ht->app->reply_init(e->app);
	e->rst = e->stalled = e->parked = e->retried = false;
	e->rec_live = false;
	e->body_off = 0;
	if (ht->grpc && !grpc_body(c, e, i, &path)) {
		no_message(c, e, i);
		return false;
	} else if (!ht->grpc) {
		e->body = (const uint8_t *)cfg->body;
		e->body_len = cfg->body_len;
	}
	e->path = path;
	if (path) { /* a method of the mix: the headers with its :path */
		memcpy(nva, ht->nva, ht->nnv * sizeof(*nva));
		nva[ht->path_nv].value = (uint8_t *)path;
		nva[ht->path_nv].valuelen = strlen(path);
		hv = nva;
	}
	c->sc.base.pending = false; /* the ticket is the stream's now */
	e->t_send = uv_hrtime();
	e->deadline = ht->th.timeout_ns ? e->t_send + ht->th.timeout_ns : 0;
	id = nghttp2_submit_request(c->sess, NULL, hv, ht->nnv, e->body_len ? &dp : NULL, e);
	if (id < 0) { /* out of stream ids or memory: this connection is done */
		c->free_ids[c->nfree++] = i;
		drv_worker_error(c->sc.base.w, &e->ticket, id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE
							       ? DRV_E_H2_GOAWAY : -ENOMEM);
		c->goaway = true; /* drained, then reopened */
		return true;
	}
	e->id = id;
	e->next = H2_NONE;
	e->prev = c->tail;
	if (c->tail != H2_NONE)
		c->st[c->tail].next = i;
	else
		c->head = i;
	c->tail = i;
	if (e->body_len)
		c->body_waiting++;
	c->inflight++;
	c->on_conn++;
	if (c->inflight > c->sc.base.w->stats.h2_peak_streams) /* as the SETTINGS, warm-up or not */
		c->sc.base.w->stats.h2_peak_streams = c->inflight;
	c->sc.base.deadline = c->st[c->head].deadline;
	return true;
}

int h2__recv(struct h2_conn *c, const uint8_t *p, size_t n)
{
	ssize_t r;

	/*
	 * A server's first frame is its SETTINGS (RFC 9113 3.4): anything else there is not HTTP/2.
	 * An HTTP/1.x server answers the preface with its own status line, another with an error
	 * page and no status line (Python's http.server: HTTP/0.9 style), or a banner.
	 */
	if (!c->settings && !c->rx && n >= 4 && p[3] != NGHTTP2_SETTINGS) {
		if (c->ht->tls) /* ALPN chose h2, and the server spoke otherwise */
			c->not_h2 = "the server's ALPN chose h2, and its first bytes were not an "
				    "HTTP/2 SETTINGS frame";
		else if (n >= 5 && !memcmp(p, "HTTP/", 5))
			c->not_h2 = "the server answered the HTTP/2 preface with HTTP/1.x: no "
				    "HTTP/2 by prior knowledge (h2c) there";
		else
			c->not_h2 = "the server's first bytes were not an HTTP/2 SETTINGS frame: "
				    "no HTTP/2 by prior knowledge (h2c) there";
		return DRV_E_NOT_H2;
	}
	c->rx += n;
	r = nghttp2_session_mem_recv(c->sess, p, n);
	if (r < 0)
		return DRV_E_H2_PROTOCOL;
	return 0;
}

void h2__stall_check(struct h2_conn *c)
{
	struct h2_stream *e;
	uint32_t i;

	if (!c->body_waiting || !c->sess)
		return;
	for (i = c->head; i != H2_NONE; i = e->next) {
		e = &c->st[i];
		if (e->stalled || e->body_off >= e->body_len)
			continue;
		if (nghttp2_session_get_stream_remote_window_size(c->sess, e->id) <= 0 ||
		    nghttp2_session_get_remote_window_size(c->sess) <= 0) {
			e->stalled = true;
			h2_conn_stats(c)->h2_flow_stalls++;
		}
	}
}

void h2__streams_resubmit(struct h2_conn *c)
{
	struct h2_thread *ht = c->ht;
	nghttp2_data_provider dp = {.read_callback = body_read};
	nghttp2_nv nva[H2_NV_MAX];
	const nghttp2_nv *hv;
	struct h2_stream *e;
	uint32_t i, next;
	int32_t id;

	for (i = c->head; c->parked && i != H2_NONE; i = next) {
		e = &c->st[i];
		next = e->next;
		if (!e->parked)
			continue;
		hv = ht->nva;
		if (e->path) {
			memcpy(nva, ht->nva, ht->nnv * sizeof(*nva));
			nva[ht->path_nv].value = (uint8_t *)e->path;
			nva[ht->path_nv].valuelen = strlen(e->path);
			hv = nva;
		}
		e->body_off = 0;
		id = nghttp2_submit_request(c->sess, NULL, hv, ht->nnv, e->body_len ? &dp : NULL, e);
		if (id < 0) {
			stream_fail(c, e, DRV_E_H2_GOAWAY);
			continue;
		}
		e->id = id;
		e->parked = false;
		c->parked--;
		if (e->body_len)
			c->body_waiting++;
		c->on_conn++;
	}
	c->sc.base.deadline = c->head != H2_NONE ? c->st[c->head].deadline : 0;
}

void h2__streams_fail(struct h2_conn *c, int err)
{
	struct h2_stream *e;

	while (c->head != H2_NONE) {
		e = &c->st[c->head];
		if (e->parked) /* refused, and no connection came to send it again */
			stream_fail(c, e, DRV_E_H2_GOAWAY);
		else if (err == DRV_E_SHORT || err == UV_EOF)
			stream_fail(c, e, close_cause(c, e, NGHTTP2_NO_ERROR));
		else
			stream_fail(c, e, err);
	}
}

void h2__streams_expire(struct h2_conn *c, uint64_t now)
{
	struct h2_stream *e;

	while (c->head != H2_NONE) {
		e = &c->st[c->head];
		if (!e->deadline || e->deadline > now)
			break;
		if (c->sess && e->id > 0)
			nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, e->id,
						  NGHTTP2_CANCEL);
		stream_fail(c, e, -ETIMEDOUT);
	}
}

void h2__streams_cancel(struct h2_conn *c)
{
	struct h2_stream *e;

	while (c->head != H2_NONE) {
		e = &c->st[c->head];
		drv_worker_stats(c->sc.base.w, &e->ticket)->cancelled++;
		e->rec_live = false;
		stream_free(c, e);
	}
}
