/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Request timing's figures: each slot's counters and histograms (one record per slot and CPU),
 * the counters of no slot, and the --trace records; record() adds one request.
 * Part of request timing (bpf/req.bpf.h).
 */
#ifndef LOADLENS_REQ_REC_BPF_H
#define LOADLENS_REQ_REC_BPF_H

#include "req_sk.bpf.h"

/* --trace: one request in targ_trace_every (per CPU) goes to the ring buffer; 0: off. */
const volatile __u32 targ_trace_every = 0;

/*
 * Each slot's counters and RT_NCOMP histograms, one record (struct rt_rec) per slot and CPU: key =
 * cpu * targ_nslots + slot. A request's whole update is one inlined array lookup (a bounds check
 * and a multiply), then plain adds into one record, where a per-CPU counter array and a histogram
 * array took a lookup each, per histogram. Memory-mapped, so userspace reads it with no system
 * call. Each CPU writes only its own records, one program at a time, as with a per-CPU map.
 * Userspace sizes it (number of CPUs x slots in use) before load.
 */
const volatile __u32 targ_nslots = 2;
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct rt_rec);
} recs SEC(".maps");

LL_MAP(global, BPF_MAP_TYPE_PERCPU_ARRAY, RT_G_MAX, __u32, __u64);

/* --trace records; userspace shrinks it to one page when --trace is off. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RT_TRACE_RING);
} trace SEC(".maps");

/* a - b, or 0 if b is later: clock values (< 2^63), so the sign of the difference says which
 * (one compare on the difference, where a > b ? a - b : 0 compiles to two) */
static __always_inline __u64 sub0(__u64 a, __u64 b)
{
	__s64 d = (__s64)(a - b);

	return d > 0 ? (__u64)d : 0;
}

static __always_inline void global_add(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&global, &idx);

	if (c)
		*c += n;
}

/* This CPU's record of a slot. */
static __always_inline struct rt_rec *rec_of(__u32 slot)
{
	__u32 key = bpf_get_smp_processor_id() * targ_nslots + slot;

	return bpf_map_lookup_elem(&recs, &key);
}

/* this CPU's counter field of the slot (struct rt_ctrs), plus n */
#define REC_ADD(slot, field, n)                                                                    \
	({                                                                                         \
		struct rt_rec *r_ = rec_of(slot);                                                  \
		if (r_)                                                                            \
			r_->c.field += (n);                                                        \
	})

static __always_inline void hist_add(struct rt_rec *r, __u32 comp, __u64 v)
{
	/* the mask costs one instruction and shows the verifier the bound */
	r->hist[comp][ll_hist_bucket_fast(v) & (LL_HIST_BUCKETS - 1)] += 1;
	r->c.sum_ns[comp] += v;
	if (v > r->c.max_ns[comp])
		r->c.max_ns[comp] = v;
}

static __always_inline void trace_emit(struct rt_ctrs *c, const struct sock *sk, bool udp,
				       __u64 arrival, __u64 accept, __u64 read, __u64 write)
{
	struct rt_trace_rec *r = bpf_ringbuf_reserve(&trace, sizeof(*r), 0);
	__u16 family = sk->__sk_common.skc_family;

	if (!r) {
		c->trace_lost++;
		return;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->arrival_ns = arrival;
	r->accept_ns = accept;
	r->read_ns = read;
	r->write_ns = write;
	r->tgid = bpf_get_current_pid_tgid() >> 32;
	r->family = family;
	r->udp = udp;
	r->sport = sk->__sk_common.skc_num;
	r->dport = bpf_ntohs(sk->__sk_common.skc_dport);
	if (family == AF_INET6) {
		bpf_probe_read_kernel(r->saddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		bpf_probe_read_kernel(r->daddr, 16, &sk->__sk_common.skc_v6_daddr);
	} else {
		*(__u32 *)r->saddr = sk->__sk_common.skc_rcv_saddr;
		*(__u32 *)r->daddr = sk->__sk_common.skc_daddr;
	}
	/* No wake-up per record: on a VM that cost the server's write call 11 us (the kernel's
	 * self-interrupt and the reader's wake-up, at one request in flight). The reader drains the
	 * ring every 100 ms (observer/sources/trace.c) and is woken only once it is half full. */
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&trace, BPF_RB_AVAIL_DATA) >= RT_TRACE_RING / 2
				      ? BPF_RB_FORCE_WAKEUP
				      : BPF_RB_NO_WAKEUP);
}

/*
 * A response has begun: add the request to its slot's record, which is returned (NULL if there is
 * none). Socket-queue wait starts at the arrival, or at the accept if the bytes arrived before the
 * connection was accepted; that earlier part is the request's accept-queue share. So residence =
 * accept share + socket-queue wait + service.
 */
static __always_inline struct rt_ctrs *record_ctrs(__u32 slot, __u64 arrival, __u64 accept,
						   __u64 read, __u64 write)
{
	struct rt_rec *r = rec_of(slot);
	struct rt_ctrs *c;

	if (!r)
		return NULL;
	c = &r->c;
	if (!c->first_ns)
		c->first_ns = write;
	c->last_ns = write;
	hist_add(r, RT_SERVICE, sub0(write, read));
	if (arrival) {
		hist_add(r, RT_QUEUE, sub0(read, accept > arrival ? accept : arrival));
		hist_add(r, RT_RESIDENCE, sub0(write, arrival));
		if (accept) {
			hist_add(r, RT_ACCEPT, sub0(accept, arrival));
			c->accept_n++;
		}
	} else {
		c->no_arrival++;
	}
	/* counters after the histograms: a reader that sees the count sees the buckets (stores on
	 * one CPU become visible in order on x86; the barrier keeps the compiler from reordering
	 * them), and reads a histogram back when its count moved */
	barrier();
	c->requests++;
	return c;
}

/* A request whose response went, its time unknown (rt_solo_write()): counted, not timed. */
static __always_inline void record_untimed(__u32 slot)
{
	struct rt_rec *r = rec_of(slot);

	if (!r)
		return;
	r->c.untimed++;
	r->c.no_arrival++;
	barrier();
	r->c.requests++;
}

/* The same, and one request in targ_trace_every to the --trace ring. */
static __always_inline void record(const struct sock *sk, __u32 slot, bool udp, __u64 arrival,
				   __u64 accept, __u64 read, __u64 write)
{
	struct rt_ctrs *c = record_ctrs(slot, arrival, accept, read, write);

	if (c && targ_trace_every && c->requests % targ_trace_every == 0)
		trace_emit(c, sk, udp, arrival, accept, read, write);
}

static __always_inline void unsolicited(int slot)
{
	REC_ADD(slot, unsolicited, 1);
}

#endif /* LOADLENS_REQ_REC_BPF_H */
