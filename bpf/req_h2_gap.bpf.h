/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2: the frame walk's gaps. A read or write the walk lost its place in (more frames or
 * buffers than it takes, bytes it cannot read where it needs a header), or, in the clear, bytes
 * read that no walk saw (rt_h2_conn.rd_seq), begin a gap of that direction: its bytes go unwalked
 * until one read (write) is a client's (server's) whole frames from its first byte to its last,
 * where the walk resumes. What the streams of a gap count as is in include/loadlens/h2.h
 * (rt_h2_conn.sync, wsync); h2_gap_close() counts those never seen ended. Built on the
 * walk (req_h2_walk.bpf.h's h2_run()); h2_walk_gaps() is the walk of a
 * read or write with its gaps, in the clear (h2_io()) and over TLS (req_ssl.bpf.h's
 * ssl_h2_io()).
 */
#ifndef LOADLENS_REQ_H2_GAP_BPF_H
#define LOADLENS_REQ_H2_GAP_BPF_H

#include "req_h2_walk.bpf.h"

/* Connection c's reads go unwalked from here (a gap, rt_h2_conn.sync): the streams the client
 * begins meanwhile are those above its highest stream id so far. */
static __always_inline void h2_gap(struct rt_h2_conn *c, int slot)
{
	if (c->sync == RT_H2_SYNC_GAP)
		return;
	c->sync = RT_H2_SYNC_GAP;
	c->gap_lo = c->max_sid;
	c->gap_hi = ~0u;
	REC_ADD(slot, h2_gaps, 1);
}

/* A write of connection c not walked (in a write gap): the streams open now may have been
 * answered in it. Their count moves to wgap_open, and a server frame on one of them (the client
 * began them by wgap_sid) is then wgap's (h2_frame(), h2_freed()). (A stream the client begins on
 * another CPU between the two loads below is counted on the wrong side: a nanosecond's race.) */
static __always_inline void h2_wr_move(struct rt_h2_conn *c)
{
	__u32 sid = c->max_sid;
	__s32 moved;

	barrier();
	moved = c->open_rd + c->open_wr;
	c->wgap_sid = sid;
	if (!moved)
		return;
	c->open_wr -= moved;
	__sync_fetch_and_add(&c->wgap_open, moved);
}

/* Connection c's writes go unwalked from here (a write gap, rt_h2_conn.wsync): its header
 * blocks' records stop until the walk's next header block (HPACK's table then unknown: records
 * marked fresh, bpf/req_h2_hb.bpf.h), and each of its writes is looked at for whole server
 * frames. */
static __always_inline void h2_wr_gap(struct rt_h2_conn *c, int slot)
{
	c->wsync = RT_H2_SYNC_GAP;
	c->wr.hb |= LL_H2_HB_STOP;
	REC_ADD(slot, h2_gaps, 1);
	h2_wr_move(c);
}

/* A direction's carried place, forgotten (in a gap): nothing cut is carried, and a write's
 * header blocks' records stay stopped. */
static __always_inline void h2_dir_reset(struct rt_h2_conn *c, bool write)
{
	__u8 hb;

	if (!write) {
		__builtin_memset(&c->rd, 0, sizeof(c->rd));
		return;
	}
	hb = c->wr.hb;
	__builtin_memset(&c->wr, 0, sizeof(c->wr));
	c->wr.hb = hb;
}

/* In a gap of w's direction: is the read (write) a client's (server's) whole frames, from its
 * first byte to its last? A first walk that moves nothing looks, strict (ll_h2_gap_frame() on
 * each header). A read that drained the socket ends where a client's write did, on a frame; a
 * write that ends a response (or a flush) ends on a frame. Returns 1 with w set up to walk it
 * (strict, the place forgotten), or 0: it is not walked (counted; a write's open streams move to
 * wgap_open). */
static __always_inline int h2_resync(struct rt_h2_conn *c, struct h2_walk *w, __u64 iov,
				     __u64 base, __u32 niov, __u32 ret)
{
	h2_dir_reset(c, w->write);
	w->strict = 1;
	w->dry = 1;
	if (h2_run(c, w, iov, base, niov, ret) || !w->frames || w->d.skip || w->d.hlen) {
		if (w->write) {
			REC_ADD(w->slot, h2_gap_writes, 1);
			h2_wr_move(c);
		} else {
			REC_ADD(w->slot, h2_gap_reads, 1);
		}
		return 0;
	}
	h2_dir_reset(c, w->write);
	w->dry = 0;
	w->frames = 0;
	return 1;
}

/* One read's or write's walk on connection c with its gaps (w set up with its times): in a gap of
 * its direction it is walked only if h2_resync() finds its frames; a read or write the walk loses
 * its place in begins a gap from there, as bytes it did not see. */
static __always_inline void h2_walk_gaps(struct rt_h2_conn *c, struct h2_walk *w, __u64 iov,
					 __u64 base, __u32 niov, __u32 ret)
{
	__u8 sync = w->write ? c->wsync : c->sync;

	if (sync == RT_H2_SYNC_GAP && !h2_resync(c, w, iov, base, niov, ret))
		return;
	if (!h2_run(c, w, iov, base, niov, ret)) {
		if (w->write)
			c->wsync = RT_H2_SYNC_ON;
		else
			c->sync = RT_H2_SYNC_ON;
		return;
	}
	if (w->write) {
		h2_wr_gap(c, w->slot);
		REC_ADD(w->slot, h2_gap_writes, 1);
	} else {
		h2_gap(c, w->slot);
		REC_ADD(w->slot, h2_gap_reads, 1);
	}
}

/* Connection c closes: the streams of its gaps never seen ended are h2_gap_unknown's, answered
 * in a gap or never. */
static __always_inline void h2_gap_close(struct rt_h2_conn *c)
{
	__s32 unseen;

	if (c->wgap_open > 0) {
		/* open across a write gap, never ended after it */
		REC_ADD(c->slot, h2_gap_unknown, c->wgap_open);
		c->wgap_open = 0;
	}
	/* begun in read gaps and never seen ended (a read gap still open: its streams up to the
	 * highest the server ended) */
	unseen = c->gap_unseen;
	if (c->gap_hi == ~0u)
		unseen += ll_h2_client_streams(c->gap_lo, c->gap_wmax);
	if (unseen > 0)
		REC_ADD(c->slot, h2_gap_unknown, unseen);
	c->gap_unseen = 0;
	c->gap_wmax = 0;
}

#endif /* LOADLENS_REQ_H2_GAP_BPF_H */
