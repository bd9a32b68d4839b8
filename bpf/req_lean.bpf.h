/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * The lean hooks' read (observer/kernel/lean.h; include/loadlens/reqtime.h, rt_lean_arrival()):
 * a plain TCP request begun at tcp:tcp_rcv_space_adjust, where neither sk_data_ready nor
 * sock_recv_length need be attached. Part of request timing (bpf/req.bpf.h), included from there
 * after the parts it uses (req_tcp's state, payload sampling, the TLS and HTTP/2 first bytes).
 */
#ifndef LOADLENS_REQ_LEAN_BPF_H
#define LOADLENS_REQ_LEAN_BPF_H

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

static __always_inline void tcp_copied(struct sock *sk, bool kf)
{
	struct rt_lean_in in;
	struct rt_h2_conn *c;
	struct rt_tcp_sock *s;
	__u32 kind, bytes, multi, rcv_nxt, n = 0;
	__u64 arrival, now, ubuf = 0;
	bool udp = false;
	int slot, hello;

	slot = sock_slot(sk, &udp);
	if (slot < 0 || udp)
		return;
	s = tcp_owned(sk, &slot, true);
	if (!s || s->state == RT_READING || (s->flags & RT_F_FOREIGN))
		return;
	in.first = !(s->flags & RT_F_SEEN_READ);
	in.mark = s->state == RT_WRITING ? s->accept_ns : 0;
	in.copied_seq = LL_READ_KF(kf, struct tcp_sock, sk, copied_seq);
	if (in.mark >> 56 == RT_LEAN_TAG && in.copied_seq == (__u32)in.mark)
		return; /* a peek */
	if (s->flags & RT_F_H2) {
		/* its reads are sock_recv_length's (a read it misses is a gap there) */
		lean_h2(LL_SK_GET(h2_conns, h2_conns_hash, (void *)sk, 0));
		return;
	}
	if (s->flags & RT_F_TLS) {
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
		hello = first_bytes((int)bytes, &ubuf, &n);
		if (hello == RT_HELLO_H2) {
			c = h2_hello(sk, s, slot);
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
	if (!in.first)
		return;
	s->flags |= RT_F_SEEN_READ;
	s->accept_ns = accept_time(sk);
	watch_tgid();
}

#endif /* LOADLENS_REQ_LEAN_BPF_H */
