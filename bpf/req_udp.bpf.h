/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * UDP request state: each socket's ring of arrival stamps, and its read -> reply pairing.
 * Part of request timing (bpf/req.bpf.h), included from there only.
 */
#ifndef LOADLENS_REQ_UDP_BPF_H
#define LOADLENS_REQ_UDP_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rt_udp_sock);
} udp_socks SEC(".maps");

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
	s = bpf_sk_storage_get(&udp_socks, (void *)sk, 0,
			       targ_owned ? 0 : BPF_SK_STORAGE_GET_F_CREATE);
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
	i = __sync_fetch_and_add(&s->tail, 1);
	s->arrival[i & (RT_UDP_RING - 1)] = bpf_ktime_get_ns();
}

static __always_inline void udp_read(struct sock *sk, int slot)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rt_udp_sock *s;
	struct rt_rec *r;
	__u64 h, t;

	s = bpf_sk_storage_get(&udp_socks, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s) {
		global_add(RT_G_NO_STORAGE, 1);
		return;
	}
	/* flags < 256: its low byte (BPF runs in the host's byte order, little-endian here) */
	slot = owned(sk, slot, true, (__u8 *)&s->flags, &s->slot);
	if (slot < 0)
		return;
	if (s->reader != tid) {
		/* several threads read this socket: the reply a thread writes is matched with the
		 * datagram that thread read last (udp_write), so with interleaved readers a reply
		 * can be paired with another thread's datagram */
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
	if (s->state == RT_READING) {
		/* the previous datagram got no reply before this read */
		r = rec_of(slot);
		if (r)
			r->c.unanswered++;
	}
	if (s->skip) {
		/* queued while arrival stamping was off (--arrivals sampled) */
		s->skip--;
		s->arrival_ns = 0;
		goto read;
	}
	h = __sync_fetch_and_add(&s->head, 1);
	t = s->tail;
	if (h >= t) {
		/* queued before we attached: no stamp */
		s->arrival_ns = 0;
		s->head = t;
	} else if (t - h > RT_UDP_RING) {
		s->arrival_ns = 0;
		r = rec_of(slot);
		if (r)
			r->c.ring_overrun++;
	} else {
		s->arrival_ns = s->arrival[h & (RT_UDP_RING - 1)];
	}
read:
	s->read_ns = bpf_ktime_get_ns();
	s->state = RT_READING;
	if (!(s->flags & RT_F_SEEN_READ)) {
		s->flags |= RT_F_SEEN_READ;
		watch_tgid();
	}
}

static __always_inline void udp_write(struct sock *sk, int slot)
{
	struct rt_udp_sock *s = bpf_sk_storage_get(&udp_socks, sk, 0, 0);

	if (!s)
		return;
	slot = owned(sk, slot, true, (__u8 *)&s->flags, &s->slot);
	if (slot < 0)
		return;
	if (s->state != RT_READING) {
		unsolicited(slot);
		return;
	}
	s->state = RT_IDLE;
	record(sk, slot, true, s->arrival_ns, 0, s->read_ns, bpf_ktime_get_ns());
}

#endif /* LOADLENS_REQ_UDP_BPF_H */
