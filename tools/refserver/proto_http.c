// SPDX-License-Identifier: MIT
/*
 * HTTP/1.x with http_parser: any method, any path, bodies allowed. Every request gets "200 OK"
 * with a fixed body; keep-alive follows http_should_keep_alive() (HTTP/1.1 default, HTTP/1.0 with
 * "Connection: keep-alive"), pipelined requests are answered in order, and a malformed request
 * gets "400 Bad Request" and the connection is closed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "refserver.h"

enum { X__KEEP_11, X__KEEP_10, X__CLOSE, X__NHDR };

#define X__HDR_MAX 160
#define X__SMALL_BODY 4096

/*
 * Built by rs_http_prepare() before the workers start; read-only afterwards. A small body is
 * stored right after its headers, so the response goes out in one write() instead of a writev().
 */
static char x__hdr[X__NHDR][X__HDR_MAX + X__SMALL_BODY];
static size_t x__hdr_len[X__NHDR];
static bool x__body_inline;

static const char x__bad_request[] = "HTTP/1.1 400 Bad Request\r\n"
				     "Content-Length: 0\r\n"
				     "Connection: close\r\n"
				     "\r\n";

int rs_http_prepare(const struct rs_config *cfg)
{
	static const char *const conn_hdr[X__NHDR] = {
		"",
		"Connection: keep-alive\r\n",
		"Connection: close\r\n",
	};
	int i, n;

	for (i = 0; i < X__NHDR; i++) {
		n = snprintf(x__hdr[i], X__HDR_MAX,
			     "HTTP/1.1 200 OK\r\n"
			     "Content-Type: text/plain\r\n"
			     "Content-Length: %zu\r\n"
			     "%s"
			     "\r\n",
			     cfg->body_len, conn_hdr[i]);
		if (n < 0 || n >= X__HDR_MAX)
			return -ENOBUFS;
		x__hdr_len[i] = (size_t)n;
	}
	x__body_inline = cfg->body_len <= X__SMALL_BODY;
	if (x__body_inline) {
		for (i = 0; i < X__NHDR; i++)
			memcpy(x__hdr[i] + x__hdr_len[i], cfg->body, cfg->body_len);
	}
	return 0;
}

static int x__on_message_complete(http_parser *p)
{
	struct rs_conn *c = container_of(p, struct rs_conn, parser);
	struct rs_worker *w = c->w;
	const struct rs_config *cfg = w->cfg;
	uv_buf_t bufs[2];
	unsigned nbufs = 1;
	uint64_t t0;
	int h;

	t0 = rs_service_begin(w);
	if (!http_should_keep_alive(p) || p->upgrade) {
		h = X__CLOSE;
		c->close_after_write = true;
	} else {
		h = p->http_major == 1 && p->http_minor == 0 ? X__KEEP_10 : X__KEEP_11;
	}
	bufs[0] = uv_buf_init(x__hdr[h], (unsigned)x__hdr_len[h]);
	if (p->method != HTTP_HEAD && x__body_inline)
		bufs[0].len += cfg->body_len;
	else if (p->method != HTTP_HEAD && cfg->body_len)
		bufs[nbufs++] = uv_buf_init(cfg->body, (unsigned)cfg->body_len);
	rs_service_end(w, t0);
	rs_conn_send(c, bufs, nbufs, true);
	/* Stop here until the write completes, or for good if the connection is done. */
	if (c->write_pending || c->closing || c->close_after_write)
		http_parser_pause(p, 1);
	return 0;
}

static const http_parser_settings x__settings = {
	.on_message_complete = x__on_message_complete,
};

static void x__bad(struct rs_conn *c)
{
	uv_buf_t buf = uv_buf_init((char *)x__bad_request, sizeof(x__bad_request) - 1);

	c->w->c.protocol_errors++;
	c->close_after_write = true;
	rs_conn_send(c, &buf, 1, true);
}

static size_t x__consume(struct rs_conn *c, const char *p, size_t n)
{
	enum http_errno err;
	size_t used;

	if (c->closing || c->close_after_write)
		return n;
	used = http_parser_execute(&c->parser, &x__settings, p, n);
	err = HTTP_PARSER_ERRNO(&c->parser);
	if (err == HPE_PAUSED) {
		http_parser_pause(&c->parser, 0);
		return c->closing || c->close_after_write ? n : used;
	}
	if (err != HPE_OK) {
		x__bad(c);
		return n;
	}
	if (c->parser.upgrade) {
		/* The rest is not HTTP; the upgrade request was answered and closes. */
		if (!c->close_after_write && !c->closing) {
			c->close_after_write = true;
			if (!c->write_pending)
				rs_conn_close(c);
		}
		return n;
	}
	return used;
}

static void x__conn_init(struct rs_conn *c)
{
	http_parser_init(&c->parser, HTTP_REQUEST);
}

const struct rs_stream_proto rs_http_proto = {
	.conn_init = x__conn_init,
	.consume = x__consume,
};
