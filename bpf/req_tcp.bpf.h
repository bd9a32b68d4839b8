/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * TCP request state, the base of every TCP protocol's timing: the per-socket entry (a
 * direct-mapped table, or the socket's own storage), the arrival stamps, and TCP's own clocks.
 * It calls no protocol: the request path (bpf/req.bpf.h) dispatches each event to the protocol
 * that owns the connection (req_turns, req_tls, req_h2, req_ssl, req_lean), each built on this.
 */
#ifndef LOADLENS_REQ_TCP_BPF_H
#define LOADLENS_REQ_TCP_BPF_H

#include "req_sk.bpf.h"
#include "req_rec.bpf.h"
#include "req_scope.bpf.h"

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

/* Bytes were queued to socket sk: the arrival of the request they begin, or, while one is read or
 * served, of the next one. Returns the socket's state (NULL: not followed); *now: the clock
 * read for it (0: none). */
static __always_inline struct rt_tcp_sock *tcp_arrived(const struct sock *sk, bool kf, __u64 *now)
{
	struct rt_tcp_sock *s = tcp_state(sk, true);

	if (!s || (s->flags & RT_F_FOREIGN))
		return NULL;
	if (s->arrivals < 255)
		s->arrivals++;
	if (s->state == RT_IDLE) {
		*now = tcp_clock(sk, s->read_ns, kf);
		s->arrival_ns = *now;
		s->state = RT_QUEUED;
	} else if (s->state != RT_QUEUED && !s->pending_ns) {
		/* while a request is read or served: the first bytes of the next one */
		*now = tcp_clock(sk, s->read_ns, kf);
		s->pending_ns = *now;
	}
	return s;
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

/* A socket moving to CLOSE whose entry its application's close() freed already (see
 * sk_shut_both()): orphaned (SOCK_DEAD) with both shutdown bits set. */
static __always_inline bool req_freed_by_close(const struct sock *sk)
{
	unsigned long flags = bpf_core_field_exists(struct sock, sk_flags)
				      ? sk->sk_flags
				      : sk->__sk_common.skc_flags;

	return (flags & 1) && sk_shut_both(sk); /* SOCK_DEAD: bit 0 */
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
