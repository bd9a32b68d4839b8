// SPDX-License-Identifier: MIT
/*
 * TCP framing: a request is a 4-byte big-endian length N (N <= 16 MiB) and N bytes; the response
 * is a 4-byte big-endian length M and M bytes: the request payload (echo), or M bytes of 'x' with
 * --response-size M. A length above 16 MiB is a protocol error and closes the connection.
 */
#include "refserver.h"

static uint32_t get_be32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void respond(struct rs_conn *c, const char *payload, uint32_t len)
{
	struct rs_worker *w = c->w;
	const struct rs_config *cfg = w->cfg;
	uv_buf_t bufs[2];
	uint64_t t0;
	bool echo = cfg->response_size < 0;

	t0 = rs_service_begin(w);
	if (echo) {
		put_be32(c->frame_hdr, len);
		bufs[1] = uv_buf_init((char *)payload, len);
	} else {
		put_be32(c->frame_hdr, (uint32_t)cfg->body_len);
		bufs[1] = uv_buf_init(cfg->body, (unsigned)cfg->body_len);
	}
	bufs[0] = uv_buf_init((char *)c->frame_hdr, 4);
	rs_service_end(w, t0);
	/* The header lives in the connection and the body is constant; an echo payload is not. */
	rs_conn_send(c, bufs, bufs[1].len ? 2 : 1, !echo);
}

static size_t consume(struct rs_conn *c, const char *p, size_t n)
{
	size_t used = 0;
	uint32_t len;

	while (!c->write_pending && !c->closing && n - used >= 4) {
		len = get_be32(p + used);
		if (len > RS_MAX_FRAME) {
			c->w->c.protocol_errors++;
			rs_conn_close(c);
			return n;
		}
		if (n - used - 4 < len)
			break;
		respond(c, p + used + 4, len);
		used += 4 + (size_t)len;
	}
	return c->closing ? n : used;
}

static int conn_init(struct rs_conn *c)
{
	return 0;
}

const struct rs_stream_proto rs_tcp_proto = {
	.conn_init = conn_init,
	.consume = consume,
};
