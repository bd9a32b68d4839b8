/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * HTTP/2: the stream table (include/loadlens/h2.h, "HTTP/2 streams timed at once"): a stream's
 * entry looked for and claimed (h2_look()), moved along by each frame on a client stream
 * (h2_frame(): begun, arrived, answered, ended), and freed when its connection closes with it
 * still open (h2_forget_open()). Built on req_h2_conn.bpf.h (struct h2_walk, the h2_runs
 * and h2_streams maps); called by the walk (req_h2_walk.bpf.h).
 */
#ifndef LOADLENS_REQ_H2_STREAMS_BPF_H
#define LOADLENS_REQ_H2_STREAMS_BPF_H

#include "req_h2_conn.bpf.h"
#include "req_h2_arrivals.bpf.h"

/* Stream sid's entry among RT_H2_PROBES entries of table map, the k-th at (base + ((rot + k) %
 * RT_H2_PROBES)) & mask: returns it (NULL: not there), and keeps the first free or stale one of
 * them in *fr if it has none yet (fresh: the first free one ends the search, the stream has no
 * entry to find). */
static __always_inline struct rt_h2_stream *h2_look(void *map, __u32 base, __u32 rot, __u32 mask,
						     struct h2_walk *w, __u32 sid, int fresh,
						     struct rt_h2_stream **fr)
{
	struct rt_h2_stream *p;
	__u32 k, i;

	for (k = 0; k < RT_H2_PROBES; k++) {
		i = (base + ((rot + k) & (RT_H2_PROBES - 1))) & mask;
		p = bpf_map_lookup_elem(map, &i);
		if (!p)
			return NULL;
		if (!fresh && p->sk == w->sk && p->gen == w->gen && p->sid == sid)
			return p;
		if (!*fr && (!p->sk || p->born_ns + RT_H2_STALE_NS <= w->now)) {
			*fr = p;
			if (fresh)
				return NULL;
		}
	}
	return NULL;
}

/* Stream sid's entry is freed: one open stream less (of those open across a write gap: its). */
static __always_inline void h2_freed(struct h2_walk *w, __u32 sid)
{
	if (sid <= w->wgap_sid)
		w->gopen--;
	else
		w->open--;
}

/* One frame on a client stream (ll_h2_stream_frame()): move its stream along. A global
 * function: the verifier checks it once, not once per frame of the walk. */
LL_GLOBAL int h2_frame(struct h2_walk *w, __u32 sid, __u32 tf)
{
	__u32 t = tf & 0xff;
	struct rt_h2_stream *e = NULL, *fr = NULL;
	struct rt_rec *r;
	int end, mine = 0, fresh;

	if (!w)
		return 0;
	/* A client's HEADERS on a stream id above every one it began is a new stream (ids only
	 * grow, RFC 9113 5.1.1): it has no entry, so the first free one will do. */
	fresh = !w->write && t == LL_H2_HEADERS && sid > w->max_sid;
	/* the stream's entry, or the first free (or stale) one of its 2 x RT_H2_PROBES: its
	 * connection's run, then its place of its own */
	e = h2_look(&h2_runs, ll_h2_run(w->sk, w->gen), sid >> 1, RT_H2_RUNS - 1, w, sid, fresh,
		    &fr);
	if (!e && !(fresh && fr))
		e = h2_look(&h2_streams, ll_h2_slot(w->sk, w->gen, sid), 0, RT_H2_STREAMS - 1, w,
			    sid, fresh, &fr);
	mine = e != NULL;
	if (!mine)
		e = fr;
	end = ll_h2_ends(tf);
	if (!w->write) {
		if (t == LL_H2_RST_STREAM) {
			if (!mine || !e)
				return 0;
			if (!e->write_ns)
				REC_ADD(w->slot, h2_client_reset, 1);
			e->sk = 0;
			h2_freed(w, sid);
			return 0;
		}
		if (!mine) {
			if (t != LL_H2_HEADERS)
				return 0; /* more of a stream not timed, or ended by the server */
			if (w->gap_hi == ~0u && sid > w->gap_lo) {
				/* the first stream after a gap: the client began those between
				 * (odd ids, RFC 9113 5.1.1) in it */
				w->gap_hi = sid;
				w->gunseen += ll_h2_client_streams(w->gap_lo, sid - 1);
			}
			/* claim an entry: free, or held by a stream begun long ago (two CPUs
			 * claiming one entry at once: the later stores win, and the other
			 * stream's response is h2_unmatched) */
			if (!e) {
				REC_ADD(w->slot, h2_stream_drops, 1);
				return 0;
			}
			/* no connection holds more than RT_H2_CONN_STREAMS entries: one client's
			 * streams cannot push out the others' */
			if (w->open0 + w->open >= RT_H2_CONN_STREAMS) {
				REC_ADD(w->slot, h2_over_bound, 1);
				return 0;
			}
			e->sk = w->sk;
			e->gen = w->gen;
			e->sid = sid;
			e->born_ns = w->now;
			/* its own arrival: the segment that brought this HEADERS frame's first
			 * byte (w->off is past its header); else, at its end, the read's */
			e->arrival_ns = w->seq0 ? h2_arr_stamp(w->sk, w->gen,
								w->seq0 + w->off - LL_H2_HDR)
						: 0;
			if (!e->arrival_ns && end)
				e->arrival_ns = w->arrival;
			e->read_ns = end ? w->now : 0;
			e->accept_ns = w->accept;
			e->write_ns = 0;
			e->wseq = 0;
			w->accept = 0;
			if (w->open0 + w->open > 0) {
				/* older streams of the connection still unanswered */
				REC_ADD(w->slot, h2_behind, 1);
			}
			w->open++;
			if (sid > w->max_sid)
				w->max_sid = sid;
			return 0;
		}
		if (end && e && !e->read_ns) {
			if (!e->arrival_ns)
				e->arrival_ns = w->arrival;
			e->read_ns = w->now;
		}
		return 0;
	}
	/* the server's frame */
	if (!mine || !e) {
		if (end && sid > w->gap_lo && sid < w->gap_hi) {
			/* begun while the reads went unwalked: counted, not timed */
			REC_ADD(w->slot, h2_gap_answered, 1);
			w->gunseen--;
			if (w->gap_hi == ~0u && sid > w->gap_wmax)
				w->gap_wmax = sid;
		} else if (end && sid <= w->max_sid) {
			/* a stream the client began, not timed (or its entry taken) */
			REC_ADD(w->slot, h2_unmatched, 1);
		}
		return 0;
	}
	if (sid <= w->wgap_sid && !e->write_ns) {
		/* open across a write gap with no response seen: it may have begun there */
		if (end) {
			REC_ADD(w->slot, h2_gap_answered, 1);
			e->sk = 0;
			w->gopen--;
		}
		return 0;
	}
	if (!e->read_ns) {
		/* the server answers before the request has ended: not timed (if a read gap
		 * came after its start, the request's end may have been in it) */
		if (end) {
			if (sid <= w->gap_lo)
				REC_ADD(w->slot, h2_gap_answered, 1);
			else
				REC_ADD(w->slot, h2_early, 1);
			e->sk = 0;
			h2_freed(w, sid);
		}
		return 0;
	}
	if (!e->write_ns) {
		e->write_ns = w->now;
		e->wseq = w->wseq;
		record_ctrs(w->slot, e->arrival_ns, e->accept_ns, e->read_ns, w->now);
	}
	if (!end)
		return 0;
	if (e->wseq != w->wseq) {
		r = rec_of(w->slot);
		if (r) {
			hist_add(r, RT_MULTI_FIRST, sub0(e->write_ns, e->read_ns));
			hist_add(r, RT_MULTI_LAST, sub0(w->now, e->read_ns));
			barrier();
			r->c.multi_write++;
		}
	}
	e->sk = 0;
	h2_freed(w, sid);
	return 0;
}

/* Stream ids looked for at a close with streams open (h2_forget_open()) */
#define H2_FORGET 4

/* Stream sid's entries among the RT_H2_PROBES at base of table map: freed. */
static __always_inline void h2_free_sid(void *map, __u32 base, __u32 rot, __u32 mask, __u64 sk,
					__u64 gen, __u32 sid)
{
	struct rt_h2_stream *p;
	__u32 k, i;

	for (k = 0; k < RT_H2_PROBES; k++) {
		i = (base + ((rot + k) & (RT_H2_PROBES - 1))) & mask;
		p = bpf_map_lookup_elem(map, &i);
		if (p && p->sk == sk && p->gen == gen && p->sid == sid)
			p->sk = 0;
	}
}

/* Connection c closes with streams open: the entries of its last H2_FORGET client streams are
 * freed now, not RT_H2_STALE_NS later, so that connections that leave a stream behind (a client
 * gone mid-request, a hostile one whose HEADERS claim megabytes it never sends) cannot fill the
 * table and push out the streams of others. */
static __always_inline void h2_forget_open(__u64 key, struct rt_h2_conn *c)
{
	__u32 sid = c->max_sid, j;
	__u64 sk;

	/* (the socket's address as a number to hash: a pointer the verifier lets no shift touch) */
	if (bpf_probe_read_kernel(&sk, sizeof(sk), &key))
		return;
	for (j = 0; j < H2_FORGET; j++) {
		if (!(sid & 1))
			break;
		h2_free_sid(&h2_runs, ll_h2_run(sk, c->gen), sid >> 1, RT_H2_RUNS - 1, sk, c->gen,
			    sid);
		h2_free_sid(&h2_streams, ll_h2_slot(sk, c->gen, sid), 0, RT_H2_STREAMS - 1, sk,
			    c->gen, sid);
		if (sid < 3)
			break;
		sid -= 2;
	}
}

#endif /* LOADLENS_REQ_H2_STREAMS_BPF_H */
