/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2 on a target TCP port: each stream is one request, timed apart from the other streams of
 * its connection. Part of request timing (bpf/req.bpf.h), whose request path hands it the
 * reads and writes of the connections it claimed (h2_hello()).
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
 * Built in layers: the connection's state and the walk's (req_h2_conn.bpf.h), the stream table's
 * steps (req_h2_streams.bpf.h), the header blocks (req_h2_hb.bpf.h), the walk
 * (req_h2_walk.bpf.h), its gaps (req_h2_gap.bpf.h), each stream's arrival
 * (req_h2_arrivals.bpf.h); this file, the connection's events.
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

#include "req_tcp.bpf.h"
#include "req_h2_gap.bpf.h"
#include "req_h2_arrivals.bpf.h"

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
	arr_claim(sk, c->gen); /* its streams' own arrivals from here */
	return c;
}

/* A read (write false) or write of an HTTP/2 connection: walk its frames. */
static __always_inline void h2_io(struct sock *sk, struct rt_tcp_sock *s, int slot, int ret,
				  bool write, bool kf)
{
	__u64 iov = 0, base = 0, after;
	struct h2_walk ws = {}, *w;
	struct rt_h2_conn *c;
	__u32 n, seq = 0;

	if (s->h2) {
		REC_ADD(slot, h2_unwalked, 1);
		return;
	}
	c = LL_SK_GET(h2_conns, h2_conns_hash, sk, 0);
	w = h2_walk_new(&ws);
	if (!c || !w) {
		h2_count_lost(s, slot);
		return;
	}
	w->sk = (__u64)sk;
	w->slot = slot;
	w->write = write;
	if (write) {
		after = s->read_ns > s->last_write_ns ? s->read_ns : s->last_write_ns;
		w->now = tcp_sent_clock(sk, after, kf);
		s->last_write_ns = w->now;
	} else {
		w->arrival = s->state == RT_QUEUED ? s->arrival_ns : 0;
		w->now = w->arrival ? tcp_clock(sk, w->arrival, kf) : bpf_ktime_get_ns();
		w->accept = s->accept_ns;
		s->read_ns = w->now;
		/* bytes still unread keep their (earliest) arrival for the next read */
		seq = LL_READ_KF(kf, struct tcp_sock, sk, copied_seq);
		if (LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt) == seq)
			s->state = RT_IDLE;
		/* bytes read before this read that no walk saw: a gap (a read that took the peer's
		 * FIN moved copied_seq one past its bytes). Under kTLS the sequence numbers count
		 * the records, not the plaintext read: neither gaps nor each stream's own arrival
		 * are told by them (a stream's arrival is its read's) */
		after = seq - (__u32)ret - c->rd_seq;
		if (s->flags & RT_F_KTLS)
			seq = after = 0;
		if (c->sync == RT_H2_SYNC_ON && after &&
		    !(after == 1 && sk->__sk_common.skc_state == TCP_CLOSE_WAIT))
			h2_gap(c, slot);
	}
	if (!write && seq)
		w->seq0 = seq - (__u32)ret; /* the read's first byte */
	n = h2_sys_bufs(&iov, &base);
	h2_walk_gaps(c, w, iov, base, n, (__u32)ret);
	if (write)
		return;
	s->accept_ns = w->accept;
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
