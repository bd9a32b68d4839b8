// SPDX-License-Identifier: MIT
/* -P N pipelining on a TCP connection (proto_tcp_pipe.h). */
#include <stdlib.h>
#include <uv.h>
#include "config/config.h"
#include "base/drv.h"
#include "framing/response.h"
#include "protocols/proto_tcp_pipe.h"
#include "protocols/tcp_conn.h"
#include "config/reqmix.h"
#include "config/request.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

/*
 * -P N: up to N requests in flight on one connection, answered in order. Each request is its own
 * ticket from the pacer (so -n and --rate count requests), queued in c->q with its own send
 * time; the slot takes the next ticket as soon as the queue has room, and a response completes
 * the oldest. A broken connection fails every request in flight, each counted.
 */

static inline struct tcp_pend *head(struct tcp_conn *c)
{
	return &c->q[c->qhead];
}

void drv__tcp_pipe_fail(struct tcp_conn *c, int err)
{
	struct drv_worker *w = c->sc.base.w;
	struct tcp_pend *e;

	for (; c->qlen; c->qlen--, c->qhead = (c->qhead + 1) % c->tt->pipeline) {
		e = head(c);
		drv_worker_error(w, &e->ticket, err);
		if (e->rec_live)
			drv_timing_unanswered(w, &e->ticket, e->rec, err);
		e->rec_live = false;
	}
	c->niov = c->nbatch = 0;
	c->sc.base.deadline = 0;
	if (c->sc.connecting) /* the ticket that was connecting: counted, then a backoff */
		drv_slot_fail(&c->sc.base, err, true);
	c->tt->drop(c);
}

static void pipe_on_write(uv_write_t *req, int status)
{
	struct tcp_pend *e = container_of(req, struct tcp_pend, wreq);
	struct tcp_conn *c = e->c;
	uint32_t P = c->tt->pipeline, i = (uint32_t)(e - c->q), k;

	for (k = 0; k < e->wcount; k++)
		c->q[(i + P - k) % P].writing = false;
	if (status == UV_ECANCELED || c->sc.closing)
		return;
	if (status < 0)
		drv__tcp_pipe_fail(c, status);
}

/* Write the batch: at once if the socket takes it, else the rest through one uv_write. */
static void flush(struct tcp_conn *c)
{
	uint32_t P = c->tt->pipeline, k = 0, last;
	size_t total = 0, done;
	struct tcp_pend *e;
	int n, err;

	if (!c->nbatch)
		return;
	if (!c->sc.open || c->sc.closing) {
		c->niov = c->nbatch = 0;
		return;
	}
	for (k = 0; k < c->niov; k++)
		total += c->iov[k].len;
	/* while an earlier batch is queued, libuv answers EAGAIN: the order is kept */
	n = uv_try_write((uv_stream_t *)&c->sc.tcp, c->iov, c->niov);
	if (n == (int)total) {
		c->niov = c->nbatch = 0;
		return;
	}
	if (n < 0 && n != UV_EAGAIN) {
		drv__tcp_pipe_fail(c, n);
		return;
	}
	done = n < 0 ? 0 : (size_t)n;
	for (k = 0; done >= c->iov[k].len; k++)
		done -= c->iov[k].len;
	c->iov[k] = uv_buf_init(c->iov[k].base + done, c->iov[k].len - (unsigned int)done);
	last = (c->batch_first + c->nbatch - 1) % P;
	e = &c->q[last];
	e->wcount = c->nbatch;
	for (n = 0; n < (int)c->nbatch; n++)
		c->q[(c->batch_first + (uint32_t)n) % P].writing = true;
	err = uv_write(&e->wreq, (uv_stream_t *)&c->sc.tcp, c->iov + k, c->niov - k,
		       pipe_on_write);
	c->niov = c->nbatch = 0;
	if (err)
		drv__tcp_pipe_fail(c, err);
}

void drv__tcp_pipe_send(struct tcp_conn *c)
{
	struct tcp_thread *tt = c->tt;
	uint32_t i = (c->qhead + c->qlen) % tt->pipeline;
	struct tcp_pend *e = &c->q[i];
	unsigned nb;
	uv_buf_t b[2];
	size_t total;

	e->ticket = c->sc.base.ticket;
	e->t_send = drv_timing_send(&c->sc.base, tt->th.timeout_ns);
	e->deadline = c->sc.base.deadline;
	e->c = c;
	e->writing = false;
	if (!c->qlen) {
		drv_frame_reset(&tt->rule, &c->frame);
		c->rx = 0;
	}
	c->qlen++;
	c->in_flight = true;
	c->sc.base.pending = false; /* the ticket is the queue's now */
	c->sc.base.deadline = head(c)->deadline;
	nb = drv__tcp_request(tt, tt->mix ? c->mbuf + (size_t)i * tt->mix->max_len : NULL, e->lp,
			      &e->rec, &e->rec_live, b);
	total = b[0].len + (nb > 1 ? b[1].len : 0);
	tcp_conn_stats(c)->bytes_sent += total;
	/* into the batch: requests taken in one go are written in one call on the way out */
	if (!c->nbatch)
		c->batch_first = i;
	c->nbatch++;
	c->iov[c->niov++] = b[0];
	if (nb > 1)
		c->iov[c->niov++] = b[1];
	c->depth++;
	if (c->qlen < tt->pipeline && !c->sc.base.done && !c->sc.base.pending &&
	    drv_stream_alive(&c->sc))
		drv_slot_next(&c->sc.base);
	if (!--c->depth)
		flush(c);
}

/* The oldest request's response is complete: false if the connection is going. */
static bool pipe_done(struct tcp_conn *c)
{
	struct tcp_pend *e = head(c);
	uint64_t at = drv_timing_reply_at(e->t_send, c->sc.t_rx);
	struct drv_timing_reply r = drv_timing_reply_init(e->t_send, at);

	if (e->writing) { /* an answer before the whole request was written */
		drv__tcp_pipe_fail(c, DRV_E_MALFORMED);
		return false;
	}
	drv__tcp_outcome(c->tt, &c->frame, &r);
	r.rec = e->rec;
	r.rec_live = e->rec_live;
	e->rec_live = false;
	drv_timing_record(c->sc.base.w, &e->ticket, &r);
	c->qhead = (c->qhead + 1) % c->tt->pipeline;
	c->qlen--;
	c->on_conn++;
	if (!c->frame.keep_alive) { /* the rest will not be answered on this connection */
		if (c->qlen)
			drv__tcp_pipe_fail(c, DRV_E_SHORT);
		else
			drv_stream_close(&c->sc);
		return false;
	}
	if (c->qlen) {
		drv_frame_reset(&c->tt->rule, &c->frame);
		c->rx = 0;
		c->sc.base.deadline = head(c)->deadline;
	} else {
		c->in_flight = false;
		c->sc.base.deadline = 0;
	}
	if (c->finishing && !c->qlen) {
		drv_stream_close(&c->sc); /* its close callback reports the slot done */
		return false;
	}
	if (!c->sc.base.pending && !c->sc.base.done)
		drv_slot_next(&c->sc.base);
	return drv_stream_alive(&c->sc);
}

static void proto_tcp_pipe_read(struct tcp_conn *c, const char *p, size_t n)
{
	size_t used;
	int err;

	while (n) {
		if (!c->qlen) { /* bytes nobody asked for */
			drv__tcp_pipe_fail(c, DRV_E_MALFORMED);
			return;
		}
		err = drv_frame_feed_some(&c->tt->rule, &c->frame, p, n, &used);
		if (err) {
			drv__tcp_pipe_fail(c, err);
			return;
		}
		c->rx += used;
		p += used;
		n -= used;
		if (c->frame.done && !pipe_done(c))
			return;
	}
}

void drv__tcp_pipe_read(struct tcp_conn *c, const char *p, size_t n)
{
	c->depth++; /* the requests its responses make room for go out in one write */
	proto_tcp_pipe_read(c, p, n);
	if (!--c->depth)
		flush(c);
}

void drv__tcp_pipe_eof(struct tcp_conn *c, ssize_t nread)
{
	if (nread == UV_EOF && !c->qlen) {
		drv_stream_close(&c->sc); /* the server closed an idle connection: reopen quietly */
		return;
	}
	if (nread == UV_EOF && c->rx && !drv_frame_eof(&c->tt->rule, &c->frame)) {
		c->frame.keep_alive = false;
		pipe_done(c);
		return;
	}
	drv__tcp_pipe_fail(c, nread == UV_EOF ? DRV_E_SHORT : (int)nread);
}

