/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Request timing's base for every socket: the constants of the kernel's it tests, and where a
 * socket's own state lives (its sk_storage, or the hash that stands in for it before 5.11).
 * Included by each part of request timing (bpf/req.bpf.h) that keeps state by socket.
 */
#ifndef LOADLENS_REQ_SK_BPF_H
#define LOADLENS_REQ_SK_BPF_H

#include "observe.bpf.h"
#include "loadlens/reqtime.h"
#include "loadlens/hist_fast.h"

#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define MSG_PEEK 2
#define TASK_RUNNING 0

/*
 * A socket's own state (tcp_socks, udp_socks, h2_conns): its sk_storage, which tracing programs may
 * use from Linux 5.11. Before that (ll_sk_hash, set before load where the verifier does not know
 * bpf_sk_storage_get in a tp_btf program) a hash keyed by the socket's address stands in, bounded
 * (userspace sizes it: 1 entry where it is not used), its entries deleted as the socket is
 * destroyed (handle_inet_sock_destruct), so that an address used again starts empty. A socket
 * that finds it full goes without, counted as the storage's failures are. The branch not taken is
 * dead code to the verifier (read-only data), which removes it with its helper call.
 */
const volatile __u8 ll_sk_hash = 0;

/* name: a vtype in each socket's own storage (created on first use, freed with the socket), and
 * name##_hash, its stand-in */
#define LL_SK_STORAGE(name, vtype)                                                                 \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_SK_STORAGE);                                             \
		__uint(map_flags, BPF_F_NO_PREALLOC);                                              \
		__type(key, int);                                                                  \
		__type(value, vtype);                                                              \
	} name SEC(".maps");                                                                       \
	LL_MAP(name##_hash, BPF_MAP_TYPE_HASH, 1, __u64, vtype)

/* the zero value a hash entry starts from (as a new sk_storage does): the largest value's size */
static const __u8 ll_sk_zero[sizeof(struct rt_udp_sock)];
_Static_assert(sizeof(struct rt_tcp_sock) <= sizeof(ll_sk_zero), "ll_sk_zero");

/* bpf_sk_storage_get(&stor, sk, 0, flags), or the same from its stand-in hash */
#define LL_SK_GET(stor, hash, sk, flags)                                                           \
	({                                                                                         \
		void *v_;                                                                          \
		if (ll_sk_hash) {                                                                  \
			__u64 k_ = (__u64)(sk);                                                    \
			v_ = bpf_map_lookup_elem(&hash, &k_);                                      \
			if (!v_ && ((flags) & BPF_SK_STORAGE_GET_F_CREATE)) {                      \
				bpf_map_update_elem(&hash, &k_, ll_sk_zero, BPF_NOEXIST);          \
				v_ = bpf_map_lookup_elem(&hash, &k_);                              \
			}                                                                          \
		} else {                                                                           \
			v_ = bpf_sk_storage_get(&stor, (void *)(sk), 0, (flags));                  \
		}                                                                                  \
		v_;                                                                                \
	})

#endif /* LOADLENS_REQ_SK_BPF_H */
