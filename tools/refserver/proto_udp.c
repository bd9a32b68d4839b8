// SPDX-License-Identifier: MIT
/*
 * UDP: every datagram is one request, answered with one datagram to its sender: the request
 * payload (echo), or --response-size bytes of 'x'. --drop-every N drops each worker's Nth, 2Nth,
 * ... datagram without a reply.
 */
#include <stdlib.h>
#include <string.h>
#include "refserver.h"

/* A reply that could not be sent at once: it owns a copy of its payload. */
struct proto_udp_send {
	uv_udp_send_t req;
	struct rs_worker *w;
	char data[];
};

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct rs_worker *w = container_of(h, struct rs_worker, udp);

	*buf = uv_buf_init(w->rbuf, RS_READ_BUF);
}

static void send_cb(uv_udp_send_t *req, int status)
{
	struct proto_udp_send *s = container_of(req, struct proto_udp_send, req);

	if (status < 0 && status != UV_ECANCELED)
		s->w->c.udp_send_errors++;
	free(s);
}

/* Slow path, when the socket's send queue is busy: copy and queue. */
static void send_later(struct rs_worker *w, const uv_buf_t *buf, const struct sockaddr *addr)
{
	struct proto_udp_send *s = malloc(sizeof(*s) + buf->len);
	uv_buf_t copy;

	if (!s) {
		w->c.udp_send_errors++;
		return;
	}
	s->w = w;
	memcpy(s->data, buf->base, buf->len);
	copy = uv_buf_init(s->data, buf->len);
	if (uv_udp_send(&s->req, &w->udp, &copy, 1, addr, send_cb)) {
		w->c.udp_send_errors++;
		free(s);
	}
}

static void recv_cb(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf,
		       const struct sockaddr *addr, unsigned flags)
{
	struct rs_worker *w = container_of(h, struct rs_worker, udp);
	const struct rs_config *cfg = w->cfg;
	uv_buf_t out;
	uint64_t t0;
	int r;

	if (nread < 0 || !addr)
		return; /* an error, or "nothing more to read" */
	rs_trace_read(w);
	w->c.bytes_in += (uint64_t)nread;
	if (cfg->mb.drop_every && (w->c.requests + 1) % cfg->mb.drop_every == 0) {
		w->c.requests++;
		w->c.udp_dropped++;
		return;
	}
	t0 = rs_service_begin(w);
	if (cfg->response_size < 0)
		out = uv_buf_init(buf->base, (unsigned)nread);
	else
		out = uv_buf_init(cfg->body, (unsigned)cfg->body_len);
	rs_service_end(w, t0);
	w->c.bytes_out += out.len;
	r = uv_udp_try_send(h, &out, 1, addr);
	if (r >= 0)
		rs_trace_sent(w, -1, 0);
	if (r == UV_EAGAIN)
		send_later(w, &out, addr);
	else if (r < 0)
		w->c.udp_send_errors++;
}

int rs_udp_start(struct rs_worker *w)
{
	int err;

	err = uv_udp_init(&w->loop, &w->udp);
	if (err)
		return err;
	w->udp_ok = true;
	err = uv_udp_open(&w->udp, w->listen_fd);
	if (err)
		return err;
	w->listen_fd = -1; /* owned by the handle now */
	return uv_udp_recv_start(&w->udp, alloc_cb, recv_cb);
}
