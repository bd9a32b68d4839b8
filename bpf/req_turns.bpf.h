/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * TCP turns: a connection whose client writes a request and waits for its response (HTTP/1.1,
 * Redis, memcached, LDAP, PostgreSQL...): a request begins at the read after a response (or the
 * connection's first), its response at the first write after it, and ends at the next request's
 * read or the server's close (several writes: multi_write). Nothing is parsed. Built on
 * req_tcp.bpf.h; called by the request path (bpf/req.bpf.h) for connections no other protocol
 * claimed.
 */
#ifndef LOADLENS_REQ_TURNS_BPF_H
#define LOADLENS_REQ_TURNS_BPF_H

#include "req_tcp.bpf.h"

/* The current TCP response is complete (the next request was read, or the server closed). */
static __always_inline void tcp_close_out(struct rt_tcp_sock *s, __u32 slot)
{
	struct rt_rec *r;

	if (s->state == RT_WRITING && !(s->flags & RT_F_MULTI))
		return;
	r = rec_of(slot);
	if (!r)
		return;
	if (s->state == RT_READING) {
		r->c.unanswered++;
		return;
	}
	if (s->state != RT_WRITING)
		return;
	hist_add(r, RT_MULTI_FIRST, sub0(s->write_ns, s->read_ns));
	hist_add(r, RT_MULTI_LAST, sub0(s->last_write_ns, s->read_ns));
	barrier();
	r->c.multi_write++;
}

/* A read begins a request (s: not RT_READING, or its response gone unseen): its arrival is the
 * bytes' (RT_QUEUED), or the next request's that came while the last was served (RT_WRITING,
 * whose response is then complete). arrivals: the peer's writes queued since the last read. */
static __always_inline void turn_read(struct sock *sk, struct rt_tcp_sock *s, int slot,
				      __u8 arrivals, bool kf)
{
	__u64 now;

	/* less the peer's FIN (it has come: CLOSE_WAIT) */
	if (rt_client_writes(arrivals, sk->__sk_common.skc_state == TCP_CLOSE_WAIT, 0) > 1) {
		/* one read took the bytes of several peer writes, queued apart */
		REC_ADD(slot, multi_arrival, 1);
	}
	/* Service begins when recvmsg copied the request's bytes: TCP refreshed its own clock
	 * there (tcp_rcv_space_adjust), so a value newer than the request's arrival is that moment
	 * and costs no clock read (bpf_ktime_get_ns() is about half of this program's own time on
	 * a VM). What runs between the copy and this tracepoint (release_sock: the socket's
	 * backlog, pending softirqs) counts as service: measured against a clock read here, 0.35 us
	 * on average at hello-world keep-alive, 1.1 us under overload, over 10 us for 0.03-0.1% of
	 * reads (docs/observer/request-timing.md, "Cost"). */
	if (s->state == RT_QUEUED) {
		now = tcp_clock(sk, s->arrival_ns, kf);
		tcp_begin(s, s->arrival_ns, now);
	} else if (s->state == RT_WRITING) {
		now = tcp_clock(sk, s->pending_ns, kf);
		tcp_close_out(s, slot);
		tcp_begin(s, s->pending_ns, now);
	} else {
		now = bpf_ktime_get_ns();
		tcp_begin(s, 0, now); /* no arrival seen: bytes queued before we attached */
	}
}

/*
 * When the first write of a response began to leave. sock_send_length fires at the end of the
 * write, and on loopback the write itself delivers to the peer and wakes it (tens of us, or the
 * peer's whole time slice if it preempts us). So the time is TCP's stamp of its last transmit
 * (tcp_sent_clock()), which is this response's if it is newer than the read; if the write
 * transmitted nothing yet (queued behind cwnd), the clock is read. false: no request was being
 * read (unsolicited).
 */
static __always_inline bool turn_write(struct sock *sk, struct rt_tcp_sock *s, int slot, bool kf)
{
	__u64 now;

	if (s->state == RT_READING) {
		now = tcp_sent_clock(sk, s->read_ns, kf);
		s->write_ns = now;
		s->last_write_ns = now;
		s->state = RT_WRITING;
		record(sk, slot, false, s->arrival_ns, s->accept_ns, s->read_ns, now);
	} else if (s->state == RT_WRITING) {
		s->last_write_ns = bpf_ktime_get_ns();
		s->flags |= RT_F_MULTI;
	} else {
		unsolicited(slot);
		return false;
	}
	return true;
}

#endif /* LOADLENS_REQ_TURNS_BPF_H */
