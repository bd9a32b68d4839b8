/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Request timing for bpf/sockets.bpf.c: where each request's time goes, on the target TCP and UDP
 * ports: socket-queue wait, service time, residence, the accept-queue share of a connection's
 * first request, and the run-queue wait of the serving processes' threads. Request boundaries come from a per-socket state
 * machine; nothing is parsed (docs/observer/request-timing.md, "Request timing").
 *
 * This file is the request path: the entry points that sockets.bpf.c's programs call, each
 * dispatching an event to the protocol that owns the socket. Each part is a header of its own,
 * which compiles alone and includes what it builds on (tests: bpf_headers):
 *   req_sk, req_rec, req_scope, req_runq   a socket's storage, the figures, which sockets are
 *                                          timed, --runq
 *   req_tcp                                TCP's per-socket state and clocks (calls no protocol)
 *   req_udp                                UDP requests
 *   req_turns                              TCP turns (HTTP/1.1, Redis, LDAP...)
 *   req_tls                                TLS handshakes, on the record path
 *   req_h2 (req_h2_*)                      HTTP/2 streams
 *   req_ssl                                TLS plaintext through libssl's uprobes
 *   req_hello                              a connection's first bytes: which of those follows it
 *   payload                                payload sampling (pipelining in one write)
 *   req_lean                               the lean hooks' read and marks
 *
 *   sock:sk_data_ready       bytes queued to a socket (softirq, or the sender's context)
 *   sock:sock_recv_length    the application read (its own context)
 *   sock:sock_send_length    the application wrote
 *   sock:inet_sock_set_state the server closes (FIN_WAIT1, LAST_ACK): close out the last request
 *   tcp:tcp_rcv_space_adjust the lean hooks' read, instead of the first two (req_lean.bpf.h)
 *   (accept time of a new connection, for its first request: conn.bpf.h's queued table holds it
 *   when the syscall tier saw the accept())
 *   sched:sched_wakeup{,_new}, sched:sched_switch   run-queue wait of the serving processes
 *
 * Cost rules (BENCHMARKS.md, "Observer: request timing overhead"): every socket program first
 * does one byte load (the port's slot in rodata) on the struct sock it was handed, so a foreign
 * socket (the client's end, another port) costs no helper call; then the socket's state: for TCP
 * an entry of a direct-mapped table (an inlined lookup and a compare; its own sk_storage only when
 * another live socket holds the entry), for UDP its sk_storage; no loops. TCP's events take the
 * clock TCP itself keeps (tcp_clock_cache at an arrival and a read, the stamp of the last
 * transmit at a first write), so a keep-alive TCP request reads the clock only where those are
 * not newer than the previous event.
 * A slot's counters and histograms are one record per CPU (one lookup per request); userspace
 * sums CPUs and diffs snapshots.
 * Run-queue wait (--runq) is off unless asked for: it runs on every context switch of the host.
 * For another process's switch it costs two loads (a tgid, and its slot in a bss array).
 */
#ifndef LOADLENS_REQ_BPF_H
#define LOADLENS_REQ_BPF_H

#include "conn.bpf.h"
#include "req_udp.bpf.h"
#include "req_lean.bpf.h"

/* Bytes queued to a TCP socket: its arrival stamps (req_tcp.bpf.h); an HTTP/2 connection's
 * streams, and a TLS connection's records where libssl is probed, each keep their own
 * (req_h2_arrivals.bpf.h). */
static __always_inline void tcp_arrival(const struct sock *sk, bool kf)
{
	__u64 now = 0;
	struct rt_tcp_sock *s = tcp_arrived(sk, kf, &now);

	/* (not under kTLS: the sequence numbers count its records, the reads their plaintext) */
	if (s && (((s->flags & (RT_F_H2 | RT_F_KTLS)) == RT_F_H2 && !s->h2) ||
		  (targ_ssl && (s->flags & RT_F_TLS))))
		arr_segment(sk, s, now, kf);
}

/* kf: bpf_rdonly_cast may be used (a constant in the tracepoint programs: see LL_READ_KF) */
static __always_inline void req_data_ready(const struct sock *sk, bool kf)
{
	bool udp;

	if (!sk || sock_slot(sk, &udp) < 0)
		return;
	if (udp)
		udp_arrival(sk, kf);
	else if (sk->__sk_common.skc_state != TCP_LISTEN) /* a new connection, not bytes */
		tcp_arrival(sk, kf);
}

/* A read of a TCP socket: its first bytes decide the protocol (req_hello.bpf.h); HTTP/2 walks
 * its frames, TLS its records or plaintext, others are turns. */
static __always_inline void tcp_read(struct sock *sk, int slot, int ret, bool kf)
{
	struct rt_tcp_sock *s = tcp_owned(sk, &slot, true);
	__u64 arrival;
	__u8 arrivals;
	int k;

	if (!s)
		return;
	/* under kTLS a record that is no application data (the client's close_notify) is read as
	 * its content: neither a request nor frames */
	if (s->flags & RT_F_KTLS) {
		k = ll_sys_tls_record_type();
		if (k && k != LL_TLS_APP)
			return;
	}
	arrivals = s->arrivals;
	s->arrivals = 0;
	/* the first bytes: TLS, HTTP/2? (a piece of the preface: no request yet, the state and
	 * its arrival kept for the read that ends it; under kTLS, of the first plaintext) */
	if ((!(s->flags & RT_F_SEEN_READ) ||
	     ((s->flags & (RT_F_KTLS | RT_F_H2)) == RT_F_KTLS && s->h2)) &&
	    s->state != RT_READING && conn_hello(sk, s, slot, ret))
		return;
	if (s->flags & RT_F_H2) {
		/* streams, not turns: the first stream's accept share is the connection's */
		if (!(s->flags & RT_F_SEEN_READ)) {
			s->flags |= RT_F_SEEN_READ;
			s->accept_ns = accept_time(sk);
			watch_tgid();
		}
		h2_io(sk, s, slot, ret, false, kf);
		return;
	}
	if (s->flags & RT_F_TLS) {
		/* the handshake on the record path; past it, the plaintext's (req_ssl.bpf.h), or,
		 * where the kernel's TLS took the records both ways, a connection in the clear from
		 * its first plaintext read (ktls_hello()) */
		arrival = s->state == RT_QUEUED ? s->arrival_ns : s->pending_ns;
		ssl_stamp(sk, s, slot, ret, kf);
		if (s->tls < RT_TLS_DONE) {
			tls_read(sk, s, slot, ret, bpf_ktime_get_ns(), kf);
			k = s->tls == RT_TLS_DONE ? ktls_hello(sk, s, slot, ret, arrival, kf) : -1;
		} else {
			k = ktls_hello(sk, s, slot, ret, arrival, kf);
			if (k < 0)
				tls_app_read(sk, s, slot, kf);
		}
		if (k > 0)
			return;
		if (k < 0)
			goto first;
	}
	if (s->flags & RT_F_H2) {
		h2_io(sk, s, slot, ret, false, kf); /* (kTLS: its first plaintext read) */
		return;
	}
	if (s->state == RT_READING && !(lean_solo && solo_answered(sk, s, slot, kf))) {
		/* more of the same request: bytes that arrived meanwhile are part of it (unless its
		 * response went unseen by the send hook, detached: then as after a write) */
		s->pending_ns = 0;
		return;
	}
	turn_read(sk, s, slot, arrivals, kf);
	if (lean_solo) /* (the copy hook alone may read the next ones) */
		solo_mark(sk, s, LL_READ_KF(kf, struct tcp_sock, sk, copied_seq),
			  LL_READ_KF(kf, struct tcp_sock, sk, data_segs_in), kf);
first:
	if (s->flags & RT_F_SEEN_READ)
		return;
	/* the connection's first request: was it queued before accept() returned the socket? */
	s->flags |= RT_F_SEEN_READ;
	s->accept_ns = accept_time(sk);
	watch_tgid();
	if (s->flags & RT_F_TLS)
		tls_accepted(sk, s);
}

/* A write of a TCP socket, to the protocol that owns it. */
static __always_inline void tcp_write(struct sock *sk, int slot, int ret, bool kf)
{
	struct rt_tcp_sock *s = tcp_owned(sk, &slot, targ_owned);

	if (!s)
		return;
	if (s->flags & RT_F_H2) {
		h2_io(sk, s, slot, ret, true, kf);
		return;
	}
	if (s->flags & RT_F_TLS) {
		if (!(s->flags & RT_F_PLAIN))
			ssl_stamp(sk, s, slot, 0, kf);
		if (s->tls >= RT_TLS_DONE)
			return; /* application data: the plaintext's, or not counted */
		if (tls_alert_write(ret)) {
			/* the server's alert: the handshake failed */
			s->state = RT_IDLE;
			s->tls = RT_TLS_CLOSING;
			return;
		}
		tls_write(sk, s, kf); /* the handshake's */
		return;
	}
	if (turn_write(sk, s, slot, kf) && lean_marks)
		lean_mark_write(sk, s, kf);
}

/* Free a socket's slot entry (s from tcp_state()): its state in its own storage (a collision) is
 * freed with the socket. ssl_done: ssl_close() was called for it already. */
static __always_inline void tcp_entry_free(const struct sock *sk, struct rt_tcp_sock *s,
					   bool ssl_done)
{
	if (s->sk != tcp_key(sk).key)
		return;
	if (s->flags & RT_F_TLS)
		tls_forget(sk, s);
	else if (s->flags & RT_F_H2)
		h2_close(sk, s); /* (once only: it marks the entry) */
	if ((s->flags & RT_F_PLAIN) && !ssl_done)
		ssl_close(sk, true);
	if (s->flags & RT_F_KTLS)
		ssl_kernel_forget(sk);
	s->sk = 0;
}

/* A target TCP socket's entry at a move of its close (NULL: not a TCP target's, or no entry),
 * its slot in *slot (-1: a port not yet known to be a target's). */
static __always_inline struct rt_tcp_sock *req_closing_entry(const struct sock *sk, int *slot)
{
	struct rt_tcp_sock *s;
	bool udp = false;

	*slot = sock_slot(sk, &udp);
	if (*slot < 0 || udp)
		return NULL;
	s = tcp_state(sk, false);
	if (s && *slot == RT_SLOT_DYN)
		*slot = s->flags & RT_F_OWNED ? s->slot : -1;
	return s;
}

/*
 * A target socket's move by its application's close() or shutdown(): to FIN_WAIT1 or LAST_ACK,
 * or a close() in FIN_WAIT2 or CLOSING after shutdown(SHUT_WR) (tcp_close_state() stores the
 * same state again). The server closes: its last response is complete (or never came). With
 * `gone` (sk_shut_both()) the entry is freed too.
 */
static __always_inline void req_server_closes(const struct sock *sk, bool gone)
{
	bool ssl_done = false;
	int slot;
	struct rt_tcp_sock *s = req_closing_entry(sk, &slot);

	if (!s)
		return;
	/* (a foreign connection, or one of a port not yet known to be a target's: not followed) */
	if (!(s->flags & RT_F_FOREIGN) && slot >= 0) {
		if (s->flags & RT_F_H2) {
			h2_close(sk, s);
		} else if (s->flags & RT_F_PLAIN) {
			ssl_close(sk, gone);
			ssl_done = true;
		} else if (!(s->flags & RT_F_TLS)) {
			/* (the copy hook alone: a response it has not seen go) */
			if (s->state == RT_READING && lean_solo)
				solo_answered(sk, s, slot, false);
			tcp_close_out(s, slot); /* (a TLS connection's exchanges are no turns) */
		}
		s->state = RT_IDLE;
	}
	if (gone)
		tcp_entry_free(sk, s, ssl_done);
}

/*
 * A target socket's peer closes (its FIN, a move to CLOSE_WAIT: the tracepoint runs before TCP
 * acknowledges it). Under the copy hook alone, the last request's response, if it went, is told
 * now, while TCP's last transmit stamp is still that response's: at the server's close the FIN's
 * acknowledgement may have gone since (a server slower to close than the delayed ACK), and the
 * response was then counted untimed.
 */
static __always_inline void req_peer_closes(const struct sock *sk)
{
	int slot;
	struct rt_tcp_sock *s = req_closing_entry(sk, &slot);

	if (s && slot >= 0 && s->state == RT_READING &&
	    !(s->flags & (RT_F_FOREIGN | RT_F_TLS | RT_F_H2 | RT_F_PLAIN | RT_F_KTLS)))
		solo_answered(sk, s, slot, false);
}

/* A TCP socket moves to CLOSE: free its table entry (one inlined lookup and a compare). A TLS
 * socket closed with unread bytes (a client's close_notify: a reset, no FIN_WAIT1) may still
 * hold a request to record, or a handshake's entry. Only a socket of a target port can hold
 * one: its port is skc_num, or inet_sport where tcp_set_state() released the port (and zeroed
 * skc_num) before it changed the state. Another port's socket goes no further than that byte,
 * where the entry's line would be a cache miss on every close. */
static __always_inline void req_forget(const struct sock *sk)
{
	/* (skc_num stays for a port the application bound: an accepted socket's) */
	__u32 port = sk->__sk_common.skc_num ? sk->__sk_common.skc_num
					     : bpf_ntohs(LL_READ(struct inet_sock, sk, inet_sport));
	struct tcp_key k = tcp_key(sk);
	struct rt_tcp_sock *s;

	/* the mask kept (the compiler knows it changes nothing): before 5.13 or so the verifier
	 * does not bound a byte swap's result */
	barrier_var(port);
	if (!targ_slot[port & 0xffff])
		return;
	s = bpf_map_lookup_elem(&tcp_slots, &k.idx);
	if (!s)
		return;
	/* a reset: the copy hook alone's last request may have been answered */
	if (lean_solo && s->sk == k.key && s->state == RT_READING &&
	    !(s->flags & (RT_F_FOREIGN | RT_F_TLS | RT_F_H2 | RT_F_PLAIN | RT_F_KTLS)))
		solo_sweep(sk, port, true);
	tcp_entry_free(sk, s, false);
	/* (a socket with its state in its own storage leaves its plaintext entry to the LRU) */
}

static __always_inline void req_recv(struct sock *sk, int ret, int flags, bool kf)
{
	bool udp = false;
	int slot;

	/* arguments first: EAGAIN, EOF and peeks are not reads of a request */
	if (ret <= 0 || (flags & MSG_PEEK) || !sk)
		return;
	slot = sock_slot(sk, &udp);
	if (slot < 0)
		return;
	if (udp) {
		udp_read(sk, slot);
		return;
	}
	payload_recv(sk, slot, ret, kf); /* first: it asks whether this read begins a request */
	tcp_read(sk, slot, ret, kf);
}

static __always_inline void req_send(struct sock *sk, int ret, bool kf)
{
	bool udp = false;
	int slot;

	if (ret <= 0 || !sk)
		return;
	slot = sock_slot(sk, &udp);
	if (slot < 0)
		return;
	if (udp)
		udp_write(sk, slot);
	else
		tcp_write(sk, slot, ret, kf);
}

#endif /* LOADLENS_REQ_BPF_H */
