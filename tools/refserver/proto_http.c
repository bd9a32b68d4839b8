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

enum { KEEP_11, KEEP_10, CLOSE, NHDR };

#define HDR_MAX 160
#define SMALL_BODY 4096

/*
 * Built by rs_http_prepare() before the workers start; read-only afterwards. A small body is
 * stored right after its headers, so the response goes out in one write() instead of a writev().
 */
static char hdr[NHDR][HDR_MAX + SMALL_BODY];
static size_t hdr_len[NHDR];
static bool body_inline;

static const char bad_request[] = "HTTP/1.1 400 Bad Request\r\n"
				     "Content-Length: 0\r\n"
				     "Connection: close\r\n"
				     "\r\n";

int rs_http_prepare(const struct rs_config *cfg)
{
	static const char *const conn_hdr[NHDR] = {
		"",
		"Connection: keep-alive\r\n",
		"Connection: close\r\n",
	};
	int i, n;

	for (i = 0; i < NHDR; i++) {
		n = snprintf(hdr[i], HDR_MAX,
			     "HTTP/1.1 200 OK\r\n"
			     "Content-Type: text/plain\r\n"
			     "Content-Length: %zu\r\n"
			     "%s"
			     "\r\n",
			     cfg->body_len, conn_hdr[i]);
		if (n < 0 || n >= HDR_MAX)
			return -ENOBUFS;
		hdr_len[i] = (size_t)n;
	}
	body_inline = cfg->body_len <= SMALL_BODY;
	if (body_inline) {
		for (i = 0; i < NHDR; i++)
			memcpy(hdr[i] + hdr_len[i], cfg->body, cfg->body_len);
	}
	return 0;
}

static int on_message_complete(http_parser *p)
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
		h = CLOSE;
		c->close_after_write = true;
	} else {
		h = p->http_major == 1 && p->http_minor == 0 ? KEEP_10 : KEEP_11;
	}
	bufs[0] = uv_buf_init(hdr[h], (unsigned)hdr_len[h]);
	if (p->method != HTTP_HEAD && body_inline)
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

static const http_parser_settings settings = {
	.on_message_complete = on_message_complete,
};

static void bad(struct rs_conn *c)
{
	uv_buf_t buf = uv_buf_init((char *)bad_request, sizeof(bad_request) - 1);

	c->w->c.protocol_errors++;
	c->close_after_write = true;
	rs_conn_send(c, &buf, 1, true);
}

static size_t consume(struct rs_conn *c, const char *p, size_t n)
{
	enum http_errno err;
	size_t used;

	if (c->closing || c->close_after_write)
		return n;
	used = http_parser_execute(&c->parser, &settings, p, n);
	err = HTTP_PARSER_ERRNO(&c->parser);
	if (err == HPE_PAUSED) {
		http_parser_pause(&c->parser, 0);
		return c->closing || c->close_after_write ? n : used;
	}
	if (err != HPE_OK) {
		bad(c);
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

static int conn_init(struct rs_conn *c)
{
	http_parser_init(&c->parser, HTTP_REQUEST);
	return 0;
}

const struct rs_stream_proto rs_http_proto = {
	.conn_init = conn_init,
	.consume = consume,
};
