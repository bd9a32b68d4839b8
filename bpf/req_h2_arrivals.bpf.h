/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2: each stream's own arrival (include/loadlens/h2.h, struct rt_h2_arrivals), and TLS:
 * each record's (read apart by the server's libssl: req_ssl.bpf.h's ssl_stamp()): the table of
 * each connection's last arrivals, claimed at its preface and fed by every arrival on it
 * (h2_arr_note(), from h2_hello() and h2_arrival()), read where a client HEADERS begins a stream
 * (h2_arr_stamp(), from h2_frame()). Part of the HTTP/2 layers (bpf/req_h2.bpf.h). The socket
 * is a number here (LL_PTR_NUM: a pointer may not be hashed), as the frame walk has it (struct
 * h2_walk.sk).
 */
#ifndef LOADLENS_REQ_H2_ARRIVALS_BPF_H
#define LOADLENS_REQ_H2_ARRIVALS_BPF_H

#include "req_tcp.bpf.h"
#include "loadlens/h2.h"

LL_MAP(h2_arrivals, BPF_MAP_TYPE_ARRAY, RT_H2_ARR_SLOTS, __u32, struct rt_h2_arrivals);

/* What a connection's arrival or claim hands over. */
struct h2_arr_in {
	__u64 sk;  /* the socket, as a number */
	__u64 gen; /* a claim: the connection's generation (0: an arrival) */
	__u64 ns;  /* an arrival: its stamp */
	__u32 end; /* the end of the bytes queued now (rcv_nxt) */
	__u32 pad;
};

/* Into the connection's entry: a claim (in->gen set: its preface was read; the entry is its own
 * from here, where another connection's kept the older stamps), or an arrival (in->ns: bytes
 * queued; into the entry if the connection holds it). */
LL_GLOBAL int h2_arr_note(struct h2_arr_in *in)
{
	struct rt_h2_arrivals *a;
	__u32 i;

	if (!in)
		return 0;
	i = ll_h2_arr_slot(in->sk);
	a = bpf_map_lookup_elem(&h2_arrivals, &i);
	if (!a)
		return 0;
	if (in->gen) {
		a->sk = in->sk;
		a->gen = in->gen;
		a->n = 0;
		a->next_seq = in->end;
	} else if (a->sk == in->sk) {
		ll_h2_arrival_add(a, in->end, in->ns);
	}
	return 0;
}

/* The connection of sk takes its entry (gen: an HTTP/2 connection's generation, or
 * RT_ARR_TLS_GEN): the bytes queued now keep the read's stamp. */
#define RT_ARR_TLS_GEN 1
static __always_inline void arr_claim(const struct sock *sk, __u64 gen)
{
	struct h2_arr_in in = {
		.sk = LL_PTR_NUM(sk),
		.gen = gen,
		.end = BPF_CORE_READ((struct tcp_sock *)sk, rcv_nxt),
	};

	h2_arr_note(&in);
}

/* Bytes were queued to sk (s: its state, now: the stamp tcp_arrived() took, 0: none): the
 * segment's stamp, into its connection's entry. */
static __always_inline void arr_segment(const struct sock *sk, struct rt_tcp_sock *s, __u64 now,
					bool kf)
{
	struct h2_arr_in in = {
		.sk = LL_PTR_NUM(sk),
		.ns = now ? now : tcp_clock(sk, s->read_ns, kf),
		.end = LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt),
	};

	h2_arr_note(&in);
}

/* The stamp of the arrival that brought byte seq of connection (sk, gen); 0: not known. */
static __always_inline __u64 h2_arr_stamp(__u64 sk, __u64 gen, __u32 seq)
{
	__u32 i = ll_h2_arr_slot(sk);
	struct rt_h2_arrivals *a = bpf_map_lookup_elem(&h2_arrivals, &i);

	if (!a || a->sk != sk || a->gen != gen)
		return 0;
	return ll_h2_arrival_of(a, seq);
}

/* The same for a caller that holds the socket as a pointer (no shift may take one): in->sk,
 * in->gen, byte in->end, through a global function's argument in memory, a number there. */
LL_GLOBAL __u64 h2_arr_stamp_of(struct h2_arr_in *in)
{
	return in ? h2_arr_stamp(in->sk, in->gen, in->end) : 0;
}

#endif /* LOADLENS_REQ_H2_ARRIVALS_BPF_H */
