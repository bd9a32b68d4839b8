/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Which sockets request timing times, and in which slot: the target ports, the network namespace,
 * --pid/--cgroup ownership (decided at a socket's first read or write) and the slots given to the
 * ports of a target's own sockets without --port.
 * Part of request timing (bpf/req.bpf.h).
 */
#ifndef LOADLENS_REQ_SCOPE_BPF_H
#define LOADLENS_REQ_SCOPE_BPF_H

#include "req_rec.bpf.h"

/* Port -> 1 + index of the port in --port order; 0: not a target. Every entry 1: --all-ports. */
const volatile __u8 targ_slot[65536] = {};

/* --pid/--cgroup: only sockets that a target process reads or writes first are timed. */
const volatile __u8 targ_owned = 0;

/* --pid/--cgroup without --port: port -> 1 + its index (0: none yet), and index -> port, as the
 * target's sockets are first seen; userspace reads dyn_port to label the slots. */
__u64 dyn_index[65536]; /* u64: clang 14 has 64-bit compare-and-swap only */
__u16 dyn_port[RT_DYN_PORTS];
__u64 dyn_count; /* u64: clang 14 returns a fetch-and-add result for 64 bits only */

LL_MAP(foreign, BPF_MAP_TYPE_LRU_HASH, RT_FOREIGN_SLOTS, struct rt_foreign_key,
       struct rt_foreign);

/*
 * Slot of a socket: 2 * port index + udp; RT_SLOT_DYN when the slot is the socket's own (--pid
 * without --port: decided at its first read or write, see owned()); -1 for a socket we do not
 * time: another port, protocol or network namespace. The netns costs two loads, and only for
 * sockets on a target port.
 */
static __always_inline int sock_slot(const struct sock *sk, bool *udp)
{
	__u8 s = targ_slot[sk->__sk_common.skc_num];
	__u16 proto;

	if (!s)
		return -1;
	proto = sk->sk_protocol;
	if (proto == IPPROTO_TCP)
		*udp = false;
	else if (proto == IPPROTO_UDP)
		*udp = true;
	else
		return -1;
	if (!ll_net_is_target(sk->__sk_common.skc_net.net, true))
		return -1;
	if (s == RT_SLOT_DYN)
		return RT_SLOT_DYN;
	return 2 * (s - 1) + *udp;
}

/* --pid/--cgroup without --port: the slot index of a port, given one at first sight. */
static __always_inline int dyn_slot(__u16 port)
{
	__u64 *e = &dyn_index[port], old;
	__u64 n;

	if (*e)
		return (int)*e - 1;
	n = LL_FETCH_ADD(&dyn_count, 1);
	if (n >= RT_DYN_PORTS)
		return -1;
	old = LL_CMPXCHG(e, 0, n + 1);
	if (old) /* another CPU gave this port a slot at the same moment: index n stays unused */
		return (int)old - 1;
	dyn_port[n] = port;
	return n;
}

/*
 * The socket's local port was picked by connect()'s search for an ephemeral port: the socket is
 * the client end. A port in the ephemeral range is not enough: a server may listen on one (bound
 * to port 0, or by choice), and its accepted sockets share the listener's bind bucket, made by
 * bind() (fastreuse 0 or 1), where connect()'s own buckets have fastreuse -1. TCP only; a UDP
 * socket on an ephemeral port is judged by the range.
 */
struct local_ports___int2 { /* before Linux 6.5: int range[2] (since: u32, high << 16 | low) */
	int range[2];
} __attribute__((preserve_access_index));
struct netns_ipv4___int2 {
	struct local_ports___int2 ip_local_ports;
} __attribute__((preserve_access_index));
struct net___int2 {
	struct netns_ipv4___int2 ipv4;
} __attribute__((preserve_access_index));

static __always_inline bool ephemeral(const struct sock *sk, bool udp)
{
	const struct net *net = sk->__sk_common.skc_net.net;
	const struct net___int2 *old = (const void *)net;
	__u16 port = sk->__sk_common.skc_num;
	__u32 lo, hi, range;

	/* the relocation of the layout this kernel lacks fails, in a branch the verifier drops */
	if (bpf_core_field_exists(old->ipv4.ip_local_ports.range)) {
		lo = (__u32)old->ipv4.ip_local_ports.range[0];
		hi = (__u32)old->ipv4.ip_local_ports.range[1];
	} else {
		range = net->ipv4.ip_local_ports.range;
		lo = range & 0xffff;
		hi = range >> 16;
	}
	if (port < lo || port > hi)
		return false;
	if (udp)
		return true;
	return BPF_CORE_READ((const struct inet_connection_sock *)sk, icsk_bind_hash,
			     fastreuse) < 0;
}

/* A server-side socket first read or written by a process that is not a target: who, on which
 * port (once per socket; an LRU map, so the busiest readers stay). */
static __always_inline void foreign_reader(const struct sock *sk, bool udp)
{
	struct rt_foreign_key k = {.tgid = bpf_get_current_pid_tgid() >> 32,
				   .port = sk->__sk_common.skc_num, .udp = udp};
	struct rt_foreign *v, nv = {};

	v = bpf_map_lookup_elem(&foreign, &k);
	if (v) {
		__sync_fetch_and_add(&v->sockets, 1);
		return;
	}
	nv.sockets = 1;
	bpf_get_current_comm(nv.comm, sizeof(nv.comm));
	if (!bpf_map_update_elem(&foreign, &k, &nv, BPF_NOEXIST))
		return;
	v = bpf_map_lookup_elem(&foreign, &k); /* another CPU added it first */
	if (v)
		__sync_fetch_and_add(&v->sockets, 1);
}

/*
 * Is this socket timed, and in which slot? `slot` is sock_slot()'s answer. Without --pid/--cgroup
 * every socket of a target port is. With them, the first process that reads or writes the socket
 * decides, once: this runs in that process's context (sock_recv_length, sock_send_length), so a
 * target's socket is timed and another process's is not, whatever ports they share. Without
 * --port, the socket's port gets a slot here. *flags and *own are the socket state's.
 */
static __always_inline int owned(const struct sock *sk, int slot, bool udp, __u8 *flags,
				 __u8 *own)
{
	int n;

	if (*flags & RT_F_FOREIGN)
		return -1;
	if (*flags & RT_F_OWNED)
		return slot == RT_SLOT_DYN ? *own : slot;
	if (!targ_owned)
		return slot;
	if (!proc_wanted()) {
		*flags |= RT_F_FOREIGN;
		global_add(RT_G_FOREIGN, 1);
		if (slot != RT_SLOT_DYN || !ephemeral(sk, udp))
			foreign_reader(sk, udp);
		return -1;
	}
	if (slot == RT_SLOT_DYN) {
		if (ephemeral(sk, udp)) {
			/* the target is the client here (a connection it made): not a request
			 * it serves */
			*flags |= RT_F_FOREIGN;
			global_add(RT_G_CLIENT, 1);
			return -1;
		}
		n = dyn_slot(sk->__sk_common.skc_num);
		if (n < 0) {
			*flags |= RT_F_FOREIGN;
			global_add(RT_G_PORTS_FULL, 1);
			return -1;
		}
		slot = 2 * n + udp;
		*own = (__u8)slot;
	}
	*flags |= RT_F_OWNED;
	return slot;
}

#endif /* LOADLENS_REQ_SCOPE_BPF_H */
