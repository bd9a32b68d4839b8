// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * The socket census on a TCP iterator (observer/sources/census.c): the kernel walks the TCP
 * sockets of the namespace the iterator was created in (established hash: TIME_WAIT and request
 * sockets too; listeners are skipped, the census' listen pass counts them) and counts here what
 * the sock_diag census counts from one netlink message per socket:
 *
 *   cen_state[]            target sockets per TCP state, as sock_diag reports it (a TIME_WAIT
 *                          socket by its substate, a request socket as SYN_RECV)
 *   cen_port_*[]           CLOSE_WAIT, FIN_WAIT2, TIME_WAIT per target port (index + 1 in
 *                          targ_port_idx)
 *   cen_groups             (src, dst:port) -> ephemeral ports in use, bounded (cen_capped)
 *
 * and writes one struct cen_rec per socket to age (CLOSE_WAIT, FIN_WAIT2). A record that does
 * not fit the seq_file's buffer makes the kernel show the socket again after the read, so the
 * record is written before anything is counted and a refused one counts nothing.
 * Userspace sets listen_bits and the port range before each pass and zeroes the counts.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iter.bpf.h"
#include <bpf/bpf_endian.h>
#include "maps.bpf.h"
#include "loadlens/census_iter.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define TCP_SYN_RECV 3
#define TCP_FIN_WAIT2 5
#define TCP_TIME_WAIT 6
#define TCP_CLOSE_WAIT 8
#define TCP_LISTEN 10
#define TCP_NEW_SYN_RECV 12
#define AF_INET 2

struct bpf_iter__tcp___cen {
	struct bpf_iter_meta___ll *meta;
	struct sock_common *sk_common;
} __attribute__((preserve_access_index));

struct inet_timewait_sock___cen {
	volatile unsigned char tw_substate;
} __attribute__((preserve_access_index));

struct sock___cen {
	struct socket *sk_socket;
} __attribute__((preserve_access_index));

const volatile __u64 targ_port_bits[CEN_PORT_WORDS]; /* target ports */
const volatile __u8 targ_port_idx[65536];	      /* target port -> its index + 1 */
const volatile __u8 targ_all;			      /* no --port: every socket */
/* bpf_get_socket_cookie in an iterator (5.12); else the socket's address and its 4-tuple's hash,
 * unique among live sockets (the branch not taken is dead code) */
const volatile __u8 targ_cookie = 1;

__u64 listen_bits[CEN_PORT_WORDS]; /* ports something listens on (this census' listen pass) */
__u32 range_lo, range_hi;	   /* ip_local_port_range; 0: unread */

__u64 cen_state[CEN_STATES];
__u64 cen_sockets;
/* by a target port's index + 1 (0: unused) */
__u32 cen_port_close_wait[CEN_PORTS + 1], cen_port_fin_wait2[CEN_PORTS + 1];
__u32 cen_port_time_wait[CEN_PORTS + 1];
__u32 cen_capped; /* a group did not fit cen_groups */

LL_MAP(cen_groups, BPF_MAP_TYPE_HASH, CEN_GROUPS, struct cen_group_key,
       struct cen_group_val);

/* A port as an index the verifier can bound: 6.1's loses a u16's range across a helper call
 * (spilled and reloaded), and the compiler would drop a plain mask of a __u16. */
static __always_inline __u32 port_index(__u32 p)
{
	asm volatile("" : "+r"(p));
	return p & 0xffff;
}

static __always_inline bool targ_bit(__u16 port)
{
	__u32 p = port_index(port);

	return targ_port_bits[p >> 6] & (1ULL << (p & 63));
}

static __always_inline void addrs(struct sock_common *skc, __u8 family, __u8 *saddr, __u8 *daddr)
{
	if (family == AF_INET) {
		__builtin_memcpy(saddr, &skc->skc_rcv_saddr, 4);
		__builtin_memcpy(daddr, &skc->skc_daddr, 4);
	} else {
		bpf_core_read(saddr, 16, &skc->skc_v6_rcv_saddr);
		bpf_core_read(daddr, 16, &skc->skc_v6_daddr);
	}
}

static __always_inline void group_add(struct sock_common *skc, __u8 family, __u16 dport,
				      __u8 state)
{
	struct cen_group_key k = {};
	struct cen_group_val *v, nv = {};

	addrs(skc, family, k.saddr, k.daddr);
	k.dport = dport;
	k.family = family;
	v = bpf_map_lookup_elem(&cen_groups, &k);
	if (!v) {
		nv.in_use = 1;
		nv.time_wait = state == TCP_TIME_WAIT;
		nv.fin_wait2 = state == TCP_FIN_WAIT2;
		if (bpf_map_update_elem(&cen_groups, &k, &nv, BPF_NOEXIST))
			cen_capped = 1; /* full: said in the summary, as sock_diag's census does */
		return;
	}
	v->in_use++;
	v->time_wait += state == TCP_TIME_WAIT;
	v->fin_wait2 += state == TCP_FIN_WAIT2;
}

SEC("iter/tcp")
int handle_tcp(struct bpf_iter__tcp___cen *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	__u16 sport, dport, port;
	__u8 state, family;
	__u32 idx;
	struct cen_rec rec;

	if (!skc)
		return 0;
	state = skc->skc_state;
	if (state == TCP_LISTEN)
		return 0; /* the listen pass (sock_diag) counts listeners */
	sport = skc->skc_num;
	dport = bpf_ntohs(skc->skc_dport);
	if (!targ_all && !targ_bit(sport) && !targ_bit(dport))
		return 0;
	family = (__u8)skc->skc_family;
	if (state == TCP_TIME_WAIT)
		state = BPF_CORE_READ((struct inet_timewait_sock___cen *)skc, tw_substate);
	else if (state == TCP_NEW_SYN_RECV)
		state = TCP_SYN_RECV; /* sock_diag reports a request socket so */
	if (state == TCP_CLOSE_WAIT || state == TCP_FIN_WAIT2) {
		__builtin_memset(&rec, 0, sizeof(rec));
		addrs(skc, family, rec.saddr, rec.daddr);
		rec.sport = sport;
		rec.dport = dport;
		rec.family = family;
		rec.state = state;
		/* a full socket (not TIME_WAIT's FIN_WAIT2) an application holds has a struct socket */
		rec.accepted = skc->skc_state == TCP_CLOSE_WAIT &&
			       BPF_CORE_READ((struct sock___cen *)skc, sk_socket) != NULL;
		if (targ_cookie) {
			rec.cookie = bpf_get_socket_cookie(skc);
		} else { /* the address as a number (read, not cast: no pointer math) */
			bpf_probe_read_kernel(&rec.cookie, sizeof(rec.cookie), &ctx->sk_common);
			rec.cookie ^= (__u64)skc->skc_hash << 32;
		}
		if (bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec)))
			return 0; /* shown again after this read: counted then */
	}
	if (state < CEN_STATES)
		cen_state[state]++;
	cen_sockets++;
	if (!targ_all && (state == TCP_CLOSE_WAIT || state == TCP_FIN_WAIT2 ||
			  state == TCP_TIME_WAIT)) {
		port = targ_bit(sport) ? sport : dport;
		idx = targ_port_idx[port_index(port)];
		if (idx > 0 && idx <= CEN_PORTS) {
			cen_port_close_wait[idx] += state == TCP_CLOSE_WAIT;
			cen_port_fin_wait2[idx] += state == TCP_FIN_WAIT2;
			cen_port_time_wait[idx] += state == TCP_TIME_WAIT;
		}
	}
	/* a client-side socket holding an ephemeral port */
	if (!range_lo || sport < range_lo || sport > range_hi ||
	    (listen_bits[port_index(sport) >> 6] & (1ULL << (sport & 63))))
		return 0;
	group_add(skc, family, dport, state);
	return 0;
}
