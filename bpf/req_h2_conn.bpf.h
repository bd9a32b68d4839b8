/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2: what the frame walk keeps (bpf/req_h2.bpf.h): each connection's state in its socket's
 * own storage (h2_conns), the stream table and the connections' runs of streams
 * (include/loadlens/h2.h), and one read's or write's walk (struct h2_walk) with its window on
 * the user's buffer (h2_win()). The stream table's steps (req_h2_streams), the header blocks
 * (req_h2_hb), the walk (req_h2_walk) and its gaps (req_h2_gap) are built on it.
 */
#ifndef LOADLENS_REQ_H2_CONN_BPF_H
#define LOADLENS_REQ_H2_CONN_BPF_H

#include "req_sk.bpf.h"
#include "req_rec.bpf.h"
#include "loadlens/h2.h"

/* The walk's bound, frame headers a read or write: LL_H2_FRAMES, or fewer for a test
 * (LOADLENS_OBSERVER_H2_FRAMES; the loops stay bounded by LL_H2_FRAMES). */
const volatile __u32 targ_h2_frames = LL_H2_FRAMES;

/* each HTTP/2 connection's walk, in its socket's own storage (freed with the socket) */
LL_SK_STORAGE(h2_conns, struct rt_h2_conn);
_Static_assert(sizeof(struct rt_h2_conn) <= sizeof(ll_sk_zero), "ll_sk_zero");

LL_MAP(h2_streams, BPF_MAP_TYPE_ARRAY, RT_H2_STREAMS, __u32, struct rt_h2_stream);

/* the connections' runs of streams (include/loadlens/h2.h) */
LL_MAP(h2_runs, BPF_MAP_TYPE_ARRAY, RT_H2_RUNS, __u32, struct rt_h2_stream);

#define H2_WIN_LEN 64
#ifndef LL_PRE_5_12
/* The walk's window on the current buffer: up to H2_WIN of its bytes, read from user memory in
 * one go where the walk first needs any (a frame header, a header block's bytes). The frame
 * headers and header blocks of a short read or write then cost one read of user memory, not one
 * each: a bpf_probe_read_user() is the walk's dearest step (~100 ns here, most of it the kernel's
 * checks of a user copy), where a header copied from the window is a few loads. Before 5.12 (the
 * compat object) there is no window: the verifier there refuses a read of the stack at a
 * variable place. */
#define H2_WIN H2_WIN_LEN
#endif

/* One read's or write's walk: the direction's carried place, and what its frames need. */
struct h2_walk {
	/* (the window's fields in both objects, which lay out the map h2_walks alike; used where
	 * H2_WIN is defined) */
	__u8 win[H2_WIN_LEN]; /* the window's bytes: those of the buffer from wofs, wlen of them */
	__u64 wbuf;
	__u32 wofs;
	__u32 wlen;	/* 0: nothing held */
	struct rt_h2_dir d;
	__u64 sk;
	__u64 gen;
	__u64 now;	/* the read's time, or the write's */
	__u64 arrival;	/* a read: when its bytes were queued (0: unknown) */
	__u64 accept;	/* a read: the connection's accept time, for its first stream */
	__u32 slot;
	__u32 seq0;	/* a read of the clear: the TCP sequence number of the current buffer's
			 * first byte (0: unknown) */
	__u32 off;	/* the walk's place in the current buffer */
	__u32 frames;	/* frame headers walked */
	__u32 max_sid;
	__u32 wseq;
	__s32 open;	/* streams begun less streams ended */
	__s32 open0;	/* a read: the connection's open streams before it */
	__u32 hb_seq;	/* a write: the connection's header block records so far */
	__u32 gap_lo;	/* the connection's gap (rt_h2_conn): streams above gap_lo, below gap_hi */
	__u32 gap_hi;
	__u32 wgap_sid;	/* its last write gap: the streams then begun (rt_h2_conn.wgap_sid) */
	__s32 gopen;	/* those of them ended */
	__s32 gunseen;	/* streams begun in a read gap, less those ended (rt_h2_conn.gap_unseen) */
	__u32 gap_wmax;	/* a write: the highest stream id above gap_lo it ended, gap_hi unknown */
	__u8 write;
	__u8 strict;	/* in a gap: every header must be a client's (a read) or a server's (a
			 * write), ll_h2_gap_frame() */
	__u8 dry;	/* ... and its first walk only looks: no stream is moved */
};

/*
 * The walk's global functions (req_h2_walk.bpf.h) take it as their first argument (H2_W in a
 * declaration, H2_WA(w) in a call: bpf/observe.bpf.h's LL_STATE_*). Before 5.12 (the compat
 * object) a global function takes numbers only and a pointer may not be made a number (the
 * socket is hashed): the walk is then each CPU's entry of h2_walks, which its callers fill and
 * its global functions look up (the programs that walk do not nest on a CPU: the socket calls'
 * trampolines and the libssl uprobes run in the task, one at a time), and a socket stored there
 * reads back as a number.
 */
LL_MAP(h2_walks, BPF_MAP_TYPE_PERCPU_ARRAY, 1, __u32, struct h2_walk); /* (both objects: alike) */

#define H2_W LL_STATE_PARAM(struct h2_walk, w)
#define H2_WA(w) LL_STATE_ARG(w)
#define H2_W_GET() LL_STATE_GET(struct h2_walk, w, h2_walks)

/* A new walk, zeroed: *stack (the caller's), or before 5.12 this CPU's entry (NULL: none). */
#define h2_walk_new(stack) LL_STATE_NEW(h2_walks, stack)

/* The place in the window of the n bytes at buf + off (off + n <= len, the buffer's bytes),
 * after reading the window there if it does not hold them; -1 if it cannot (the caller reads them
 * itself, as without a window). */
static __always_inline int h2_win(struct h2_walk *w, __u64 buf, __u32 off, __u32 n, __u32 len)
{
#ifdef H2_WIN
	__u32 m;

	if (w->wlen && w->wbuf == buf && off >= w->wofs && off + n <= w->wofs + w->wlen)
		return (int)(off - w->wofs);
	if (off >= len || !buf)
		return -1;
	m = len - off;
	if (m >= H2_WIN) {
		if (bpf_probe_read_user(w->win, H2_WIN, (void *)(buf + off)))
			return -1;
		m = H2_WIN;
	} else {
		barrier_var(m); /* (the mask stays: the verifier bounds the register passed) */
		m &= H2_WIN - 1;
		if (bpf_probe_read_user(w->win, m, (void *)(buf + off)))
			return -1;
	}
	w->wbuf = buf;
	w->wofs = off;
	w->wlen = m;
	return n <= m ? 0 : -1;
#else
	return -1;
#endif
}

#endif /* LOADLENS_REQ_H2_CONN_BPF_H */
