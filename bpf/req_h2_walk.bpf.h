/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2: the frame walk (bpf/req_h2.bpf.h): one read's or write's frame headers, buffer by
 * buffer, from the place its direction carried (h2_step(), h2_walk_buf(), h2_walk_io()), each
 * stream frame to the stream table (req_h2_streams.bpf.h) and each server header block to the
 * ring (req_h2_hb.bpf.h); h2_run() walks one read or write of a connection.
 */
#ifndef LOADLENS_REQ_H2_WALK_BPF_H
#define LOADLENS_REQ_H2_WALK_BPF_H

#include "req_h2_streams.bpf.h"
#include "req_h2_hb.bpf.h"

#define H2_MORE 0
#define H2_DONE 1
#define H2_LOST 2

/* One frame header of the len bytes at buf (user memory), from w->off and the place w->d
 * carries: H2_MORE, H2_DONE (the bytes are walked), or H2_LOST (too many frames, unreadable
 * bytes, no frame header). A global function, all its state in *w: the walk's loop is checked
 * in a few steps. */
LL_GLOBAL_NUM int h2_step(H2_W __u64 buf, __u32 len)
{
	__u32 pass = 0, take = 0, sid = 0, tf = 0;
	int rc, o;
	__u8 hl;
	H2_W_GET();

	if (!w)
		return H2_LOST;
	if (w->d.hb_left && w->off < len)
		h2_hb_out(w, buf, w->off,
			  w->d.hb_left < len - w->off ? w->d.hb_left : len - w->off, len);
	if (ll_h2_next(&w->d, w->off < len ? len - w->off : 0, &pass, &take))
		return H2_LOST;
	w->off += pass;
	if (!take)
		return H2_DONE;
	hl = w->d.hlen;
	if (hl > 8) /* (ll_h2_next's bound, for the verifier) */
		return H2_LOST;
	take &= 15;
	o = h2_win(w, buf, w->off, take, len);
	if (o >= 0) {
#ifdef H2_WIN
		__u32 i, u = (__u32)o;

		if (take == LL_H2_HDR && u <= H2_WIN - LL_H2_HDR) {
			/* a whole header (hl 0): two loads and two stores */
			barrier_var(u);
			u &= H2_WIN - 1;
			__builtin_memcpy(w->d.hdr, &w->win[u], LL_H2_HDR);
		} else {
#pragma unroll
			for (i = 0; i < LL_H2_HDR; i++)
				if (i < take)
					w->d.hdr[(hl + i) & 15] = w->win[(o + i) & (H2_WIN - 1)];
		}
#endif
	} else if (!buf || bpf_probe_read_user(&w->d.hdr[hl], take, (void *)(buf + w->off))) {
		return H2_LOST;
	}
	w->off += take;
	rc = ll_h2_got(&w->d, take, &sid, &tf);
	if (rc <= 0)
		return rc ? H2_LOST : H2_DONE; /* a header cut by the end: the rest comes next */
	if (++w->frames > targ_h2_frames)
		return H2_LOST;
	if (w->strict && !ll_h2_gap_frame(w->d.hdr, (int)w->write))
		return H2_LOST;
	if (w->dry)
		return H2_MORE;
	if (w->write)
		h2_hb_frame(w, sid, tf, w->d.skip);
	if (ll_h2_stream_frame(sid, tf))
		h2_frame(w, sid, tf);
	return H2_MORE;
}

/* The frame headers in the len bytes at buf. Returns 0, or 1 if the walk lost its place. A
 * global function: inlined in h2_walk_io's loop over the buffers, the verifier walked its own
 * loop once a buffer (280,000 instructions, 0.3 s a program at each start; now ~30,000). Its
 * caller inlines h2_walk_io, a frame less: 6.1 refuses a chain of frames over 512 bytes. */
LL_GLOBAL_NUM int h2_walk_buf(H2_W __u64 buf, __u32 len)
{
	int i, rc;
	H2_W_GET();

	if (!w)
		return 1;
	w->off = 0;
#ifdef H2_WIN
	w->wlen = 0;
#endif
	for (i = 0; i <= LL_H2_FRAMES; i++) {
		rc = h2_step(H2_WA(w) buf, len);
		if (rc != H2_MORE)
			return rc == H2_LOST;
	}
	return 1;
}

/* The ret bytes of the current read or write: one buffer at base (niov 1, iov 0), or the first
 * niov buffers of the iovec array at iov; niov 0: not known (the walk goes on only if they are
 * all payload it passes over). */
static __always_inline int h2_walk_io(struct h2_walk *w, __u64 iov, __u64 base, __u32 niov,
				      __u32 ret)
{
	__u64 v[2];
	__u32 i, left = ret, n, seq0;

	if (!w)
		return 1;
	seq0 = w->seq0;
	if (!niov) {
		if (w->d.hlen || w->d.skip < ret)
			return 1;
		w->d.skip -= ret;
		return 0;
	}
	if (!iov)
		return h2_walk_buf(H2_WA(w) base, ret);
	for (i = 0; i < LL_H2_IOVS && i < niov && left; i++) {
		if (bpf_probe_read_user(v, sizeof(v), (void *)(iov + 16 * (__u64)i)))
			break;
		n = v[1] < left ? (__u32)v[1] : left;
		if (h2_walk_buf(H2_WA(w) v[0], n))
			break;
		left -= n;
		if (w->seq0) /* (the next buffer's first byte; 0 stays unknown) */
			w->seq0 += n;
	}
	w->seq0 = seq0; /* (a walk after a dry one begins at the read's first byte again) */
	return left ? 1 : 0;
}

/* One read's or write's frames on connection c (the walk w set up with its times): the
 * direction's carried place in and out, the open streams. Returns 1 if the walk lost its place.
 * (Its gaps: h2_walk_gaps(), req_h2_gap.bpf.h, in the clear and over TLS.) */
static __always_inline int h2_run(struct rt_h2_conn *c, struct h2_walk *w, __u64 iov, __u64 base,
				  __u32 niov, __u32 ret)
{
	int lost;

	w->gen = c->gen;
	w->max_sid = c->max_sid; /* (a write's: which streams the client began) */
	w->gap_lo = c->gap_lo;
	w->gap_hi = c->gap_hi;
	w->wgap_sid = c->wgap_sid;
	if (w->write) {
		__builtin_memcpy(&w->d, &c->wr, sizeof(w->d));
		w->gap_wmax = c->gap_wmax;
		w->wseq = ++c->wseq;
		w->hb_seq = c->hb_seq;
	} else {
		__builtin_memcpy(&w->d, &c->rd, sizeof(w->d));
		w->open0 = c->open_rd + c->open_wr;
	}
	lost = h2_walk_io(w, iov, base, niov, ret);
	if (w->write) {
		__builtin_memcpy(&c->wr, &w->d, sizeof(w->d));
		c->hb_seq = w->hb_seq;
		c->open_wr += w->open;
		c->gap_wmax = w->gap_wmax;
	} else {
		__builtin_memcpy(&c->rd, &w->d, sizeof(w->d));
		c->max_sid = w->max_sid;
		c->gap_hi = w->gap_hi;
		c->open_rd += w->open;
	}
	if (w->gopen)
		__sync_fetch_and_add(&c->wgap_open, w->gopen);
	if (w->gunseen)
		__sync_fetch_and_add(&c->gap_unseen, w->gunseen);
	return lost;
}

#endif /* LOADLENS_REQ_H2_WALK_BPF_H */
