/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * TCP request state: the per-socket state machine (arrival, read, first and last write, the
 * server's close), where it is kept (a direct-mapped table, or the socket's own storage), and
 * TCP's own clock.
 * Part of request timing (bpf/req.bpf.h), included from there only.
 */
#ifndef LOADLENS_REQ_TCP_BPF_H
#define LOADLENS_REQ_TCP_BPF_H

/* HTTP/2: each stream's own arrival (fed from tcp_arrival()) */
#include "req_h2_arrivals.bpf.h"

/* TCP request state, direct-mapped by the socket's address (tcp_key()): an inlined array lookup
 * and a compare per event, no helper call, nothing allocated in softirq. An entry is claimed at
 * the socket's first event and freed when its application closes it or it moves to CLOSE; a
 * socket that finds its entry held by another live socket keeps its state in tcp_socks
 * (sk_storage) instead. */
LL_MAP(tcp_slots, BPF_MAP_TYPE_ARRAY, RT_TCP_SLOTS, __u32, struct rt_tcp_sock);

/*
 * A socket's entry in tcp_slots, and the key that marks the entry its own (rt_tcp_sock.sk).
 *
 * The entry is picked by the socket's address. The slab hands a freed socket's memory to the
 * next socket it allocates, mostly at once and on the CPU that freed it, so a new connection
 * finds its entry where the last one at its address left it: in the cache of the CPU that read
 * and closed it. An entry picked by the 4-tuple hash (skc_hash) was a cache miss for every new
 * connection: 4 MiB is no cache's.
 *
 * The verifier makes a number of a pointer only by subtracting another pointer from it (for a
 * loader with CAP_PERFMON): `addr` is the socket's address less the .bss's, the same for every
 * socket of a run. The key is `addr` with 16 bits of skc_hash (set when the socket is hashed,
 * before its first byte) in its top 16, which two addresses never differ by alone (they are
 * 2^46 apart at most): a newer socket at the address of one whose entry was never freed tells
 * the two apart, and takes the entry over (RT_G_TCP_STALE).
 */
#define RT_TCP_ADDR_MASK ((1ULL << 48) - 1)
struct tcp_key {
	__u64 key;
	__u32 idx;
};

static __always_inline struct tcp_key tcp_key_of(__u64 addr, __u32 hash)
{
	struct tcp_key k;

	/* (kept a number: the multiply is never spread over the subtraction's two pointers) */
	barrier_var(addr);
	k.idx = (__u32)((addr * 0x9E3779B97F4A7C15ULL) >> (64 - RT_TCP_SLOT_BITS));
	k.key = addr ^ (__u64)(hash & 0xffff) << 48;
	return k;
}

static __always_inline struct tcp_key tcp_key(const struct sock *sk)
{
	return tcp_key_of((__u64)sk - (__u64)&ll_target_net, sk->__sk_common.skc_hash);
}

LL_SK_STORAGE(tcp_socks, struct rt_tcp_sock);

/* TLS connections (req_tls.bpf.h, included later: it reads the user buffer as payload.bpf.h does) */
struct rt_tcp_sock;
static __always_inline void tls_read(struct sock *sk, struct rt_tcp_sock *s, int slot, int ret,
				     __u64 now);
static __always_inline void tls_app_read(struct sock *sk, struct rt_tcp_sock *s, int slot,
					 bool kf);
static __always_inline void tls_write(struct sock *sk, struct rt_tcp_sock *s, bool kf);
static __always_inline void tls_accepted(const struct sock *sk, struct rt_tcp_sock *s);
static __always_inline void tls_forget(const struct sock *sk, struct rt_tcp_sock *s);
static __always_inline bool tls_alert_write(int ret);
/* TLS plaintext (req_ssl.bpf.h, included later): a read or write inside an SSL call of libssl */
static __always_inline void ssl_stamp(struct sock *sk, struct rt_tcp_sock *s, int slot,
				      bool read, bool kf);
static __always_inline void ssl_close(const struct sock *sk, bool forget);
static __always_inline void ssl_watch_proc(void);
/* A connection's first bytes: TLS, HTTP/2 or neither (req.bpf.h, after both); 1: no request
 * begins with this read (a piece of the HTTP/2 preface, or a broken one) */
static __always_inline int conn_hello(const struct sock *sk, struct rt_tcp_sock *s, int slot,
				      int ret);
/* HTTP/2 connections (req_h2.bpf.h, included later: it reads the user buffer too) */
static __always_inline void h2_io(struct sock *sk, struct rt_tcp_sock *s, int slot, int ret,
				  bool write, bool kf);
static __always_inline void h2_close(const struct sock *sk, struct rt_tcp_sock *s);

/* The copy hook alone (req_lean.bpf.h, included later; observer/kernel/lean.h): 1 while the reads
 * leave the marks its next read needs (solo_mark, solo_out), 2 once the send hook is detached */
volatile __u8 lean_solo;
static __always_inline bool solo_answered(const struct sock *sk, struct rt_tcp_sock *s, int slot,
					  bool kf);
static __always_inline void solo_mark(const struct sock *sk, struct rt_tcp_sock *s,
				      __u32 copied_seq, __u32 segs_in, bool kf);
static __always_inline void solo_sweep(const struct sock *sk, __u16 port, bool answer);

/*
 * TCP's own clock for this socket: tcp_clock_cache is tcp_clock_ns() (CLOCK_MONOTONIC, the clock
 * of bpf_ktime_get_ns()) as last refreshed by TCP, which it does on each segment received (before
 * the data is queued and sk_data_ready fires) and on each transmit. Measured against
 * bpf_ktime_get_ns() at sk_data_ready: 98% within 2 us, 0.04% beyond 10 us. A value not newer than
 * `after` (an event of this socket already seen) was not refreshed for this event, and a socket
 * never read may hold the handshake's stamp: read the clock for both.
 */
static __always_inline __u64 tcp_clock(const struct sock *sk, __u64 after, bool kf)
{
	__u64 t = LL_READ_KF(kf, struct tcp_sock, sk, tcp_clock_cache);

	return t > after && after ? t : bpf_ktime_get_ns();
}

/*
 * When this socket last transmitted, for the first write of a response: tcp_wstamp_ns is the
 * clock TCP stamped its last transmitted segment with (tcp_clock_cache at the transmit, plus any
 * pacing delay), and it moves only when TCP transmits. tcp_clock_cache alone is not that: the
 * peer's ACK of the response, processed from the socket's backlog as the write releases the
 * socket, refreshes it at the end of the write. On loopback that is after the whole delivery to
 * the peer (10-30 us), and it happens for a connection's first responses, which a peer in quick-ack
 * mode acknowledges at once. The lesser of the two is the transmit, paced or not. A value not
 * newer than the read: this write transmitted nothing yet; read the clock.
 */
static __always_inline __u64 tcp_sent_clock(const struct sock *sk, __u64 after, bool kf)
{
	__u64 w = LL_READ_KF(kf, struct tcp_sock, sk, tcp_wstamp_ns);
	__u64 c = LL_READ_KF(kf, struct tcp_sock, sk, tcp_clock_cache), t = w < c ? w : c;

	return t > after && after ? t : bpf_ktime_get_ns();
}

/*
 * Whether the application has closed a socket for good: close() (or shutdown(SHUT_RDWR)) set both
 * shutdown bits before its state moved. Its entry is then freed by that move (req_server_closes(),
 * in the closing task, where the entry's line is still in its cache) instead of at CLOSE, which
 * comes later from the softirq of the peer's last segment, often on another CPU: a cache miss a
 * connection there. tcp_state() creates no entry for it after that (a read after
 * shutdown(SHUT_RDWR) is not timed; data that arrives after the shutdown is answered with a reset).
 */
#define RT_SHUTDOWN_MASK 3 /* RCV_SHUTDOWN | SEND_SHUTDOWN */
static __always_inline bool sk_shut_both(const struct sock *sk)
{
	return BPF_CORE_READ_BITFIELD(sk, sk_shutdown) == RT_SHUTDOWN_MASK;
}

/* The request state of a TCP socket: its table entry, or its own storage if the entry was held by
 * another live socket when it came. create: claim an entry (or storage) if it has none. */
static __always_inline struct rt_tcp_sock *tcp_state(const struct sock *sk, bool create)
{
	struct tcp_key k = tcp_key(sk);
	struct rt_tcp_sock *s = bpf_map_lookup_elem(&tcp_slots, &k.idx), *own;
	__u64 old;

	/* no compare-and-exchange to claim an entry with (before 5.12; ll_sk_hash is then set too):
	 * every socket's state in the hash by socket, inserted atomically (BPF_NOEXIST) */
	if (!targ_atomics) {
		create = create && sk->__sk_common.skc_state != TCP_CLOSE && !sk_shut_both(sk);
		own = LL_SK_GET(tcp_socks, tcp_socks_hash, (void *)sk,
				create ? BPF_SK_STORAGE_GET_F_CREATE : 0);
		if (!own && create) /* the hash is full: untimed, counted */
			global_add(RT_G_NO_STORAGE, 1);
		return own;
	}
	if (!s)
		return NULL;
	old = s->sk;
	if (old == k.key)
		return s;
	/* a socket that once found its entry held keeps its state in its storage */
	own = LL_SK_GET(tcp_socks, tcp_socks_hash, (void *)sk, 0);
	/* nothing new for a closed socket: its entry would never be freed */
	if (own || !create || sk->__sk_common.skc_state == TCP_CLOSE || sk_shut_both(sk))
		return own;
	if (old && !((old ^ k.key) & RT_TCP_ADDR_MASK)) {
		/* held at our address by a socket gone without freeing it: ours now */
		if (LL_CMPXCHG(&s->sk, old, 0) == old)
			global_add(RT_G_TCP_STALE, 1);
		old = s->sk;
	}
	old = old ? old : LL_CMPXCHG(&s->sk, 0, k.key);
	if (old == k.key) /* another CPU claimed it for this socket a moment ago */
		return s;
	if (!old) { /* claimed: all after sk starts zero, the state RT_IDLE */
		__builtin_memset(&s->arrival_ns, 0,
				 sizeof(*s) - __builtin_offsetof(struct rt_tcp_sock, arrival_ns));
		return s;
	}
	own = LL_SK_GET(tcp_socks, tcp_socks_hash, (void *)sk, BPF_SK_STORAGE_GET_F_CREATE);
	global_add(own ? RT_G_TCP_OWN_STORAGE : RT_G_NO_STORAGE, 1);
	return own;
}

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

static __always_inline void tcp_arrival(const struct sock *sk, bool kf)
{
	struct rt_tcp_sock *s = tcp_state(sk, true);

	if (!s || (s->flags & RT_F_FOREIGN))
		return;
	__u64 now = 0;

	if (s->arrivals < 255)
		s->arrivals++;
	if (s->state == RT_IDLE) {
		now = tcp_clock(sk, s->read_ns, kf);
		s->arrival_ns = now;
		s->state = RT_QUEUED;
	} else if (s->state != RT_QUEUED && !s->pending_ns) {
		/* while a request is read or served: the first bytes of the next one */
		now = tcp_clock(sk, s->read_ns, kf);
		s->pending_ns = now;
	}
#ifndef LL_PRE_5_12
	if ((s->flags & RT_F_H2) && !s->h2) {
		/* each segment's stamp, for the streams it begins (req_h2_arrivals.bpf.h) */
		struct h2_arr_in in = {
			.sk = (__u64)sk,
			.ns = now ? now : tcp_clock(sk, s->read_ns, kf),
			.end = LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt),
		};

		h2_arrived(&in);
	}
#endif
}

static __always_inline void tcp_begin(struct rt_tcp_sock *s, __u64 arrival, __u64 now)
{
	s->arrival_ns = arrival;
	s->pending_ns = 0;
	s->read_ns = now;
	s->accept_ns = 0;
	s->state = RT_READING;
	s->flags &= ~RT_F_MULTI;
}

/* The socket's state (created if create) and its slot, if the target owns it: else NULL. */
static __always_inline struct rt_tcp_sock *tcp_owned(struct sock *sk, int *slot, bool create)
{
	struct rt_tcp_sock *s = tcp_state(sk, create);

	if (!s)
		return NULL;
	*slot = owned(sk, *slot, false, &s->flags, &s->slot);
	return *slot < 0 ? NULL : s;
}

static __always_inline void tcp_read(struct sock *sk, int slot, int ret, bool kf)
{
	struct rt_tcp_sock *s = tcp_owned(sk, &slot, true);
	__u8 arrivals;
	__u64 now;

	if (!s)
		return;
	arrivals = s->arrivals;
	s->arrivals = 0;
	/* the first bytes: TLS, HTTP/2? (a piece of the preface: no request yet, the state and
	 * its arrival kept for the read that ends it) */
	if (!(s->flags & RT_F_SEEN_READ) && s->state != RT_READING &&
	    conn_hello(sk, s, slot, ret))
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
		/* the handshake on the record path; past it, the plaintext's (req_ssl.bpf.h) */
		ssl_stamp(sk, s, slot, true, kf);
		if (s->tls < RT_TLS_DONE)
			tls_read(sk, s, slot, ret, bpf_ktime_get_ns());
		else
			tls_app_read(sk, s, slot, kf);
		goto first;
	}
	if (s->state == RT_READING && !(lean_solo && solo_answered(sk, s, slot, kf))) {
		/* more of the same request: bytes that arrived meanwhile are part of it (unless its
		 * response went unseen by the send hook, detached: then as after a write) */
		s->pending_ns = 0;
		return;
	}
	/* less the peer's FIN (it has come: CLOSE_WAIT); a TLS client's records are no requests */
	if (rt_client_writes(arrivals, sk->__sk_common.skc_state == TCP_CLOSE_WAIT,
			     s->flags & RT_F_TLS) > 1) {
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

/* The lean hooks (observer/kernel/lean.h): the writes leave marks (set before the copy hook is
 * attached, so that a connection's next read finds one). LEAN_OVERLAP: and the full hooks are
 * attached too (--lean auto's start, the switches' overlaps): TLS and HTTP/2 connections are
 * theirs, and the copy hook leaves them alone. */
#define LEAN_OVERLAP 2
volatile __u8 lean_marks;

/*
 * When the first write of a response began to leave. sock_send_length fires at the end of the
 * write, and on loopback the write itself delivers to the peer and wakes it (tens of us, or the
 * peer's whole time slice if it preempts us). So the time is TCP's stamp of its last transmit
 * (tcp_sent_clock()), which is this response's if it is newer than the read; if the write
 * transmitted nothing yet (queued behind cwnd), the clock is read.
 */
static __always_inline void tcp_write(struct sock *sk, int slot, int ret, bool kf)
{
	struct rt_tcp_sock *s = tcp_owned(sk, &slot, targ_owned);
	__u64 now;

	if (!s)
		return;
	if (s->flags & RT_F_H2) {
		h2_io(sk, s, slot, ret, true, kf);
		return;
	}
	if (s->flags & RT_F_TLS) {
		if (!(s->flags & RT_F_PLAIN))
			ssl_stamp(sk, s, slot, false, kf);
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
		return;
	}
	/* the lean hooks' mark: where the next request will begin, and what came meanwhile */
	if (lean_marks)
		s->accept_ns = rt_lean_mark(LL_READ_KF(kf, struct tcp_sock, sk, copied_seq),
					    LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt),
					    LL_READ_KF(kf, struct tcp_sock, sk, data_segs_in));
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
	s->sk = 0;
}

/*
 * A target socket's move by its application's close() or shutdown(): to FIN_WAIT1 or LAST_ACK,
 * or a close() in FIN_WAIT2 or CLOSING after shutdown(SHUT_WR) (tcp_close_state() stores the
 * same state again). The server closes: its last response is complete (or never came). With
 * `gone` (sk_shut_both()) the entry is freed too.
 */
static __always_inline void req_server_closes(const struct sock *sk, bool gone)
{
	struct rt_tcp_sock *s;
	bool udp = false, ssl_done = false;
	int slot;

	slot = sock_slot(sk, &udp);
	if (slot < 0 || udp)
		return;
	s = tcp_state(sk, false);
	if (!s)
		return;
	if (slot == RT_SLOT_DYN)
		slot = s->flags & RT_F_OWNED ? s->slot : -1;
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

/* A socket moving to CLOSE whose entry its application's close() freed already (see
 * sk_shut_both()): orphaned (SOCK_DEAD) with both shutdown bits set. */
static __always_inline bool req_freed_by_close(const struct sock *sk)
{
	unsigned long flags = bpf_core_field_exists(struct sock, sk_flags)
				      ? sk->sk_flags
				      : sk->__sk_common.skc_flags;

	return (flags & 1) && sk_shut_both(sk); /* SOCK_DEAD: bit 0 */
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
	    !(s->flags & (RT_F_FOREIGN | RT_F_TLS | RT_F_H2 | RT_F_PLAIN)))
		solo_sweep(sk, port, true);
	tcp_entry_free(sk, s, false);
	/* (a socket with its state in its own storage leaves its plaintext entry to the LRU) */
}

/* The same from the raw_tp fallback, where sk is a number read with bpf_probe_read_kernel:
 * the .bss's address is made one by a store and a load (every CPU stores the same). */
volatile __u64 ll_bss_addr = 0;
static __always_inline void req_forget_raw(const struct sock *sk)
{
	struct tcp_key k;
	struct rt_tcp_sock *s;

	if (!ll_bss_addr)
		ll_bss_addr = (__u64)&ll_target_net;
	k = tcp_key_of((__u64)sk - ll_bss_addr, BPF_CORE_READ(sk, __sk_common.skc_hash));
	s = bpf_map_lookup_elem(&tcp_slots, &k.idx);
	if (s && s->sk == k.key)
		s->sk = 0;
}

#endif /* LOADLENS_REQ_TCP_BPF_H */
