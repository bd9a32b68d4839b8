/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * The lean hooks' read (observer/kernel/lean.h; include/loadlens/reqtime.h, rt_lean_arrival()):
 * a plain TCP request begun at tcp:tcp_rcv_space_adjust, where neither sk_data_ready nor
 * sock_recv_length need be attached. Part of request timing (bpf/req.bpf.h), built on the parts it
 * uses (TCP turns, payload sampling, the TLS and HTTP/2 first bytes: req_hello.bpf.h). Also the
 * marks the writes leave for it, and the copy hook alone's (solo_*), which the request path calls.
 */
#ifndef LOADLENS_REQ_LEAN_BPF_H
#define LOADLENS_REQ_LEAN_BPF_H

#include "conn.bpf.h"
#include "req_runq.bpf.h"
#include "req_hello.bpf.h"
#include "req_turns.bpf.h"
#include "payload.bpf.h"

/* The lean hooks (observer/kernel/lean.h): the writes leave marks (set before the copy hook is
 * attached, so that a connection's next read finds one). LEAN_OVERLAP: and the full hooks are
 * attached too (--lean auto's start, the switches' overlaps): TLS and HTTP/2 connections are
 * theirs, and the copy hook leaves them alone. */
#define LEAN_OVERLAP 2
volatile __u8 lean_marks;

/* The copy hook alone (observer/kernel/lean.h): 1 while the reads leave the marks its next read
 * needs (solo_mark, solo_out), 2 once the send hook is detached */
volatile __u8 lean_solo;

/* A response's write leaves the lean hooks' mark: where the next request will begin, and what
 * came meanwhile. */
static __always_inline void lean_mark_write(const struct sock *sk, struct rt_tcp_sock *s, bool kf)
{
	s->accept_ns = rt_lean_mark(LL_READ_KF(kf, struct tcp_sock, sk, copied_seq),
				    LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt),
				    LL_READ_KF(kf, struct tcp_sock, sk, data_segs_in));
}

/*
 * tcp:tcp_rcv_space_adjust, the lean hooks' read: recvmsg copied an skb of a target socket to the
 * reader. The first copy after a response begins the next request (later ones are more of it);
 * its arrival is the arrival hook's if that is attached (the switch's overlap), else
 * rt_lean_arrival()'s from TCP's clock and the last write's mark. A MSG_PEEK copy moves no
 * copied_seq: not a read. TLS and HTTP/2 connections are not followed: counted, not timed.
 */
/* The copy hook read HTTP/2 connection c's bytes: counted once a connection (the observer then
 * goes back to every hook). */
static __always_inline void lean_h2(struct rt_h2_conn *c)
{
	if (!c || c->lean_seen)
		return;
	c->lean_seen = 1;
	global_add(RT_G_LEAN_MISSED, 1);
}

/* Leave the read's marks: where the next request will begin, and the segments out so far. */
static __always_inline void solo_mark(const struct sock *sk, struct rt_tcp_sock *s,
				      __u32 copied_seq, __u32 segs_in, bool kf)
{
	s->solo_mark = rt_lean_mark(copied_seq, LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt),
				    segs_in);
	s->solo_out = LL_READ_KF(kf, struct tcp_sock, sk, data_segs_out);
}

/*
 * A plain TCP request read under the copy hook alone (RT_READING, its marks left): if data went
 * out since (data_segs_out moved), its response did. Record it (timed by rt_solo_write(), else
 * counted untimed), and leave the entry as a write would have: RT_WRITING, its last write's
 * time the one known (or the clock: the next arrival is not known then), the read's mark for the
 * next read. false: nothing went out; the request is still being read.
 */
static __always_inline bool solo_answered(const struct sock *sk, struct rt_tcp_sock *s, int slot,
					  bool kf)
{
	__u32 out = LL_READ_KF(kf, struct tcp_sock, sk, data_segs_out) - s->solo_out;
	__u32 in_segs = (LL_READ_KF(kf, struct tcp_sock, sk, data_segs_in) -
			 (__u32)(s->solo_mark >> 32)) & 0xffff;
	__u64 clock = LL_READ_KF(kf, struct tcp_sock, sk, tcp_clock_cache), mark = s->solo_mark;
	__u64 w;

	if (!out || mark >> 56 != RT_LEAN_TAG) /* (no marks: read before they were left) */
		return false;
	w = rt_solo_write(out, in_segs, sk->__sk_common.skc_state == TCP_CLOSE_WAIT,
			  LL_READ_KF(kf, struct tcp_sock, sk, tcp_wstamp_ns), clock, s->read_ns);
	if (w)
		record(sk, slot, false, s->arrival_ns, s->accept_ns, s->read_ns, w);
	else
		record_untimed(slot);
	s->write_ns = w ? w : clock;
	s->last_write_ns = s->write_ns;
	s->accept_ns = mark;
	s->state = RT_WRITING;
	return true;
}

static __always_inline void tcp_copied(struct sock *sk, bool kf)
{
	struct rt_lean_in in;
	struct rt_h2_conn *c;
	struct rt_tcp_sock *s;
	__u32 kind, bytes, multi, rcv_nxt, n = 0, m = 0;
	__u64 arrival, now, ubuf = 0;
	bool udp = false;
	int slot, hello;

	/* marks off: the copy hook is on its way out (its detach is asynchronous), and the full
	 * hooks alone own every connection, TLS and HTTP/2 ones from their first read */
	if (!lean_marks)
		return;
	slot = sock_slot(sk, &udp);
	if (slot < 0 || udp)
		return;
	s = tcp_owned(sk, &slot, true);
	if (!s || (s->flags & RT_F_FOREIGN))
		return;
	if (s->state == RT_READING) {
		/* more of the same request, unless the copy hook alone saw no response go */
		if (!lean_solo || (s->flags & (RT_F_TLS | RT_F_H2 | RT_F_KTLS)))
			return;
		if (!solo_answered(sk, s, slot, kf)) {
			solo_mark(sk, s, LL_READ_KF(kf, struct tcp_sock, sk, copied_seq),
				  LL_READ_KF(kf, struct tcp_sock, sk, data_segs_in), kf);
			return;
		}
	}
	in.first = !(s->flags & RT_F_SEEN_READ);
	in.mark = s->state == RT_WRITING ? s->accept_ns : 0;
	in.copied_seq = LL_READ_KF(kf, struct tcp_sock, sk, copied_seq);
	if (in.mark >> 56 == RT_LEAN_TAG && in.copied_seq == (__u32)in.mark)
		return; /* a peek */
	/* the full hooks attached too: TLS and HTTP/2 connections are wholly theirs */
	if ((s->flags & (RT_F_H2 | RT_F_TLS)) && lean_marks == LEAN_OVERLAP)
		return;
	if (s->flags & RT_F_H2) {
		/* its reads are sock_recv_length's (a read it misses is a gap there) */
		lean_h2(LL_SK_GET(h2_conns, h2_conns_hash, (void *)sk, 0));
		return;
	}
	/* kTLS: the sequence numbers count its records, and its reads take records that are no
	 * requests (the client's close_notify): only sock_recv_length follows it */
	if ((s->flags & RT_F_KTLS) && lean_marks == LEAN_OVERLAP)
		return;
	if (s->flags & (RT_F_TLS | RT_F_KTLS)) {
		/* begun under the full hooks: its reads are theirs */
		s->flags |= RT_F_FOREIGN;
		global_add(RT_G_LEAN_MISSED, 1);
		return;
	}
	/* a connection's first read only: what it consumed, and whether it sent first (lines the
	 * softirq on the client's CPU wrote: not loaded on every request) */
	in.consumed = 0;
	in.data_segs_out = 0;
	if (in.first) {
		rcv_nxt = LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt);
		in.consumed = LL_READ_KF(kf, struct tcp_sock, sk, bytes_received) -
			      (__u32)(rcv_nxt - in.copied_seq);
		if (!in.consumed)
			return; /* a peek */
		in.data_segs_out = LL_READ_KF(kf, struct tcp_sock, sk, data_segs_out);
	}
	in.clock = LL_READ_KF(kf, struct tcp_sock, sk, tcp_clock_cache);
	in.after = s->state == RT_WRITING ? s->last_write_ns : s->read_ns;
	in.data_segs_in = LL_READ_KF(kf, struct tcp_sock, sk, data_segs_in);
	in.peer_fin = sk->__sk_common.skc_state == TCP_CLOSE_WAIT;
	arrival = rt_lean_arrival(&in, &kind, &bytes, &multi);
	/* a TLS ClientHello or the HTTP/2 preface: the copy hook cannot follow those (their reads
	 * are walked whole at sock_recv_length). An HTTP/2 connection's walk begins in a gap: this
	 * read's frames are not walked, the writes' are, and its reads are walked again from the
	 * first that sock_recv_length sees beginning with a frame. */
	if (in.first) {
		/* pieces of the HTTP/2 preface the full hooks saw (s->h2, their count) and follow:
		 * the rest is theirs too (bytes here are the connection's so far, not this read's) */
		m = s->flags & (RT_F_H2 | RT_F_TLS) ? 0 : s->h2;
		if (m)
			return;
		hello = first_bytes((int)bytes, 0, &ubuf, &n, &m);
		/* the full hooks attached too: the read is theirs, at sock_recv_length */
		if (hello != RT_HELLO_NONE && lean_marks == LEAN_OVERLAP)
			return;
		if (hello == RT_HELLO_H2) {
			c = h2_hello(sk, s, slot, LL_H2_PREFACE_LEN);
			s->flags |= RT_F_SEEN_READ;
			s->accept_ns = 0; /* (its first stream is in the gap: no accept share) */
			watch_tgid();
			if (c)
				h2_gap(c, slot);
			lean_h2(c);
			return;
		}
		if (hello != RT_HELLO_NONE) {
			s->flags |= RT_F_FOREIGN;
			global_add(RT_G_LEAN_MISSED, 1);
			return;
		}
	}
	/* the arrival hook's, while it is still attached */
	if (s->state == RT_QUEUED || (s->state == RT_WRITING && s->pending_ns)) {
		arrival = s->state == RT_QUEUED ? s->arrival_ns : s->pending_ns;
		multi = rt_client_writes(s->arrivals, in.peer_fin, 0) > 1;
		kind = RT_LEAN_EXACT;
	}
	s->arrivals = 0;
	if (multi)
		REC_ADD(slot, multi_arrival, 1);
	if (kind == RT_LEAN_UNKNOWN)
		global_add(RT_G_LEAN_UNKNOWN, 1);
	if (bytes)
		payload_recv(sk, slot, (int)bytes, kf);
	now = bpf_ktime_get_ns();
	if (s->state == RT_WRITING)
		tcp_close_out(s, slot);
	tcp_begin(s, arrival, now);
	if (lean_solo)
		solo_mark(sk, s, in.copied_seq, in.data_segs_in, kf);
	if (!in.first)
		return;
	s->flags |= RT_F_SEEN_READ;
	s->accept_ns = accept_time(sk);
	watch_tgid();
}

/*
 * The copy hook alone's pass over the target's TCP sockets, each interval (observer/kernel/lean.c):
 * a request read and answered on a connection now idle is recorded now, not at its next read or
 * its close, and a request read before the reads left marks gets them. The iterator holds the
 * socket's lock: no read or close of it runs meanwhile. answer: the send hook is detached (while
 * it is attached it sees the writes; the pass only leaves marks). Also a socket reset, at CLOSE
 * (port: its local port, which the kernel may have released from skc_num by then).
 */
static __always_inline void solo_sweep(const struct sock *sk, __u16 port, bool answer)
{
	__u8 t = targ_slot[port];
	struct rt_tcp_sock *s;
	int slot;

	if (!t)
		return;
	s = tcp_state(sk, false);
	if (!s || s->state != RT_READING ||
	    (s->flags & (RT_F_FOREIGN | RT_F_TLS | RT_F_H2 | RT_F_PLAIN | RT_F_KTLS)))
		return;
	if (s->solo_mark >> 56 != RT_LEAN_TAG) {
		solo_mark(sk, s, LL_READ_KF(false, struct tcp_sock, sk, copied_seq),
			  LL_READ_KF(false, struct tcp_sock, sk, data_segs_in), false);
		return;
	}
	slot = t != RT_SLOT_DYN ? 2 * (t - 1) : (s->flags & RT_F_OWNED) ? s->slot : -1;
	if (answer && slot >= 0)
		solo_answered(sk, s, slot, false);
}

/* UDP sockets on a target port (the copy hook alone cannot see their requests: while there are
 * any, the send hook stays), counted by the pass over UDP sockets. */
__u32 lean_udp_socks;

#endif /* LOADLENS_REQ_LEAN_BPF_H */
