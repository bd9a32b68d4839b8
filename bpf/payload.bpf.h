/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Payload sampling for request timing (bpf/req.bpf.h): now and then, when a server reads a new
 * request from a TCP socket of a target port, count the requests in the bytes it just read. A
 * client that writes a batch of requests in one write() (redis-benchmark -P, HTTP/1.1
 * pipelining) gives one arrival, one read and one response write per batch: request timing
 * counts a batch as one request, and nothing but the bytes tells (docs/observer/forensics.md,
 * "Pipelining"). include/loadlens/payload.h says how requests are counted, and its limits.
 *
 * Where the bytes are: sock_recv_length fires in the reading task's context, inside its system
 * call, so the task's user registers (bpf_task_pt_regs) hold the call and its arguments
 * (ll_syscall(): the call, and the buffer of read/recvfrom, the iovec of readv, the msghdr of
 * recvmsg), and bpf_probe_read_user copies up to LL_PL_SCAN bytes of what the kernel just wrote
 * there into a per-CPU scratch buffer. On x86-64 and arm64; elsewhere targ_payload stays 0.
 *
 * Cost (BENCHMARKS.md, "Observer: payload sampling"; bench/payload_cost.sh): a read that is not
 * sampled pays two loads (its CPU's gate, TCP's own clock tcp_clock_cache) and a compare; no map
 * lookup, no helper call. Each CPU samples at most one read per LL_PL_PERIOD_NS.
 */
#ifndef LOADLENS_PAYLOAD_BPF_H
#define LOADLENS_PAYLOAD_BPF_H

#include "req_tcp.bpf.h"
#include "loadlens/payload.h"

/* Payload sampling is on (where the system call registers are read: bpf/observe.bpf.h's
 * ll_syscall(); set by userspace before load). */
const volatile __u8 targ_payload = 0;
/* At most one sample per slot and CPU in this time; 0: every new request (to measure a
 * sample's cost). */
const volatile __u64 targ_payload_period_ns = LL_PL_PERIOD_NS;

/* The sampling gate: when this CPU last sampled a read, one cache line each, in .bss (a load
 * of the CPU's entry, no map lookup, no helper call: bpf_get_smp_processor_id() is inlined).
 * One gate for all slots: with several target ports, a port is sampled in proportion to its
 * reads. CPUs beyond PL_GATES share gates (a sample now and then more or less). */
#define PL_GATES 256
#define PL_GATE_WORDS 8 /* a cache line */
__u64 pl_gates[PL_GATES * PL_GATE_WORDS];

/* The counters of each request-timing slot. */
LL_MAP(pl_ctrs, BPF_MAP_TYPE_PERCPU_ARRAY, RT_MAX_SLOTS, __u32, struct rt_pl_ctrs);

struct pl_scratch {
	__u8 b[LL_PL_SCAN + 8];
};

/* The sampled bytes never leave the kernel: the observer's own descriptor of this map is
 * write-only (it cannot read the bytes back, before or after it drops root), the buffer is
 * cleared after each count, and only the counts in pl_ctrs are read. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_WRONLY);
	__type(key, __u32);
	__type(value, struct pl_scratch);
} pl_buf SEC(".maps");

/* ll_pl_count() of this CPU's scratch bytes as a global function: the verifier walks its loop
 * once. (Numbers in and out, and so on every kernel: bpf/observe.bpf.h's LL_GLOBAL_NUM.) */
LL_GLOBAL_NUM __u32 pl_count(__u32 n)
{
	__u32 zero = 0;
	struct pl_scratch *sb = bpf_map_lookup_elem(&pl_buf, &zero);

	if (!sb || n > LL_PL_SCAN)
		return LL_PL_BINARY;
	return ll_pl_count(sb->b, n);
}

/* The sampled read: count its requests into slot's counters. A global function: the verifier
 * checks it once, not again on every path of its caller. */
LL_GLOBAL_NUM int pl_sample(__u32 slot, int ret)
{
	struct pl_scratch *sb;
	struct rt_pl_ctrs *c = bpf_map_lookup_elem(&pl_ctrs, &slot);
	__u32 zero = 0, n, count, i;
	__u64 ubuf, ulen = 0, est;

	if (!c || ret <= 0)
		return 0;
	ubuf = ll_sys_buf(false, &ulen);
	sb = bpf_map_lookup_elem(&pl_buf, &zero);
	if (!ubuf || !sb) {
		c->unreadable++;
		return 0;
	}
	n = ulen < (__u64)ret ? (__u32)ulen : (__u32)ret;
	if (n > LL_PL_SCAN)
		n = LL_PL_SCAN;
	/* for the verifier: 1 <= n <= LL_PL_SCAN, as it was */
	n = ((n - 1) & (LL_PL_SCAN - 1)) + 1;
	if (n < 4) {
		c->binary++;
		return 0;
	}
	if (bpf_probe_read_user(sb->b, n, (void *)ubuf)) {
		c->unreadable++;
		return 0;
	}
	count = pl_count(n);
	/* the bytes are counted, not kept: no payload stays in the map after this sample */
	for (i = 0; i < sizeof(sb->b) / 8; i++) /* volatile: no memset, which BPF has not */
		((volatile __u64 *)sb->b)[i] = 0;
	if (count == LL_PL_BINARY) {
		c->binary++;
		return 0;
	}
	est = ll_pl_extrapolate(count, n, (__u64)ret);
	c->samples++;
	c->requests += est;
	if (est > 1)
		c->multi++;
	if (est != count)
		c->extrapolated++;
	if (est > c->max)
		c->max = est;
	return 0;
}

/*
 * A TCP read on a target port (req_recv, before tcp_read): sample it if its slot's gate on this
 * CPU is open and it begins a new request (not more of one being read), on a socket that is
 * timed (with --pid/--cgroup: one a target owns).
 */
static __always_inline void payload_recv(struct sock *sk, int slot, int ret, bool kf)
{
	__u64 *g = &pl_gates[(bpf_get_smp_processor_id() & (PL_GATES - 1)) * PL_GATE_WORDS];
	struct rt_tcp_sock *s;
	__u64 now, last;

	if (!targ_payload)
		return;
	/* TCP's clock, refreshed as this read copied the bytes: no clock read; a socket whose
	 * stamp is older than the gate's reads as not due */
	now = LL_READ_KF(kf, struct tcp_sock, sk, tcp_clock_cache);
	last = *g;
	if ((__s64)(now - last) < (__s64)targ_payload_period_ns && last)
		return;
	s = tcp_state(sk, false);
	if (!s || (s->flags & (RT_F_FOREIGN | RT_F_H2 | RT_F_TLS)) || s->state == RT_READING)
		return;
	if (targ_owned && !(s->flags & RT_F_OWNED))
		return; /* not known yet to be a target's (its first read) */
	if (slot == RT_SLOT_DYN)
		slot = s->slot;
	if (slot < 0 || slot >= RT_MAX_SLOTS)
		return;
	*g = now;
	pl_sample((__u32)slot, ret);
}

#endif /* LOADLENS_PAYLOAD_BPF_H */
