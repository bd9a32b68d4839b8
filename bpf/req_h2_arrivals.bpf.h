/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2: each stream's own arrival (include/loadlens/h2.h, struct rt_h2_arrivals): the table of
 * each connection's last arrivals, claimed at its preface and fed by every arrival on it
 * (h2_arr_note(), from h2_hello() and h2_arrival()), read where a client HEADERS begins a stream
 * (h2_arr_stamp(), from h2_frame()). Part of the HTTP/2 layers (bpf/req_h2.bpf.h). The socket is a number here: the global functions take it in memory, where its type is
 * gone (a pointer may not be hashed), as the frame walk does (struct h2_walk.sk).
 */
#ifndef LOADLENS_REQ_H2_ARRIVALS_BPF_H
#define LOADLENS_REQ_H2_ARRIVALS_BPF_H

#include "req_sk.bpf.h"
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

#ifndef LL_PRE_5_12
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

/* The stamp of the arrival that brought byte seq of connection (sk, gen); 0: not known. */
static __always_inline __u64 h2_arr_stamp(__u64 sk, __u64 gen, __u32 seq)
{
	__u32 i = ll_h2_arr_slot(sk);
	struct rt_h2_arrivals *a = bpf_map_lookup_elem(&h2_arrivals, &i);

	if (!a || a->sk != sk || a->gen != gen)
		return 0;
	return ll_h2_arrival_of(a, seq);
}
#else
/* (before 5.12, the compat object: a pointer is not made a number; each stream keeps its
 * read's stamp) */
static __always_inline __u64 h2_arr_stamp(__u64 sk, __u64 gen, __u32 seq)
{
	return 0;
}
#endif

#endif /* LOADLENS_REQ_H2_ARRIVALS_BPF_H */
