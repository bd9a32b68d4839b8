/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2: the server's header blocks (HEADERS, CONTINUATION, PUSH_PROMISE payloads, at most
 * LL_H2_HB_MAX bytes a frame) go in order to the "h2_hb" ring buffer, where userspace
 * (observer/sources/h2_status.c) decodes HPACK for each response's :status and each gRPC call's
 * grpc-status (include/loadlens/h2.h). Built on req_h2_conn.bpf.h (struct h2_walk,
 * h2_win()); the walk (req_h2_walk.bpf.h) calls h2_hb_frame() at each frame header
 * the server wrote, h2_hb_out() as a fragment's bytes pass, h2_hb_close() when the connection
 * closes.
 */
#ifndef LOADLENS_REQ_H2_HB_BPF_H
#define LOADLENS_REQ_H2_HB_BPF_H

#include "req_h2_conn.bpf.h"

/* The server's header blocks to userspace (observer/sources/h2_status.c); 0: off (the ring
 * at one page). Records are written without a wakeup while userspace drains the ring on a timer. */
const volatile __u32 targ_h2_hb = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RT_H2_HB_RING);
} h2_hb SEC(".maps");

/* Per slot, set by userspace (observer/sources/h2_status.c): the slot's blocks that begin with a
 * static-table :status are read here (h2_hb_static(), include/loadlens/h2.h). */
volatile __u8 h2_hb_quiet[RT_MAX_SLOTS];

/* Set by userspace while its reader sleeps for want of records (observer/sources/h2_status.c):
 * a header block's record then wakes it, if the ring was empty (the kernel's adaptive wakeup). */
volatile __u32 h2_hb_idle = 0;

/* The connection's records stop until its next header block (the ring full, or a fragment too
 * big): counted, each time. */
static __always_inline void h2_hb_stop(struct h2_walk *w, bool big)
{
	struct rt_rec *r = rec_of(w->slot);

	w->d.hb |= LL_H2_HB_STOP;
	w->d.hb_left = 0;
	if (!r)
		return;
	if (big)
		r->c.h2_hb_big++;
	else
		r->c.h2_hb_lost++;
}

/* Its n bytes at src: from the window at o where it holds them (o >= 0), else from user memory.
 * (Into a record of the tiny size from the window's first half: the record's whole LL_H2_HB_TINY
 * + 1 bytes in four loads and stores, no helper call; the bytes past n, never read, are the
 * window's: this buffer's, or zeros.) */
static __always_inline long h2_hb_copy(struct h2_walk *w, void *dst, __u32 n, __u64 src, int o,
				       bool tiny)
{
#ifdef H2_WIN
	__u32 u = (__u32)o;

	if (o >= 0 && tiny && u <= H2_WIN - LL_H2_HB_TINY - 1) {
		barrier_var(u);
		u &= H2_WIN - 1;
		__builtin_memcpy(dst, &w->win[u], LL_H2_HB_TINY + 1);
		return 0;
	}
	if (o >= 0)
		return bpf_probe_read_kernel(dst, n, &w->win[o & (H2_WIN - 1)]);
#endif
	return bpf_probe_read_user(dst, n, (void *)src);
}

/* The fragment about to go (its n next bytes at buf + off, of the buffer's len) is a whole block
 * that begins with a static-table :status, on a quiet slot: counted, and the rest of it not
 * sent; the connection's next record is fresh (its decoder did not see this block). */
static __always_inline bool h2_hb_static(struct h2_walk *w, __u64 buf, __u32 off, __u32 n,
					 __u32 len)
{
	__u32 slot = w->slot, flen;
	__u8 f = w->d.hdr[4], b = 0;
	struct rt_rec *r;
#ifdef H2_WIN
	int o;
#endif

	if (slot >= RT_MAX_SLOTS || !h2_hb_quiet[slot & (RT_MAX_SLOTS - 1)] || !n)
		return false;
	if (w->d.hdr[3] != LL_H2_HEADERS || !(f & LL_H2_END_HEADERS) ||
	    (f & (LL_H2_PADDED | LL_H2_PRIORITY_FLAG)))
		return false;
	flen = ((__u32)w->d.hdr[0] << 16) | ((__u32)w->d.hdr[1] << 8) | w->d.hdr[2];
	if (w->d.hb_left != flen)
		return false; /* (a block's first byte only) */
#ifdef H2_WIN
	o = h2_win(w, buf, off, 1, len);
	if (o >= 0)
		b = w->win[o & (H2_WIN - 1)];
	else
#endif
	if (bpf_probe_read_user(&b, 1, (void *)(buf + off)))
		return false;
	b -= LL_HPACK_STATIC_STATUS0;
	if (b >= RT_H2_STATIC_STATUSES)
		return false;
	r = rec_of(w->slot);
	if (!r)
		return false;
	r->c.h2_hb_static[b]++;
	if (f & LL_H2_END_STREAM)
		r->c.h2_hb_static_ends++;
	w->d.hb_left = 0;
	w->d.hb |= LL_H2_HB_RESUMED;
	return true;
}

/* One record of the current header block fragment: its n next bytes at buf + off (user memory),
 * of the buffer's len. */
static __always_inline void h2_hb_out(struct h2_walk *w, __u64 buf, __u32 off, __u32 n, __u32 len)
{
	__u64 src = buf + off;
	struct rt_h2_hb *h;
	__u32 flen;
	long err;
	int o = -1;

	if (h2_hb_static(w, buf, off, n, len))
		return;
#ifdef H2_WIN
	if (n && n <= H2_WIN) /* (a longer piece never fits the window: read from user memory) */
		o = h2_win(w, buf, off, n, len);
#endif

	/* the sizes are masks (LL_H2_HB_SMALL and LL_H2_HB_MAX are 2^k - 1, n <= LL_H2_HB_MAX):
	 * the verifier sees each read's bound in the register it is passed in */
	if (n <= LL_H2_HB_TINY) {
		h = bpf_ringbuf_reserve(&h2_hb, sizeof(*h) + LL_H2_HB_TINY + 1, 0);
		if (!h)
			goto lost;
		barrier_var(n);
		n &= LL_H2_HB_TINY;
		err = n ? h2_hb_copy(w, h->data, n, src, o, true) : 0;
	} else if (n <= LL_H2_HB_SMALL) {
		h = bpf_ringbuf_reserve(&h2_hb, sizeof(*h) + LL_H2_HB_SMALL + 1, 0);
		if (!h)
			goto lost;
		barrier_var(n);
		n &= LL_H2_HB_SMALL;
		err = n ? h2_hb_copy(w, h->data, n, src, o, false) : 0;
	} else {
		h = bpf_ringbuf_reserve(&h2_hb, sizeof(*h) + LL_H2_HB_MAX + 1, 0);
		if (!h)
			goto lost;
		barrier_var(n);
		n &= LL_H2_HB_MAX;
		err = h2_hb_copy(w, h->data, n, src, o, false);
	}
	if (err) {
		bpf_ringbuf_discard(h, BPF_RB_NO_WAKEUP);
		goto lost;
	}
	flen = ((__u32)w->d.hdr[0] << 16) | ((__u32)w->d.hdr[1] << 8) | w->d.hdr[2];
	h->sk = w->sk;
	h->gen = w->gen;
	h->slot = w->slot;
	h->off = (__u16)(flen - w->d.hb_left);
	h->n = (__u16)n;
	__builtin_memcpy(h->fh, w->d.hdr, LL_H2_HDR);
	h->seq = w->hb_seq++;
	h->flags = w->d.hb & LL_H2_HB_RESUMED ? LL_H2_HB_FRESH : 0;
	w->d.hb &= ~LL_H2_HB_RESUMED;
	bpf_ringbuf_submit(h, h2_hb_idle ? 0 : BPF_RB_NO_WAKEUP);
	w->d.hb |= LL_H2_HB_SEEN;
	w->d.hb_left -= (__u16)n;
	return;
lost:
	h2_hb_stop(w, false);
}

/* A frame header the server wrote (flen bytes of payload follow): a header block fragment's
 * bytes are copied as they pass (h2_step()); an empty one goes out at once. After a stop, the
 * records go on from the next block's first frame, the first of them marked LL_H2_HB_FRESH. */
static __always_inline void h2_hb_frame(struct h2_walk *w, __u32 sid, __u32 tf, __u32 flen)
{
	__u32 t = tf & 0xff;

	if (t == LL_H2_HEADERS && (sid & 1) && ((tf >> 8) & LL_H2_END_STREAM))
		REC_ADD(w->slot, h2_hb_ends, 1);
	if (!targ_h2_hb || (t != LL_H2_HEADERS && t != LL_H2_CONTINUATION && t != LL_H2_PUSH_PROMISE))
		return;
	if (w->d.hb & LL_H2_HB_STOP) {
		if (t == LL_H2_CONTINUATION || (w->d.hb & LL_H2_HB_CLOSED))
			return;
		w->d.hb = (w->d.hb & ~LL_H2_HB_STOP) | LL_H2_HB_RESUMED;
	}
	if (flen > LL_H2_HB_MAX) {
		h2_hb_stop(w, true);
		return;
	}
	w->d.hb_left = (__u16)flen;
	if (!flen)
		h2_hb_out(w, 0, 0, 0, 0);
}

/* The connection closes: its decoder in userspace goes (if it had one; once: the callers close
 * a connection once). */
static __always_inline void h2_hb_close(__u64 sk, struct rt_h2_conn *c)
{
	struct rt_h2_hb *h;

	if (!(c->wr.hb & LL_H2_HB_SEEN))
		return;
	c->wr.hb = LL_H2_HB_STOP | LL_H2_HB_CLOSED;
	h = bpf_ringbuf_reserve(&h2_hb, sizeof(*h) + LL_H2_HB_TINY + 1, 0);
	if (!h)
		return; /* (userspace forgets its oldest decoders when it has too many) */
	__builtin_memset(h, 0, sizeof(*h));
	h->sk = sk;
	h->gen = c->gen;
	h->slot = c->slot;
	h->seq = c->hb_seq;
	h->flags = LL_H2_HB_CLOSE;
	bpf_ringbuf_submit(h, BPF_RB_NO_WAKEUP);
}

#endif /* LOADLENS_REQ_H2_HB_BPF_H */
