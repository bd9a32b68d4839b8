// SPDX-License-Identifier: MIT
/* The stream-connection base (stream_conn.h). */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include "base/drv.h"
#include "config/config.h"
#include "protocols/stream_conn.h"

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

static void alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct drv_stream_thread *th = drv_stream_th(container_of(h, struct drv_stream, tcp));

	buf->base = th->io.rbuf;
	buf->len = th->io.rbuf_len;
}

static bool alive(const uv_stream_t *h)
{
	return drv_stream_alive(container_of(h, struct drv_stream, tcp));
}

/* The open loop's read (rxset.h): what a readable connection holds, timed by the kernel. */
static void rx_read(struct drv_rxset *set, void *sock, const struct drv_rxclock *clk)
{
	struct drv_stream *s = sock;
	struct drv_stream_thread *th = container_of(set, struct drv_stream_thread, io.rxset);

	drv_rxset_read_stream((uv_stream_t *)&s->tcp,
			      uv_buf_init(th->io.rbuf, (unsigned int)th->io.rbuf_len), clk,
			      &s->t_rx, th->ops->read, alive);
}

int drv_stream_thread_new(struct drv_worker *w, size_t size, size_t rbuf_len,
			  const struct drv_stream_ops *ops)
{
	struct drv_stream_thread *th;
	int err = drv_slot_io_new(w, size, rbuf_len, rx_read);

	if (err)
		return err;
	th = w->proto_data;
	th->ops = ops;
	th->timeout_ns = w->cfg->timeout_ns;
	return 0;
}

void drv_stream_drain(struct drv_stream *s)
{
	struct drv_stream_thread *th = drv_stream_th(s);
	struct drv_rxclock clk;

	if (th->io.rxset.epfd < 0 || !drv_stream_alive(s) || s->connecting)
		return;
	drv_rxset_clock(&clk);
	rx_read(&th->io.rxset, s, &clk);
}

static void on_close(uv_handle_t *h)
{
	struct drv_stream *s = container_of(h, struct drv_stream, tcp);

	s->open = false;
	s->closing = false;
	if (!s->base.w->stopping)
		drv_stream_th(s)->ops->closed(s);
}

void drv_stream_close(struct drv_stream *s)
{
	if (!drv_stream_alive(s))
		return;
	s->closing = true;
	s->connecting = false;
	s->base.deadline = 0;
	if (drv_stream_th(s)->ops->closing)
		drv_stream_th(s)->ops->closing(s);
	uv_close((uv_handle_t *)&s->tcp, on_close);
}

void drv_stream_finish(struct drv_stream *s)
{
	if (s->open)
		drv_stream_close(s);
	else
		drv_slot_done(&s->base);
}

static void on_write(uv_write_t *req, int status)
{
	struct drv_stream *s = container_of(req, struct drv_stream, write_req);
	const struct drv_stream_ops *ops = drv_stream_th(s)->ops;

	s->writing = false;
	if (status == UV_ECANCELED || s->closing)
		return;
	if (status < 0)
		ops->fail(s, status);
	else if (ops->written)
		ops->written(s);
}

int drv_stream_write_rest(struct drv_stream *s, const uv_buf_t *b, unsigned int nb)
{
	int err = uv_write(&s->write_req, (uv_stream_t *)&s->tcp, b, nb, on_write);

	if (!err)
		s->writing = true;
	return err;
}

int drv_stream_write_pend(struct drv_stream *s, struct drv_stream_out *o)
{
	struct drv_buf t;
	uv_buf_t b;
	int n;

	if (s->writing || !o->pend.len)
		return 0;
	b = uv_buf_init(o->pend.p, (unsigned int)o->pend.len);
	n = uv_try_write((uv_stream_t *)&s->tcp, &b, 1);
	if (n < 0 && n != UV_EAGAIN)
		return n;
	drv_stream_stats(s)->bytes_sent += o->pend.len;
	if (n == (int)o->pend.len) {
		o->pend.len = 0;
		return 0;
	}
	t = o->out; /* the rest from out, which no write holds now; pend starts empty */
	o->out = o->pend;
	o->pend = t;
	o->pend.len = 0;
	n = n < 0 ? 0 : n;
	b = uv_buf_init(o->out.p + n, (unsigned int)(o->out.len - (size_t)n));
	o->out.len = 0;
	return drv_stream_write_rest(s, &b, 1);
}

void drv_stream_out_free(struct drv_stream_out *o)
{
	free(o->out.p);
	free(o->pend.p);
	o->out = o->pend = (struct drv_buf){0};
}

/* The connection is up: its bytes are read through the thread's reply set, or by libuv. */
static int read_start(struct drv_stream *s)
{
	struct drv_stream_thread *th = drv_stream_th(s);

	if (th->io.rxset.epfd < 0)
		return uv_read_start((uv_stream_t *)&s->tcp, alloc, th->ops->read);
	return drv_rxset_add(&th->io.rxset, (uv_handle_t *)&s->tcp, s);
}

static void on_connect(uv_connect_t *req, int status)
{
	struct drv_stream *s = container_of(req, struct drv_stream, connect_req);
	const struct drv_stream_ops *ops = drv_stream_th(s)->ops;
	int err;

	if (status == UV_ECANCELED || s->closing)
		return;
	if (status < 0) {
		ops->fail(s, status);
		return;
	}
	(void)uv_tcp_nodelay(&s->tcp, 1); /* best effort: latency, not correctness */
	err = read_start(s);
	if (err)
		ops->fail(s, err);
	else
		ops->connected(s);
}

void drv_stream_up(struct drv_stream *s)
{
	struct drv_stats *st = drv_stream_stats(s);

	drv_counter_add(&st->connections, 1);
	ll_hist_record(st->connect, uv_hrtime() - s->t_op);
}

/* --source-addr: bind to the next local address, the port chosen at connect time. */
static int bind_source(struct drv_stream *s)
{
	const struct drv_config *cfg = s->base.w->cfg;
	unsigned int i = drv_stream_th(s)->src_next++ % cfg->nsources;
	const struct sockaddr_storage *src = &cfg->sources[i];
	uv_os_fd_t fd;
	int one = 1, err;

	err = uv_fileno((uv_handle_t *)&s->tcp, &fd);
	if (err)
		return err;
	(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	return uv_tcp_bind(&s->tcp, (const struct sockaddr *)src, 0);
}

void drv_stream_connect(struct drv_stream *s)
{
	struct drv_worker *w = s->base.w;
	struct drv_stream_thread *th = drv_stream_th(s);
	int err;

	s->connecting = true;
	err = uv_tcp_init_ex(&w->loop, &s->tcp, w->cfg->addr.ss_family);
	if (err) { /* no handle to close: the engine retries after a backoff */
		th->ops->fail(s, err);
		return;
	}
	s->open = true;
	drv_stream_stats(s)->connect_attempts++;
	s->t_op = uv_hrtime();
	s->base.deadline = s->t_op + th->timeout_ns;
	drv_worker_sweep_by(w, s->base.deadline);
	err = w->cfg->nsources ? bind_source(s) : 0;
	if (!err)
		err = uv_tcp_connect(&s->connect_req, &s->tcp,
				     (const struct sockaddr *)&w->cfg->addr, on_connect);
	if (err)
		th->ops->fail(s, err);
}
