// SPDX-License-Identifier: MIT
/*
 * Stream connections (tcp and http): accept bookkeeping, input buffering, the write path and
 * closing. Reads land in the worker's shared buffer and are consumed at once; only what cannot be
 * consumed yet (an incomplete frame, data behind a pending write) is copied into the connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "refserver.h"
#include "loadlens/dlist.h"

#define RS_BUF_KEEP (1u << 20) /* an empty buffer larger than this is freed */

static int buf_reserve(struct rs_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->off && b->off == b->len) {
		b->off = b->len = 0;
	} else if (b->off && b->len + extra > b->cap) {
		memmove(b->data, b->data + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	if (need > 2 * (size_t)RS_MAX_FRAME + RS_READ_BUF)
		return -ENOBUFS;
	cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int rs_buf_append(struct rs_buf *b, const char *p, size_t n)
{
	int err = buf_reserve(b, n);

	if (err)
		return err;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

static void buf_shrink(struct rs_buf *b)
{
	if (b->off != b->len || b->cap <= RS_BUF_KEEP)
		return;
	free(b->data);
	b->data = NULL;
	b->off = b->len = b->cap = 0;
}

void rs_buf_free(struct rs_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->off = b->len = b->cap = 0;
}

static void close_cb(uv_handle_t *h)
{
	struct rs_conn *c = container_of(h, struct rs_conn, tcp);
	struct rs_worker *w = c->w;

	LL_DLIST_UNLINK(&w->conns, c, prev, next);
	if (w->proto->conn_free)
		w->proto->conn_free(c);
	rs_buf_free(&c->in);
	rs_buf_free(&c->out);
	free(c);
}

static void conn_close(struct rs_conn *c, bool counted)
{
	if (c->closing)
		return;
	c->closing = true;
	if (counted)
		c->w->c.connections_closed++;
	uv_close((uv_handle_t *)&c->tcp, close_cb);
}

void rs_conn_close(struct rs_conn *c)
{
	conn_close(c, true);
}

void rs_conn_close_all(struct rs_worker *w)
{
	struct rs_conn *c;

	for (c = w->conns; c; c = c->next) {
		if (c->closing)
			continue;
		w->c.connections_open_at_exit++;
		conn_close(c, false);
	}
}

/* Offer the kept input to the protocol again. */
static void drain(struct rs_conn *c)
{
	struct rs_buf *b = &c->in;
	size_t used;

	if (b->off == b->len)
		return;
	used = c->w->proto->consume(c, b->data + b->off, b->len - b->off);
	if (c->closing)
		return;
	b->off += used;
	if (b->off == b->len) {
		b->off = b->len = 0;
		buf_shrink(b);
	}
}

static void feed(struct rs_conn *c, const char *p, size_t n)
{
	struct rs_buf *b = &c->in;
	size_t used;

	if (b->off == b->len) {
		used = c->w->proto->consume(c, p, n);
		if (c->closing || used == n)
			return;
		if (rs_buf_append(b, p + used, n - used))
			goto overflow;
		return;
	}
	if (rs_buf_append(b, p, n))
		goto overflow;
	drain(c);
	return;

overflow:
	c->w->c.protocol_errors++;
	rs_conn_close(c);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct rs_conn *c = container_of(h, struct rs_conn, tcp);

	*buf = uv_buf_init(c->w->rbuf, RS_READ_BUF);
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct rs_conn *c = container_of(s, struct rs_conn, tcp);
	struct rs_worker *w = c->w;

	if (nread > 0) {
		rs_trace_read(w);
		w->c.bytes_in += (uint64_t)nread;
		feed(c, buf->base, (size_t)nread);
		return;
	}
	if (nread == 0)
		return;
	if (nread != UV_EOF) {
		rs_conn_close(c);
		return;
	}
	c->eof = true;
	if (w->cfg->mb.no_close) {
		/* Leave the socket in CLOSE_WAIT until the shutdown. */
		uv_read_stop(s);
		c->leaked = true;
		w->c.connections_leaked++;
		return;
	}
	if (!c->write_pending)
		rs_conn_close(c);
}

static int conn_fd(struct rs_conn *c)
{
	uv_os_fd_t fd;

	return uv_fileno((const uv_handle_t *)&c->tcp, &fd) ? -1 : fd;
}

static void write_cb(uv_write_t *req, int status)
{
	struct rs_conn *c = container_of(req, struct rs_conn, wreq);

	c->write_pending = false;
	if (status == 0)
		c->bytes_written += c->pending_len;
	/* a response the first write call left whole */
	rs_trace_sent(c->w, conn_fd(c), c->bytes_written);
	if (c->closing)
		return;
	if (status < 0 || c->close_after_write || (c->eof && !c->w->cfg->mb.no_close)) {
		rs_conn_close(c);
		return;
	}
	if (c->eof)
		return;
	if (c->w->proto->writable)
		c->w->proto->writable(c);
	if (c->closing || c->write_pending)
		return;
	drain(c);
	if (c->closing || c->write_pending)
		return;
	if (uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb))
		rs_conn_close(c);
}

int rs_conn_send(struct rs_conn *c, const uv_buf_t *bufs, unsigned nbufs, bool stable)
{
	uv_stream_t *s = (uv_stream_t *)&c->tcp;
	uv_buf_t rest[4];
	size_t total = 0, skip;
	unsigned i, k = 0;
	int r;

	for (i = 0; i < nbufs; i++)
		total += bufs[i].len;
	c->w->c.bytes_out += total;
	r = uv_try_write(s, bufs, nbufs);
	if (r > 0) {
		c->bytes_written += (uint64_t)r;
		rs_trace_sent(c->w, conn_fd(c), c->bytes_written);
	}
	if (r >= 0 && (size_t)r == total) {
		if (c->close_after_write)
			rs_conn_close(c);
		return 0;
	}
	if (r < 0 && r != UV_EAGAIN)
		goto fail;
	skip = r < 0 ? 0 : (size_t)r;
	for (i = 0; i < nbufs && k < 4; i++) {
		if (skip >= bufs[i].len) {
			skip -= bufs[i].len;
			continue;
		}
		rest[k++] = uv_buf_init(bufs[i].base + skip, (unsigned)(bufs[i].len - skip));
		skip = 0;
	}
	if (!stable) {
		c->out.off = c->out.len = 0;
		for (i = 0; i < k; i++) {
			r = rs_buf_append(&c->out, rest[i].base, rest[i].len);
			if (r)
				goto fail;
		}
		rest[0] = uv_buf_init(c->out.data, (unsigned)c->out.len);
		k = 1;
	}
	c->pending_len = 0;
	for (i = 0; i < k; i++)
		c->pending_len += rest[i].len;
	r = uv_write(&c->wreq, s, rest, k, write_cb);
	if (r)
		goto fail;
	c->write_pending = true;
	uv_read_stop(s);
	return 0;

fail:
	rs_conn_close(c);
	return r;
}

static void leak_fds(struct rs_worker *w)
{
	uint64_t i;

	for (i = 0; i < w->cfg->mb.leak_fds; i++) {
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0)
			break;
		w->c.fds_leaked++;
	}
}

void rs_conn_accepted(struct rs_worker *w, int fd)
{
	struct rs_conn *c;

	w->c.connections_accepted++;
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		w->c.connections_closed++;
		return;
	}
	c->w = w;
	if (uv_tcp_init(&w->loop, &c->tcp)) {
		close(fd);
		free(c);
		w->c.connections_closed++;
		return;
	}
	c->next = w->conns;
	if (w->conns)
		w->conns->prev = c;
	w->conns = c;
	if (uv_tcp_open(&c->tcp, fd)) {
		close(fd);
		rs_conn_close(c);
		return;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	rs_trace_conn(w, fd);
	if (w->proto->conn_init(c)) {
		rs_conn_close(c);
		return;
	}
	leak_fds(w);
	if (uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb))
		rs_conn_close(c);
}
