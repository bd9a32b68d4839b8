/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * UDP request state: each socket's ring of arrival stamps, and its read -> reply pairing, thread
 * by thread: a thread replies to the datagram it read last, so where several threads read one
 * socket (memcached -t 4) each is timed from its own read to its own reply.
 * Part of request timing (bpf/req.bpf.h).
 */
#ifndef LOADLENS_REQ_UDP_BPF_H
#define LOADLENS_REQ_UDP_BPF_H

#include "req_scope.bpf.h"
#include "req_runq.bpf.h"

LL_SK_STORAGE(udp_socks, struct rt_udp_sock);

/* --arrivals sampled: userspace bumps it as each arrival-stamping window opens; it stays 0 when
 * sk_data_ready is attached all the time */
volatile __u32 arrival_gen;

static __always_inline void udp_arrival(const struct sock *sk, bool kf)
{
	struct rt_udp_sock *s;
	__u32 g, q;
	__u64 i;

	/* --pid/--cgroup: a socket nobody has read yet gets no ring (it is 4 KiB) here: datagrams
	 * queued before its first read are read without a stamp (no_arrival) */
	s = LL_SK_GET(udp_socks, udp_socks_hash, (void *)sk, targ_owned ? 0 : BPF_SK_STORAGE_GET_F_CREATE);
	if (!s) {
		if (!targ_owned)
			global_add(RT_G_NO_STORAGE, 1);
		return;
	}
	if (s->flags & RT_F_FOREIGN)
		return;
	/* --arrivals sampled: stamping was off until this window began, so the datagrams queued
	 * meanwhile have no stamp, and the reader takes them first: start the ring afresh, behind
	 * them (the one that just arrived is queued already) */
	g = arrival_gen;
	if (s->gen != g) {
		q = sk->sk_receive_queue.qlen + LL_READ_KF(kf, struct udp_sock, sk, reader_queue.qlen);
		s->skip = q ? q - 1 : 0;
		s->tail = s->head;
		s->gen = g;
	}
	/* senders on several CPUs may queue to one socket at once: take the index atomically */
	i = LL_FETCH_ADD(&s->tail, 1);
	s->arrival[i & (RT_UDP_RING - 1)] = bpf_ktime_get_ns();
}

/*
 * Thread tid's entry of s's reader table, or with take a new one for it: a free entry, else one
 * whose thread is between datagrams (it takes another at its next read). NULL when every entry is
 * held by a thread serving a datagram. Threads of one socket read at once (memcached -t 4): an
 * entry is claimed by a compare-and-swap of its tid and state as the scan saw them, and a thread
 * that lost it to another looks again. (Before 5.12 BPF has no compare-and-swap: two threads
 * taking one entry at the same instant leave it to the later, and the other's reply, finding no
 * entry, counts as unsolicited.)
 */
static __always_inline struct rt_udp_reader *udp_reader(struct rt_udp_sock *s, __u32 tid,
							 bool take)
{
	struct rt_udp_claim seen = {}, want = {.tid = tid, .state = RT_IDLE};
	struct rt_udp_reader *e;
	__u64 old, new;
	int i, try, spare;

	for (try = 0; try < 2; try++) {
		spare = -1;
		for (i = 0; i < RT_UDP_READERS; i++) {
			e = &s->readers[i];
			if (e->tid == tid)
				return e;
			/* a free entry first: an idle thread's only when none is free */
			if (!e->tid ? spare < 0 || seen.tid : spare < 0 && e->state != RT_READING) {
				spare = i;
				seen.tid = e->tid;
				seen.state = e->state;
			}
		}
		if (!take || spare < 0)
			return NULL;
		/* the mask kept (the compiler knows it changes nothing): 6.1's verifier lost the
		 * bound of spare through its loop */
		barrier_var(spare);
		e = &s->readers[spare & (RT_UDP_READERS - 1)];
		__builtin_memcpy(&old, &seen, sizeof(old));
		__builtin_memcpy(&new, &want, sizeof(new));
		if (LL_CMPXCHG((__u64 *)e, old, new) == old)
			return e;
	}
	return NULL;
}

static __always_inline void udp_read(struct sock *sk, int slot)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rt_udp_reader *e;
	struct rt_udp_sock *s;
	struct rt_rec *r;
	__u64 h, t, arrival;

	s = LL_SK_GET(udp_socks, udp_socks_hash, sk, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s) {
		global_add(RT_G_NO_STORAGE, 1);
		return;
	}
	/* flags < 256: its low byte (BPF runs in the host's byte order, little-endian here) */
	slot = owned(sk, slot, true, (__u8 *)&s->flags, &s->slot);
	if (slot < 0)
		return;
	if (s->reader != tid) {
		/* several threads read this socket: each has its entry (udp_reader) */
		if (s->reader) {
			r = rec_of(slot);
			if (r) {
				r->c.udp_switch++;
				if (!(s->flags & RT_F_SHARED))
					r->c.udp_shared++;
			}
			s->flags |= RT_F_SHARED;
		}
		s->reader = tid;
	}
	/* the datagram's arrival stamp: the ring's next, taken whoever serves it */
	if (s->skip) {
		/* queued while arrival stamping was off (--arrivals sampled) */
		s->skip--;
		arrival = 0;
	} else {
		h = LL_FETCH_ADD(&s->head, 1);
		t = s->tail;
		arrival = 0;
		if (h >= t) {
			/* queued before we attached: no stamp */
			s->head = t;
		} else if (t - h > RT_UDP_RING) {
			REC_ADD(slot, ring_overrun, 1);
		} else {
			arrival = s->arrival[h & (RT_UDP_RING - 1)];
		}
	}
	e = udp_reader(s, tid, true);
	if (!e) {
		/* RT_UDP_READERS other threads are serving a datagram each */
		REC_ADD(slot, udp_unpaired, 1);
		s->flags |= RT_F_UDP_UNPAIRED;
	} else {
		if (e->state == RT_READING) {
			/* this thread's previous datagram got no reply before this read */
			REC_ADD(slot, unanswered, 1);
		}
		e->arrival_ns = arrival;
		e->read_ns = bpf_ktime_get_ns();
		e->state = RT_READING;
	}
	if (!(s->flags & RT_F_SEEN_READ)) {
		s->flags |= RT_F_SEEN_READ;
		watch_tgid();
	}
}

static __always_inline void udp_write(struct sock *sk, int slot)
{
	struct rt_udp_sock *s = LL_SK_GET(udp_socks, udp_socks_hash, sk, 0);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rt_udp_reader *e;

	if (!s)
		return;
	slot = owned(sk, slot, true, (__u8 *)&s->flags, &s->slot);
	if (slot < 0)
		return;
	e = udp_reader(s, tid, false);
	if (!e || e->state != RT_READING) {
		/* a write with no datagram read before it; on a socket where a datagram went
		 * unpaired, a thread without an entry may be replying to that one (counted at its
		 * read) */
		if (e || !(s->flags & RT_F_UDP_UNPAIRED))
			unsolicited(slot);
		return;
	}
	e->state = RT_IDLE;
	record(sk, slot, true, e->arrival_ns, 0, e->read_ns, bpf_ktime_get_ns());
}

#endif /* LOADLENS_REQ_UDP_BPF_H */
