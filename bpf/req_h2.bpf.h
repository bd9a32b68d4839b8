/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2 on a target TCP port: each stream is one request, timed apart from the other streams of
 * its connection. Part of request timing (bpf/req.bpf.h), included from there only, after
 * req_tls.bpf.h (whose tls_buf() finds the bytes a read filled).
 *
 * A connection is HTTP/2 when the first bytes the server reads are the client preface (a
 * connection already TLS is not looked at: its bytes are ciphertext). From then on its reads
 * and writes are never read/write turns: each is walked frame header by frame header (9 bytes:
 * length, type, flags, stream id; nothing else is read), every buffer of a readv/writev/
 * recvmsg/sendmsg in order, and a frame cut by the end of a read (or write) is carried to the next
 * (the rest of its payload to pass over, a cut header's bytes) in the socket's own storage
 * (h2_conns). The stream table (h2_streams, indexed by a hash of the connection and the stream
 * id, RT_H2_PROBES entries tried: include/loadlens/h2.h) holds each stream the client began:
 *
 *   client HEADERS on stream S          the stream begins (an entry; the connection's open count)
 *   client END_STREAM (HEADERS, DATA)   the request has arrived: its arrival is when the bytes
 *                                       read were queued, its service begins at that read, on the
 *                                       clocks of the HTTP/1.1 path (req_tcp.bpf.h)
 *   server's first frame on S           the response begins: the request is recorded
 *   server's END_STREAM or RST_STREAM   the response is complete (several writes: multi_write)
 *   client RST_STREAM                   the stream ends unanswered (h2_client_reset)
 *   the connection closes               streams still open are unanswered
 *
 * SETTINGS, PING, WINDOW_UPDATE, PRIORITY, GOAWAY (stream 0) and the preface are no requests.
 *
 * The stream table's steps are bpf/req_h2_streams.bpf.h.
 *
 * The server's header blocks (HEADERS, CONTINUATION, PUSH_PROMISE payloads, at most
 * LL_H2_HB_MAX bytes a frame) go in order to the "h2_hb" ring buffer, where userspace decodes
 * HPACK for each response's :status and each gRPC call's grpc-status (bpf/req_h2_hb.bpf.h).
 *
 * Bounds (include/loadlens/h2.h): LL_H2_FRAMES frame headers and LL_H2_IOVS buffers a read or
 * write; a read or write with more, bytes the walk cannot read where it needs a header (sendfile
 * past the end of a frame, io_uring), or a header whose type is no frame's, lose the walk's place:
 * a gap of that direction, after which the walk resumes at a later read (write) of whole client
 * (server) frames; the streams of a gap are counted as they are answered, not timed
 * (bpf/req_h2_gap.bpf.h). Cost: one user-memory read (the window, H2_WIN bytes) where a buffer's
 * bytes are first needed and again only past it, the socket's storage per read or write, an
 * inlined array lookup per stream frame (docs/observer/tls-http2.md, "HTTP/2").
 */
#ifndef LOADLENS_REQ_H2_BPF_H
#define LOADLENS_REQ_H2_BPF_H

#include "loadlens/h2.h"

/* The walk's bound, frame headers a read or write: LL_H2_FRAMES, or fewer for a test
 * (LOADLENS_OBSERVER_H2_FRAMES; the loops stay bounded by LL_H2_FRAMES). */
const volatile __u32 targ_h2_frames = LL_H2_FRAMES;

/* each HTTP/2 connection's walk, in its socket's own storage (freed with the socket) */
LL_SK_STORAGE(h2_conns, struct rt_h2_conn);
_Static_assert(sizeof(struct rt_h2_conn) <= sizeof(ll_sk_zero), "ll_sk_zero");

LL_MAP(h2_streams, BPF_MAP_TYPE_ARRAY, RT_H2_STREAMS, __u32, struct rt_h2_stream);

/* the connections' runs of streams (include/loadlens/h2.h) */
LL_MAP(h2_runs, BPF_MAP_TYPE_ARRAY, RT_H2_RUNS, __u32, struct rt_h2_stream);

#ifndef LL_PRE_5_12
/* The walk's window on the current buffer: up to H2_WIN of its bytes, read from user memory in
 * one go where the walk first needs any (a frame header, a header block's bytes). The frame
 * headers and header blocks of a short read or write then cost one read of user memory, not one
 * each: a bpf_probe_read_user() is the walk's dearest step (~100 ns here, most of it the kernel's
 * checks of a user copy), where a header copied from the window is a few loads. Before 5.12 (the
 * compat object) there is no window: the verifier there refuses a read of the stack at a
 * variable place. */
#define H2_WIN 64
#endif

/* One read's or write's walk: the direction's carried place, and what its frames need. */
struct h2_walk {
#ifdef H2_WIN
	__u8 win[H2_WIN]; /* the window's bytes: those of the buffer from wofs, wlen of them */
	__u64 wbuf;
	__u32 wofs;
	__u32 wlen;	/* 0: nothing held */
#endif
	struct rt_h2_dir d;
	__u64 sk;
	__u64 gen;
	__u64 now;	/* the read's time, or the write's */
	__u64 arrival;	/* a read: when its bytes were queued (0: unknown) */
	__u64 accept;	/* a read: the connection's accept time, for its first stream */
	__u32 slot;
	__u32 seq0;	/* a read of the clear: the TCP sequence number of the current buffer's
			 * first byte (0: unknown) */
	__u32 off;	/* the walk's place in the current buffer */
	__u32 frames;	/* frame headers walked */
	__u32 max_sid;
	__u32 wseq;
	__s32 open;	/* streams begun less streams ended */
	__s32 open0;	/* a read: the connection's open streams before it */
	__u32 hb_seq;	/* a write: the connection's header block records so far */
	__u32 gap_lo;	/* the connection's gap (rt_h2_conn): streams above gap_lo, below gap_hi */
	__u32 gap_hi;
	__u32 wgap_sid;	/* its last write gap: the streams then begun (rt_h2_conn.wgap_sid) */
	__s32 gopen;	/* those of them ended */
	__s32 gunseen;	/* streams begun in a read gap, less those ended (rt_h2_conn.gap_unseen) */
	__u32 gap_wmax;	/* a write: the highest stream id above gap_lo it ended, gap_hi unknown */
	__u8 write;
	__u8 strict;	/* in a gap: every header must be a client's (a read) or a server's (a
			 * write), ll_h2_gap_frame() */
	__u8 dry;	/* ... and its first walk only looks: no stream is moved */
};

/* the stream table: each stream's entry (uses struct h2_walk) */
#include "req_h2_streams.bpf.h"

/* The place in the window of the n bytes at buf + off (off + n <= len, the buffer's bytes),
 * after reading the window there if it does not hold them; -1 if it cannot (the caller reads them
 * itself, as without a window). */
static __always_inline int h2_win(struct h2_walk *w, __u64 buf, __u32 off, __u32 n, __u32 len)
{
#ifdef H2_WIN
	__u32 m;

	if (w->wlen && w->wbuf == buf && off >= w->wofs && off + n <= w->wofs + w->wlen)
		return (int)(off - w->wofs);
	if (off >= len || !buf)
		return -1;
	m = len - off;
	if (m >= H2_WIN) {
		if (bpf_probe_read_user(w->win, H2_WIN, (void *)(buf + off)))
			return -1;
		m = H2_WIN;
	} else {
		barrier_var(m); /* (the mask stays: the verifier bounds the register passed) */
		m &= H2_WIN - 1;
		if (bpf_probe_read_user(w->win, m, (void *)(buf + off)))
			return -1;
	}
	w->wbuf = buf;
	w->wofs = off;
	w->wlen = m;
	return n <= m ? 0 : -1;
#else
	return -1;
#endif
}

/* the server's header blocks to the ring (uses struct h2_walk and h2_win()) */
#include "req_h2_hb.bpf.h"

#define H2_MORE 0
#define H2_DONE 1
#define H2_LOST 2

/* One frame header of the len bytes at buf (user memory), from w->off and the place w->d
 * carries: H2_MORE, H2_DONE (the bytes are walked), or H2_LOST (too many frames, unreadable
 * bytes, no frame header). A global function, all its state in *w: the walk's loop is checked
 * in a few steps. */
LL_GLOBAL int h2_step(struct h2_walk *w, __u64 buf, __u32 len)
{
	__u32 pass = 0, take = 0, sid = 0, tf = 0;
	int rc, o;
	__u8 hl;

	if (!w)
		return H2_LOST;
	if (w->d.hb_left && w->off < len)
		h2_hb_out(w, buf, w->off,
			  w->d.hb_left < len - w->off ? w->d.hb_left : len - w->off, len);
	if (ll_h2_next(&w->d, w->off < len ? len - w->off : 0, &pass, &take))
		return H2_LOST;
	w->off += pass;
	if (!take)
		return H2_DONE;
	hl = w->d.hlen;
	if (hl > 8) /* (ll_h2_next's bound, for the verifier) */
		return H2_LOST;
	take &= 15;
	o = h2_win(w, buf, w->off, take, len);
	if (o >= 0) {
#ifdef H2_WIN
		__u32 i, u = (__u32)o;

		if (take == LL_H2_HDR && u <= H2_WIN - LL_H2_HDR) {
			/* a whole header (hl 0): two loads and two stores */
			barrier_var(u);
			u &= H2_WIN - 1;
			__builtin_memcpy(w->d.hdr, &w->win[u], LL_H2_HDR);
		} else {
#pragma unroll
			for (i = 0; i < LL_H2_HDR; i++)
				if (i < take)
					w->d.hdr[(hl + i) & 15] = w->win[(o + i) & (H2_WIN - 1)];
		}
#endif
	} else if (!buf || bpf_probe_read_user(&w->d.hdr[hl], take, (void *)(buf + w->off))) {
		return H2_LOST;
	}
	w->off += take;
	rc = ll_h2_got(&w->d, take, &sid, &tf);
	if (rc <= 0)
		return rc ? H2_LOST : H2_DONE; /* a header cut by the end: the rest comes next */
	if (++w->frames > targ_h2_frames)
		return H2_LOST;
	if (w->strict && !ll_h2_gap_frame(w->d.hdr, (int)w->write))
		return H2_LOST;
	if (w->dry)
		return H2_MORE;
	if (w->write)
		h2_hb_frame(w, sid, tf, w->d.skip);
	if (ll_h2_stream_frame(sid, tf))
		h2_frame(w, sid, tf);
	return H2_MORE;
}

/* The frame headers in the len bytes at buf. Returns 0, or 1 if the walk lost its place. A
 * global function: inlined in h2_walk_io's loop over the buffers, the verifier walked its own
 * loop once a buffer (280,000 instructions, 0.3 s a program at each start; now ~30,000). Its
 * caller inlines h2_walk_io, a frame less: 6.1 refuses a chain of frames over 512 bytes. */
LL_GLOBAL int h2_walk_buf(struct h2_walk *w, __u64 buf, __u32 len)
{
	int i, rc;

	if (!w)
		return 1;
	w->off = 0;
#ifdef H2_WIN
	w->wlen = 0;
#endif
	for (i = 0; i <= LL_H2_FRAMES; i++) {
		rc = h2_step(w, buf, len);
		if (rc != H2_MORE)
			return rc == H2_LOST;
	}
	return 1;
}

/* The ret bytes of the current read or write: one buffer at base (niov 1, iov 0), or the first
 * niov buffers of the iovec array at iov; niov 0: not known (the walk goes on only if they are
 * all payload it passes over). */
static __always_inline int h2_walk_io(struct h2_walk *w, __u64 iov, __u64 base, __u32 niov,
				      __u32 ret)
{
	__u64 v[2];
	__u32 i, left = ret, n, seq0;

	if (!w)
		return 1;
	seq0 = w->seq0;
	if (!niov) {
		if (w->d.hlen || w->d.skip < ret)
			return 1;
		w->d.skip -= ret;
		return 0;
	}
	if (!iov)
		return h2_walk_buf(w, base, ret);
	for (i = 0; i < LL_H2_IOVS && i < niov && left; i++) {
		if (bpf_probe_read_user(v, sizeof(v), (void *)(iov + 16 * (__u64)i)))
			break;
		n = v[1] < left ? (__u32)v[1] : left;
		if (h2_walk_buf(w, v[0], n))
			break;
		left -= n;
		if (w->seq0) /* (the next buffer's first byte; 0 stays unknown) */
			w->seq0 += n;
	}
	w->seq0 = seq0; /* (a walk after a dry one begins at the read's first byte again) */
	return left ? 1 : 0;
}

/* The current read's or write's buffers: one at *base (returns 1), an iovec array at *iov
 * (returns its length), or 0 (sendfile, splice, io_uring: no user buffer). */
static __always_inline __u32 h2_sys_bufs(__u64 *iov, __u64 *base)
{
	struct ll_syscall sc;
	__u64 m[2];

	if (!ll_syscall(&sc))
		return 0;
	if (sc.nr == LL_NR_READ || sc.nr == LL_NR_WRITE || sc.nr == LL_NR_RECVFROM ||
	    sc.nr == LL_NR_SENDTO) {
		*base = sc.arg2;
		return 1;
	}
	if (sc.nr == LL_NR_READV || sc.nr == LL_NR_WRITEV) {
		*iov = sc.arg2;
		return (__u32)sc.arg3;
	}
	if (sc.nr != LL_NR_RECVMSG && sc.nr != LL_NR_SENDMSG)
		return 0;
	/* struct user_msghdr: msg_iov at 16, msg_iovlen at 24 */
	if (bpf_probe_read_user(m, sizeof(m), (void *)(sc.arg2 + 16)))
		return 0;
	*iov = m[0];
	return (__u32)m[1];
}

static __always_inline void h2_count_lost(struct rt_tcp_sock *s, int slot)
{
	struct rt_rec *r = rec_of(slot);

	s->h2 = 1;
	if (r)
		r->c.h2_lost++;
}

/* The connection's first reads were the client preface (conn_hello()), whose last `rest` bytes
 * begin this read: the connection is HTTP/2. Returns its walk's state, NULL if there is no
 * memory for it (then the connection is lost). */
static __always_inline struct rt_h2_conn *h2_hello(const struct sock *sk, struct rt_tcp_sock *s,
						   int slot, __u32 rest)
{
	struct rt_h2_conn *c;

	s->flags |= RT_F_H2;
	s->h2 = 0;
	REC_ADD(slot, h2_conns, 1);
	c = LL_SK_GET(h2_conns, h2_conns_hash, (void *)sk, BPF_SK_STORAGE_GET_F_CREATE);
	if (!c) {
		h2_count_lost(s, slot); /* no memory (net.core.optmem_max) */
		return NULL;
	}
	__builtin_memset(c, 0, sizeof(*c));
	c->rd.skip = rest;
	c->gen = bpf_ktime_get_ns();
	c->slot = slot;
#ifndef LL_PRE_5_12
	{
		/* its streams' own arrivals from here: the bytes queued now keep the read's */
		struct h2_arr_in in = {
			.sk = (__u64)sk,
			.gen = c->gen,
			.end = BPF_CORE_READ((struct tcp_sock *)sk, rcv_nxt),
		};

		h2_arr_claim(&in);
	}
#endif
	return c;
}

/* One read's or write's frames on connection c (the walk w set up with its times): the
 * direction's carried place in and out, the open streams. Returns 1 if the walk lost its place.
 * (Its gaps: h2_walk_gaps(), req_h2_gap.bpf.h, in the clear and over TLS.) */
static __always_inline int h2_run(struct rt_h2_conn *c, struct h2_walk *w, __u64 iov, __u64 base,
				  __u32 niov, __u32 ret)
{
	int lost;

	w->gen = c->gen;
	w->max_sid = c->max_sid; /* (a write's: which streams the client began) */
	w->gap_lo = c->gap_lo;
	w->gap_hi = c->gap_hi;
	w->wgap_sid = c->wgap_sid;
	if (w->write) {
		__builtin_memcpy(&w->d, &c->wr, sizeof(w->d));
		w->gap_wmax = c->gap_wmax;
		w->wseq = ++c->wseq;
		w->hb_seq = c->hb_seq;
	} else {
		__builtin_memcpy(&w->d, &c->rd, sizeof(w->d));
		w->open0 = c->open_rd + c->open_wr;
	}
	lost = h2_walk_io(w, iov, base, niov, ret);
	if (w->write) {
		__builtin_memcpy(&c->wr, &w->d, sizeof(w->d));
		c->hb_seq = w->hb_seq;
		c->open_wr += w->open;
		c->gap_wmax = w->gap_wmax;
	} else {
		__builtin_memcpy(&c->rd, &w->d, sizeof(w->d));
		c->max_sid = w->max_sid;
		c->gap_hi = w->gap_hi;
		c->open_rd += w->open;
	}
	if (w->gopen)
		__sync_fetch_and_add(&c->wgap_open, w->gopen);
	if (w->gunseen)
		__sync_fetch_and_add(&c->gap_unseen, w->gunseen);
	return lost;
}

/* the walk's gaps: h2_walk_gaps() (uses h2_run()) */
#include "req_h2_gap.bpf.h"

/* A read (write false) or write of an HTTP/2 connection: walk its frames. */
static __always_inline void h2_io(struct sock *sk, struct rt_tcp_sock *s, int slot, int ret,
				  bool write, bool kf)
{
	__u64 iov = 0, base = 0, after;
	struct h2_walk w = {};
	struct rt_h2_conn *c;
	__u32 n, seq = 0;

	if (s->h2) {
		REC_ADD(slot, h2_unwalked, 1);
		return;
	}
	c = LL_SK_GET(h2_conns, h2_conns_hash, sk, 0);
	if (!c) {
		h2_count_lost(s, slot);
		return;
	}
	w.sk = (__u64)sk;
	w.slot = slot;
	w.write = write;
	if (write) {
		after = s->read_ns > s->last_write_ns ? s->read_ns : s->last_write_ns;
		w.now = tcp_sent_clock(sk, after, kf);
		s->last_write_ns = w.now;
	} else {
		w.arrival = s->state == RT_QUEUED ? s->arrival_ns : 0;
		w.now = w.arrival ? tcp_clock(sk, w.arrival, kf) : bpf_ktime_get_ns();
		w.accept = s->accept_ns;
		s->read_ns = w.now;
		/* bytes still unread keep their (earliest) arrival for the next read */
		seq = LL_READ_KF(kf, struct tcp_sock, sk, copied_seq);
		if (LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt) == seq)
			s->state = RT_IDLE;
		/* bytes read before this read that no walk saw: a gap (a read that took the peer's
		 * FIN moved copied_seq one past its bytes) */
		after = seq - (__u32)ret - c->rd_seq;
		if (c->sync == RT_H2_SYNC_ON && after &&
		    !(after == 1 && sk->__sk_common.skc_state == TCP_CLOSE_WAIT))
			h2_gap(c, slot);
	}
	if (!write)
		w.seq0 = seq - (__u32)ret; /* the read's first byte */
	n = h2_sys_bufs(&iov, &base);
	h2_walk_gaps(c, &w, iov, base, n, (__u32)ret);
	if (write)
		return;
	s->accept_ns = w.accept;
	c->rd_seq = seq;
}

/* Connection c of socket sk closes: its streams still open are unanswered (their entries freed);
 * those that may have been answered in writes not walked are neither (h2_gap_unknown). */
static __always_inline void h2_conn_close(__u64 sk, struct rt_h2_conn *c)
{
	h2_hb_close(sk, c);
	h2_gap_close(c);
	if (c->open_rd + c->open_wr <= 0)
		return;
	h2_forget_open(sk, c);
	REC_ADD(c->slot, unanswered, c->open_rd + c->open_wr);
	c->open_rd = c->open_wr = 0;
}

/* The connection closes (the server's close, or CLOSE): the streams still open are unanswered. */
static __always_inline void h2_close(const struct sock *sk, struct rt_tcp_sock *s)
{
	struct rt_h2_conn *c;
	__u8 lost = s->h2;

	if (lost == 2)
		return;
	s->h2 = 2; /* closed: nothing more to walk */
	c = LL_SK_GET(h2_conns, h2_conns_hash, (void *)sk, 0);
	if (c && !lost)
		h2_conn_close((__u64)sk, c);
	else if (c)
		h2_hb_close((__u64)sk, c); /* (its streams were not followed: none counted) */
}

#endif /* LOADLENS_REQ_H2_BPF_H */
