// SPDX-License-Identifier: MIT
/*
 * udp:// — one datagram each way, one request in flight per slot, each slot on its own connected
 * socket (so a reply can only be for that slot).
 *
 * Matching: every request carries an id, and a reply is matched by it, never by arrival order. Our
 * own payload (no --payload, every size >= 8) starts with an 8-byte tag, "LL" and a 48-bit
 * sequence number, which an echoing server (the refserver) returns; with --payload, --id
 * OFFSET:WIDTH stamps the sequence number (big-endian, WIDTH bytes) into the payload at OFFSET,
 * where DNS and memcached's UDP frame carry their request id (udp_id.c). Each slot remembers its
 * last UDP_HIST requests, so a reply is exactly one of: the answer to the request in flight;
 * `late` (its request was already counted lost; latency kept apart); `duplicate` (its request was
 * already answered); or `unmatched` (no such request: junk, or older than the history). A request
 * counts as answered only if its reply came within --timeout of the send, whatever the sweep's
 * period.
 *
 * Without an id (--payload without --id, or --size below 8), a reply while a request is in flight
 * answers it, and one while none is, is `unmatched`; after a loss the slot takes a new socket, so a
 * late reply can never be taken for the next request's answer.
 *
 * The kernel's count of datagrams dropped on each socket because its receive buffer was full
 * (sk_drops, the counter SO_RXQ_OVFL reports) is read with SO_MEMINFO when the socket closes.
 *
 * Open loop: replies are read at the waker's wake-ups (rxset.h), not woken for: every socket
 * sits in the thread's reply set, drained after each send and before the timeout sweep, and a
 * reply is timed by the kernel's receive stamp (SO_TIMESTAMPNS), not by when it was read. A paced request then costs one wake-up instead of two, and the latency holds none
 * of the driver's own wake-up delay. The closed loop reads through libuv as each reply comes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/sock_diag.h>
#include <uv.h>
#include "config/config.h"
#include "base/drv.h"
#include "framing/frame.h"
#include "config/reqmix.h"
#include "config/request.h"
#include "scheduling/pingpong.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"
#include "udp/udp_engine.h"
#include "udp/udp_id.h"
#include "udp/udp_memcache.h"

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

#define UDP_READ_BUF (64 * 1024)
#define UDP_HIST 32 /* requests per slot remembered for late and duplicate replies */
#define UDP_RX_BATCH 32 /* open loop: datagrams read from one socket per drain */

struct udp_thread;

enum udp_req_state { UDP_FREE = 0, UDP_IN_FLIGHT, UDP_ANSWERED, UDP_LOST, UDP_LATE };

/* One request sent, remembered until UDP_HIST more have gone. */
struct udp_req {
	uint64_t id; /* as sent, masked to the id's width */
	uint64_t intended;
	uint8_t state;
	bool warm;
};

struct udp_slot {
	struct drv_slot base;
	uv_udp_t udp;
	uv_udp_send_t send_req;
	struct udp_thread *ut;
	bool open, closing, in_flight, sending;
	bool resume; /* a due request waits for the old socket to close */
	bool got; /* a datagram was read in this readiness callback (see alloc) */
	uint8_t tag[8];
	uint64_t seq;
	struct udp_req hist[UDP_HIST]; /* hist[seq % UDP_HIST] */
	struct drv_mcudp mc;	       /* memcache-udp: the reply in flight's datagrams */
	char *mbuf;		       /* --requests-file: this request's bytes */
	uint32_t rec;		       /* its record */
	bool rec_live;		       /* its outcome not yet counted */
};

struct udp_thread {
	struct drv_slot_io io; /* request bytes, read buffer */
	struct drv_udp_id id; /* where a request's id sits (udp_id.h) */
	uint64_t timeout_ns;
	/* --response dns: a reply's RCODE decides; memcache-udp: its first line (frame_ext.h) */
	const struct drv_frame_ext *frame;
	bool mc;  /* --proto memcache-udp: replies of several datagrams (udp_memcache.c) */
	const struct drv_reqmix *mix; /* --requests-file, or NULL */
	struct drv_mix_ctx mix_ctx;
};

static void transmit(struct udp_slot *u);

static inline struct drv_worker *proto_udp_w(const struct udp_slot *u)
{
	return u->base.w;
}

static inline struct drv_stats *proto_udp_st(struct udp_slot *u)
{
	return drv_worker_stats(proto_udp_w(u), &u->base.ticket);
}

static void on_close(uv_handle_t *h)
{
	struct udp_slot *u = container_of((uv_udp_t *)h, struct udp_slot, udp);

	u->open = false;
	u->closing = false;
	if (proto_udp_w(u)->stopping)
		return;
	if (u->base.done) {
		drv_slot_done(&u->base);
		return;
	}
	if (u->resume) {
		u->resume = false;
		transmit(u);
	}
}

/* Close the slot's socket, adding its receive-buffer drops to the counts. */
static void close_sock(struct udp_slot *u)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	uv_os_fd_t fd;

	if (!u->open || u->closing)
		return;
	if (!uv_fileno((uv_handle_t *)&u->udp, &fd) &&
	    !getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) &&
	    len > SK_MEMINFO_DROPS * sizeof(mem[0]))
		proto_udp_w(u)->stats.rxq_ovfl += mem[SK_MEMINFO_DROPS];
	u->closing = true;
	uv_close((uv_handle_t *)&u->udp, on_close);
}

/* --requests-file: an unanswered request's outcome, once. */
static void proto_udp_rec(struct udp_slot *u, int err)
{
	if (u->rec_live)
		drv_timing_unanswered(proto_udp_w(u), &u->base.ticket, u->rec, err);
	u->rec_live = false;
}

/* A socket error (refused, unreachable...): counted, then the next attempt after a backoff. */
static void fail(struct udp_slot *u, int err)
{
	proto_udp_rec(u, err);
	drv_slot_fail(&u->base, err, true);
	u->hist[u->seq % UDP_HIST].state = UDP_LOST;
	u->in_flight = false;
	drv_slot_retry(&u->base);
}

static void on_send(uv_udp_send_t *req, int status)
{
	struct udp_slot *u = container_of(req, struct udp_slot, send_req);

	u->sending = false;
	/* a send that failed fails its request, unless the socket was closed under it */
	if (status < 0 && status != UV_ECANCELED && !u->closing && u->in_flight)
		fail(u, status);
}

/* The request in flight got no reply within --timeout: lost. */
static void lost(struct udp_slot *u)
{
	int err = u->ut->mc && u->mc.got ? DRV_E_INCOMPLETE : DRV_E_LOST;

	proto_udp_rec(u, err);
	drv_slot_fail(&u->base, err, false);
	u->hist[u->seq % UDP_HIST].state = UDP_LOST;
	u->in_flight = false;
	if (!u->ut->id.on) /* a late reply must not answer the next request: new socket */
		close_sock(u);
}

/* A first reply to a request already counted lost. */
static void late(struct udp_slot *u, struct udp_req *r, uint64_t now)
{
	struct drv_stats *st = r->warm ? &proto_udp_w(u)->warm : &proto_udp_w(u)->stats;

	r->state = UDP_LATE;
	st->late++;
	ll_hist_record(st->late_latency, now - r->intended);
}

static void complete(struct udp_slot *u, uint64_t now, int err, int rcode)
{
	struct drv_timing_reply r = drv_timing_reply_init(u->base.t_send, now);

	u->hist[u->seq % UDP_HIST].state = UDP_ANSWERED;
	r.err = err;
	r.rcode = rcode;
	r.rec = u->rec;
	r.rec_live = u->rec_live;
	u->rec_live = false;
	drv_timing_record(proto_udp_w(u), &u->base.ticket, &r);
	drv_slot_resolved(&u->base);
	u->in_flight = false;
	drv_slot_next(&u->base);
}

/*
 * A reply (or, memcache-udp, one datagram of it) to the request in flight, in time: complete,
 * counted by its verdict (dns: RCODE, memcached: the first line), or wait for more datagrams.
 */
static void app_reply(struct udp_slot *u, const uv_buf_t *buf, size_t n, uint64_t now)
{
	const uint8_t *p = (const uint8_t *)buf->base;
	const struct drv_frame_ext *x = u->ut->frame;
	enum drv_app_verdict v = DRV_APP_OK;
	uint8_t rcode = 0;
	int r;

	if (u->ut->mc) {
		r = drv_mcudp_add(&u->mc, p, n, x);
		if (r == 2) {
			proto_udp_st(u)->duplicate++;
			return;
		}
		if (!r)
			return;
		complete(u, now, r < 0 ? r : drv_app_verdict_err(u->mc.verdict), -1);
		return;
	}
	if (x) {
		r = x->datagram(p, n, &v, &rcode);
		complete(u, now, r ? r : drv_app_verdict_err(v), r ? -1 : rcode);
		return;
	}
	complete(u, now, 0, -1);
}

static void alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct udp_slot *u = container_of((uv_udp_t *)h, struct udp_slot, udp);

	/*
	 * libuv reads a readable socket until EAGAIN: after a reply, that is one more recvmsg
	 * (about 0.5 us here, 4% of a same-CPU round trip) which nearly always fails. An empty
	 * buffer ends its loop instead (UV_ENOBUFS, no syscall); epoll is level-triggered, so a
	 * second datagram already queued is read on the next turn of the loop.
	 */
	if (u->got) {
		u->got = false;
		*buf = uv_buf_init(NULL, 0);
		return;
	}
	*buf = uv_buf_init(u->ut->io.rbuf, (unsigned int)u->ut->io.rbuf_len);
}

/* The request a reply names, or NULL if it names none this slot remembers. */
static struct udp_req *match(struct udp_slot *u, const uint8_t *p, size_t n)
{
	struct udp_req *r;
	uint64_t v;

	if (drv_udp_id_read(&u->ut->id, p, n, &v))
		return NULL;
	r = &u->hist[v % UDP_HIST];
	return r->state != UDP_FREE && r->id == v ? r : NULL;
}

/* A datagram of nread bytes in buf, received at `now` (uv_hrtime()'s clock). */
static void datagram(struct udp_slot *u, const uv_buf_t *buf, ssize_t nread, uint64_t now)
{
	struct udp_req *r;

	proto_udp_st(u)->bytes_received += (uint64_t)nread;
	if (!u->ut->id.on) {
		/* one that came before the request went (read later) answers nothing */
		if (u->in_flight && now < u->base.t_send)
			proto_udp_w(u)->stats.unmatched++;
		else if (u->in_flight && now < u->base.deadline)
			app_reply(u, buf, (size_t)nread, now);
		else if (u->in_flight) {
			lost(u);
			drv_slot_next(&u->base);
		} else
			proto_udp_w(u)->stats.unmatched++;
		return;
	}
	r = match(u, (const uint8_t *)buf->base, (size_t)nread);
	if (!r) {
		proto_udp_w(u)->stats.unmatched++;
		return;
	}
	switch (r->state) {
	case UDP_IN_FLIGHT:
		if (now < u->base.t_send) /* a clock step between stamp and read: not before the send */
			now = u->base.t_send;
		if (now < u->base.deadline) {
			app_reply(u, buf, (size_t)nread, now);
			return;
		}
		lost(u); /* the sweep had not seen it yet */
		late(u, r, now);
		drv_slot_next(&u->base);
		return;
	case UDP_LOST:
		late(u, r, now);
		return;
	default:
		(r->warm ? &proto_udp_w(u)->warm : &proto_udp_w(u)->stats)->duplicate++;
		return;
	}
}

/* A read of the closed loop: libuv's, or the blocking read's (at: when it returned; 0: now). */
static void got(struct udp_slot *u, ssize_t nread, const uv_buf_t *buf,
		const struct sockaddr *addr, uint64_t at)
{
	if (nread == UV_ENOBUFS) /* alloc ended libuv's read loop */
		return;
	if (nread < 0) {
		if (u->in_flight)
			fail(u, (int)nread);
		return;
	}
	if (!addr) /* nothing more to read for now */
		return;
	u->got = true;
	datagram(u, buf, nread, at ? at : uv_hrtime());
}

/* libuv's read, as each datagram comes (the closed loop). */
static void on_recv(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf,
		    const struct sockaddr *addr, unsigned flags)
{
	(void)flags;
	got(container_of(h, struct udp_slot, udp), nread, buf, addr, 0);
}

/*
 * The open loop's read (rxset.h): the datagrams queued on a readable socket (a memcached reply
 * may be several), each timed by the kernel, UDP_RX_BATCH at most: epoll reports the rest again.
 */
static void rx_read(struct drv_rxset *set, void *sock, const struct drv_rxclock *clk)
{
	struct udp_slot *u = sock;
	uv_os_fd_t fd;
	uint64_t t;
	ssize_t n;
	int i;

	for (i = 0; i < UDP_RX_BATCH; i++) {
		/* a reply may close the socket (a loss without ids takes a new one) */
		if (!u->open || u->closing || uv_fileno((uv_handle_t *)&u->udp, &fd))
			return;
		n = drv_rxset_recv(fd, u->ut->io.rbuf, u->ut->io.rbuf_len, clk, &t);
		if (n < 0) {
			if (n != -EAGAIN && n != -EINTR && u->in_flight)
				fail(u, (int)n); /* ICMP: refused, unreachable */
			return;
		}
		datagram(u, &(uv_buf_t){ .base = u->ut->io.rbuf, .len = (size_t)n }, n, t);
	}
}

static void proto_udp_send(struct udp_slot *u)
{
	struct udp_thread *ut = u->ut;
	struct udp_req *r;
	uv_buf_t b[3];
	unsigned nb = 0;
	uint64_t size;
	int n, err;

	u->in_flight = true;
	u->seq++;
	if (ut->mc)
		drv_mcudp_reset(&u->mc);
	if (ut->mix) {
		size = drv_reqmix_next(ut->mix, &ut->mix_ctx, u->mbuf, &u->rec);
		u->rec_live = true;
	} else {
		size = ut->io.rq.sized ? drv_request_size(&ut->io.rq) : ut->io.rq.len;
	}
	if (ut->id.on) {
		r = &u->hist[u->seq % UDP_HIST];
		r->id = drv_udp_id_stamp(&ut->id, u->seq, u->tag);
		r->intended = u->base.ticket.intended;
		r->warm = u->base.ticket.warm;
		r->state = UDP_IN_FLIGHT;
		if (ut->mix) { /* the record's own buffer: the id goes in place */
			memcpy(u->mbuf + ut->id.off, u->tag, ut->id.width);
			b[nb++] = uv_buf_init(u->mbuf, (unsigned int)size);
		} else if (ut->id.off)
			b[nb++] = uv_buf_init(ut->io.rq.buf, ut->id.off);
		if (!ut->mix)
			b[nb++] = uv_buf_init((char *)u->tag, ut->id.width);
		if (!ut->mix && size > ut->id.off + ut->id.width)
			b[nb++] = uv_buf_init(ut->io.rq.buf + ut->id.off + ut->id.width,
					      (unsigned int)(size - ut->id.off - ut->id.width));
	} else {
		b[nb++] = uv_buf_init(ut->mix ? u->mbuf : ut->io.rq.buf, (unsigned int)size);
	}
	proto_udp_st(u)->bytes_sent += size;
	drv_timing_send(&u->base, ut->timeout_ns); /* made: the datagram goes now */
	n = drv_pingpong_write(u->base.w, (uv_handle_t *)&u->udp, b, nb);
	if (n == UV_ENOSYS)
		n = uv_udp_try_send(&u->udp, b, nb, NULL);
	if (n >= 0) {
		drv_pingpong_sent(&u->base, (uv_handle_t *)&u->udp); /* out: its reply */
		return;
	}
	if (n != UV_EAGAIN) {
		fail(u, n);
		return;
	}
	err = uv_udp_send(&u->send_req, &u->udp, b, nb, NULL, on_send);
	if (err) {
		fail(u, err);
		return;
	}
	u->sending = true;
}

static int proto_udp_open(struct udp_slot *u)
{
	struct drv_worker *w = proto_udp_w(u);
	int err;

	err = uv_udp_init_ex(&w->loop, &u->udp, w->cfg->addr.ss_family);
	if (err)
		return err;
	u->open = true;
	if (w->cfg->nsources) { /* --source-addr: round-robin over the local addresses */
		err = uv_udp_bind(&u->udp,
				  (const struct sockaddr *)&w->cfg->sources[u->base.idx %
									 w->cfg->nsources],
				  0);
		if (err)
			return err;
	}
	if (w->cfg->rcvbuf) { /* what the kernel gave (half of what it reports), for the summary */
		int v = (int)w->cfg->rcvbuf;

		err = uv_recv_buffer_size((uv_handle_t *)&u->udp, &v);
		v = 0;
		if (!err)
			err = uv_recv_buffer_size((uv_handle_t *)&u->udp, &v);
		if (err)
			return err;
		if (!w->stats.rcvbuf || (uint64_t)v / 2 < w->stats.rcvbuf)
			w->stats.rcvbuf = (uint64_t)v / 2;
	}
	err = uv_udp_connect(&u->udp, (const struct sockaddr *)&w->cfg->addr);
	if (!err)
		err = u->ut->io.rxset.epfd >= 0
			      ? drv_rxset_add(&u->ut->io.rxset, (uv_handle_t *)&u->udp, u)
			      : uv_udp_recv_start(&u->udp, alloc, on_recv);
	return err; /* on error the socket stays open; it is closed at stop */
}

/* Open the slot's socket if it has none, then send the request taken. */
static void transmit(struct udp_slot *u)
{
	int err;

	if (u->closing) { /* the old socket goes first */
		u->resume = true;
		return;
	}
	if (!u->open) {
		proto_udp_st(u)->connect_attempts++;
		err = proto_udp_open(u);
		if (err) {
			close_sock(u);
			fail(u, err);
			return;
		}
		drv_counter_add(&proto_udp_st(u)->connections, 1);
	}
	proto_udp_send(u);
}

/* The slot operations (slot.h). */

static int slot_init(struct drv_slot *s)
{
	struct udp_slot *u = container_of(s, struct udp_slot, base);

	u->ut = s->w->proto_data;
	u->seq = (uint64_t)(s->w->first_slot + s->idx) << 32;
	if (u->ut->mix) {
		u->mbuf = malloc(u->ut->mix->max_len);
		if (!u->mbuf)
			return -ENOMEM;
	}
	return 0;
}

static void slot_release(struct drv_slot *s)
{
	free(container_of(s, struct udp_slot, base)->mbuf);
}

static void slot_go(struct drv_slot *s)
{
	transmit(container_of(s, struct udp_slot, base));
}

static void slot_expire(struct drv_slot *s)
{
	struct udp_slot *u = container_of(s, struct udp_slot, base);

	if (!u->in_flight)
		return;
	lost(u);
	drv_slot_next(s);
}

static void slot_stop(struct drv_slot *s)
{
	struct udp_slot *u = container_of(s, struct udp_slot, base);

	u->in_flight = false;
	u->resume = false;
	close_sock(u);
}

static void slot_finish(struct drv_slot *s)
{
	struct udp_slot *u = container_of(s, struct udp_slot, base);

	if (u->open)
		close_sock(u); /* its close callback reports the slot done */
	else
		drv_slot_done(s);
}

/* The closed loop's blocking read (pingpong.h): the socket, once the datagram is out. */
static uv_handle_t *slot_awaited(struct drv_slot *s)
{
	struct udp_slot *u = container_of(s, struct udp_slot, base);

	if (!u->in_flight || u->sending || !u->open || u->closing)
		return NULL;
	return (uv_handle_t *)&u->udp;
}

/* What it read: on_recv's path, from a connected socket (every datagram is the server's). */
static void slot_received(struct drv_slot *s, ssize_t n, uint64_t at)
{
	struct udp_slot *u = container_of(s, struct udp_slot, base);

	got(u, n, &(uv_buf_t){.base = u->ut->io.rbuf, .len = n > 0 ? (size_t)n : 0},
	    (const struct sockaddr *)&proto_udp_w(u)->cfg->addr, at);
	u->got = false; /* that read was not libuv's */
}

static const struct drv_slot_ops slot_ops = {
	.size = sizeof(struct udp_slot), .init = slot_init, .go = slot_go,
	.finish = slot_finish, .expire = slot_expire, .stop = slot_stop,
	.release = slot_release, .awaited = slot_awaited, .received = slot_received,
};

/* The thread's part: request bytes, read buffer, where the id sits. */
static int init(struct drv_worker *w)
{
	const struct drv_config *cfg = w->cfg;
	struct udp_thread *ut;
	int err = drv_slot_io_new(w, sizeof(*ut), UDP_READ_BUF, rx_read);

	if (err)
		return err;
	ut = w->proto_data;
	ut->timeout_ns = cfg->timeout_ns;
	ut->frame = drv_frame_ext_for(cfg->resp_rule); /* --response dns, memcache-udp */
	if (ut->frame && !ut->frame->datagram)
		ut->frame = NULL;
	ut->mc = cfg->mc_udp;
	ut->mix = cfg->mix;
	if (ut->mix)
		drv_mix_ctx_init(&ut->mix_ctx, cfg, w->id, (uint32_t)cfg->threads);
	drv_udp_id_init(&ut->id, cfg, &ut->io.rq);
	return drv_timing_init(w);
}

const struct drv_proto drv_proto_udp = {
	.name = "udp", .init = init, .slot = &slot_ops, .stop = drv_slot_io_stop,
	.fini = drv_slot_io_fini,
};
