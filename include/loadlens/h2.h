/* SPDX-License-Identifier: MIT */
/*
 * HTTP/2 on a target TCP port: what the frame walk (bpf/req_h2.bpf.h) keeps per connection and
 * per stream, and the pure steps it takes on a frame header (the same code runs in the unit
 * tests, tests/unit/test_h2.c). docs/observer/tls-http2.md, "HTTP/2", explains the figures.
 *
 * A connection is HTTP/2 when the first bytes the server reads are the client preface
 * (RFC 9113, 3.4). Every frame begins with a 9-byte header: length (24 bits), type, flags, and a
 * 31-bit stream id. A stream is one request: it ends at the client's END_STREAM, and its response
 * runs from the server's first frame on it to the server's END_STREAM or RST_STREAM.
 */
#ifndef LOADLENS_H2_H
#define LOADLENS_H2_H

#include <linux/types.h>
#include "loadlens/reqtime.h"

#define LL_H2_PREFACE_LEN 24
/* "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" as three little-endian words */
#define LL_H2_PREFACE_0 0x5448202a20495250ULL
#define LL_H2_PREFACE_1 0x0a0d302e322f5054ULL
#define LL_H2_PREFACE_2 0x0a0d0a0d4d530a0dULL

#define LL_H2_HDR 9
/* frame types (RFC 9113, 6) */
#define LL_H2_DATA 0
#define LL_H2_HEADERS 1
#define LL_H2_RST_STREAM 3
#define LL_H2_PUSH_PROMISE 5
#define LL_H2_CONTINUATION 9
/* The largest type taken for a frame header: beyond it (types 0x0-0x9 and the registered
 * extensions up to PRIORITY_UPDATE, 0x10) the bytes are not a frame header, and the walk has
 * lost its place. */
#define LL_H2_MAX_TYPE 0x10
#define LL_H2_END_STREAM 1

/* Bounds of the walk, per read or write: frame headers, and buffers of a readv/writev/
 * recvmsg/sendmsg. A read or write with more loses track of the connection (counted). */
#define LL_H2_FRAMES 4096
#define LL_H2_IOVS 64

/* HTTP/2 streams timed at once, in two arrays of entries. A stream is looked for, and begins in
 * the first free entry, in two places of RT_H2_PROBES entries each:
 * - its connection's run in "h2_runs" (ll_h2_run(): RT_H2_RUNS / RT_H2_PROBES runs, one chosen
 *   by a hash of the connection), where stream sid starts at (sid / 2) % RT_H2_PROBES: a
 *   connection's streams come back to the same few cache lines, which its last requests left
 *   warm (a stream's entry at a place of its own in 4 MiB cost a cache and TLB miss per stream:
 *   the walk's dearest step, ~2/5 of a read's program on a ping-pong);
 * - where its run is full (more streams in flight than RT_H2_PROBES, or two connections on one
 *   run), a place of its own in "h2_streams" (ll_h2_slot(), a hash of the connection and the
 *   stream id), so that no two connections' runs of streams crowd each other out there. (One
 *   entry a stream, a connection's streams in consecutive entries and nothing else, lost 2 of
 *   4,000 streams of 4 connections in a CI run, and 17 of 40,000 of 200: two connections' runs
 *   met. Runs inside the same array as the places of their own lost 1-3 of 20,000 streams of 2
 *   connections of 100: a full run is 8 held entries in a row, which a place of its own could
 *   start on.)
 * Inlined lookups and compares per stream frame, no helper call. A stream whose 2 x RT_H2_PROBES
 * entries other open streams all hold is not timed (h2_stream_drops); an entry begun more than
 * RT_H2_STALE_NS ago (a stream never answered) is free again. */
#define RT_H2_RUNS_LOG2 14
#define RT_H2_RUNS (1u << RT_H2_RUNS_LOG2)
#define RT_H2_STREAMS_LOG2 16
#define RT_H2_STREAMS (1u << RT_H2_STREAMS_LOG2)
#define RT_H2_PROBES 8
#define RT_H2_STALE_NS (60ULL * 1000000000ULL)
/* Streams a connection may hold entries for at once (nginx allows 128 in flight by default,
 * grpc-go 100 at a time on its side, h2load -m 100 ...); its streams past them are not timed
 * (h2_over_bound) */
#define RT_H2_CONN_STREAMS 1024

/* One direction's place in the byte stream, carried from one read (or write) to the next. */
struct rt_h2_dir {
	__u32 skip;	/* bytes of the current frame's payload not seen yet */
	__u8 hlen;	/* bytes of a frame header cut by the end of the last read (0-8) */
	__u8 hb;	/* the server's header blocks (LL_H2_HB_SEEN, _STOP, _RESUMED, _CLOSED) */
	__u16 hb_left;	/* bytes of the current header block fragment still to copy */
	__u8 hdr[24];	/* those bytes (9 used; room for the verifier's bounds); after a whole
			 * header, until the next, the current frame's */
};
_Static_assert(sizeof(struct rt_h2_dir) == 32, "rt_h2_dir layout");

/*
 * The server's header blocks, to userspace (observer/sources/h2_status.c), where HPACK is
 * decoded: a response's :status, a gRPC call's grpc-status. HPACK is a state per connection and
 * direction (its dynamic table), so every header block fragment the server writes (HEADERS,
 * CONTINUATION, PUSH_PROMISE) goes, in order, as one or more records of the "h2_hb" ring buffer:
 * the frame's 9-byte header and the payload bytes of one buffer (a payload cut by the end of a
 * write comes in two records). A fragment over LL_H2_HB_MAX bytes, a record the ring had no room
 * for, or a write gap (rt_h2_conn.wsync) stops the connection's records (counted: h2_hb_big,
 * h2_hb_lost, h2_gaps) until the server's next header block begins (a HEADERS or PUSH_PROMISE
 * frame), whose first record is marked LL_H2_HB_FRESH: the blocks between went unseen, so the
 * HPACK table they built is unknown, and userspace decodes each block from there alone (a
 * static-table or literal :status reads; a reference to the table of before does not). Statuses
 * are not read where that cannot be, never read wrong. The connection's close is a record too
 * (LL_H2_HB_CLOSE), which frees its decoder.
 */
#define LL_H2_HB_MAX 511   /* a header block fragment's bytes, at most (a mask's bound) */
#define LL_H2_HB_TINY 31	   /* a record's bytes up to which it takes the tiny size (80 B with the
			    * ring's own header: 2 cache lines, where most blocks after a
			    * connection's first fit) */
#define LL_H2_HB_SMALL 127 /* ... the small size */
#define RT_H2_HB_RING (1u << 20)
#define LL_H2_HB_SEEN 1	   /* (rt_h2_dir.hb) a record of the connection went out */
#define LL_H2_HB_STOP 2	   /* no records until its next header block */
#define LL_H2_HB_RESUMED 4 /* records go on after a stop: the next is LL_H2_HB_FRESH */
#define LL_H2_HB_CLOSED 8  /* closed: no more records of it */
#define LL_H2_HB_CLOSE 1   /* (rt_h2_hb.flags) the connection closed: no bytes */
#define LL_H2_HB_FRESH 2   /* (rt_h2_hb.flags) the first record after a stop (a block's first) */

/*
 * Blocks read in the kernel. A response's :status comes first in its block, and HPACK's static
 * table holds seven of them as one byte (RFC 7541, Appendix A: 0x88 = index 8 = 200 ... 0x8e =
 * 500). Where a slot's server has written blocks that never refer to an HPACK table
 * (rt_h2_hb_quiet, set by userspace after LL_H2_HB_QUIET_AFTER of them: nginx's encoder adds
 * to its table, never reads it back), a HEADERS frame that holds a whole block (END_HEADERS, no
 * padding or priority) beginning with one of those bytes is counted in the kernel
 * (rt_ctrs.h2_hb_static) and not sent; the connection's next record is LL_H2_HB_FRESH, so its
 * block is decoded alone, as after any gap. A later reference to the table turns the slot's
 * flag off for good.
 */
#define LL_H2_END_HEADERS 0x4
#define LL_H2_PADDED 0x8
#define LL_H2_PRIORITY_FLAG 0x20
#define LL_HPACK_STATIC_STATUS0 0x88 /* ... 0x8e: RT_H2_STATIC_STATUSES of them */
#define LL_H2_HB_QUIET_AFTER 256
#define LL_HPACK_STATIC_LAST 61	     /* the static table's last index: past it, the table's */
static const unsigned short ll_hpack_static_status[RT_H2_STATIC_STATUSES] = {200, 204, 206, 304,
									      400, 404, 500};

struct rt_h2_hb {
	__u64 sk;	/* the connection: its socket, and its generation */
	__u64 gen;
	__u32 slot;	/* its request-timing slot */
	__u32 seq;	/* the connection's records before this one: a gap is a record lost */
	__u16 off;	/* where in the frame's payload the bytes begin */
	__u16 n;	/* the bytes that follow */
	__u8 fh[LL_H2_HDR]; /* the frame's header */
	__u8 flags;
	__u8 pad[2];
	__u8 data[];
};
_Static_assert(sizeof(struct rt_h2_hb) == 40, "rt_h2_hb layout");

/* An HTTP/2 connection (the "h2_conns" map: the socket's own storage). */
struct rt_h2_conn {
	struct rt_h2_dir rd; /* the client's frames, as the server reads them */
	struct rt_h2_dir wr; /* the server's frames, as it writes them */
	__u64 gen;	     /* set at the preface: streams of an earlier socket at the same
			      * address are not this one's */
	__s32 open_rd;	     /* streams the client began less those it reset (the reads') */
	__s32 open_wr;	     /* less streams the server ended (the writes'): the two sides run
			      * on different CPUs at once, each adds to its own, no atomics */
	__u32 max_sid;	     /* the highest stream id the client began */
	__u32 wseq;	     /* the server's writes so far */
	__u32 slot;	     /* its request-timing slot (at a close the port may read 0) */
	__u32 hb_seq;	     /* records of the server's header blocks so far (rt_h2_hb.seq) */
	/* The reads' walk in step with the byte stream (RT_H2_SYNC_*): each walked read ends at
	 * rd_seq (the socket's copied_seq then), and a read that does not begin there (bytes read
	 * unwalked: the lean hooks' copy hook read them, see bpf/req_lean.bpf.h) is a gap; so is a
	 * read the walk lost its place in (too many frames or buffers, unreadable bytes). In a gap
	 * the walk resumes at the first read whose bytes are whole client frames, from its first
	 * byte to its last (ll_h2_gap_frame() on each header). The streams the client began
	 * meanwhile are the stream ids above gap_lo (max_sid when the gap began) and below gap_hi
	 * (the first stream begun after it; ~0 until then): the server's end of one is counted,
	 * not timed, and so is its end of a stream up to gap_lo whose request had not ended (its
	 * end may have been in the gap). */
	__u32 rd_seq;
	__u32 gap_lo;
	__u32 gap_hi;
	/* The streams begun in read gaps, by their ids (the odd ids between gap_lo and gap_hi, or
	 * up to gap_wmax where the connection closes in a gap), less those the server's walked
	 * writes ended (counted in h2_gap_answered): the rest were answered in writes not walked,
	 * or not at all, and are counted at the close in rt_ctrs.h2_gap_unknown. (A client may
	 * skip stream ids, RFC 9113 5.1.1; the common ones do not.) Both sides' atomic adds. */
	__s32 gap_unseen;
	__u32 gap_wmax; /* the highest stream id above gap_lo the server ended, gap_hi unknown */
	/* The writes' walk (wsync, RT_H2_SYNC_ON or _GAP): a write the walk lost its place in (too
	 * many frames or buffers, unreadable bytes) begins a gap, and the walk resumes at the first
	 * write whose bytes are whole server frames (ll_h2_gap_frame()). The streams then open
	 * (the client began them by wgap_sid) may have been answered in the writes not walked:
	 * they leave the open counts for wgap_open, a server frame on one that had no response yet
	 * is counted, not timed, and those the server never ends after it are neither answered
	 * nor unanswered at the close (rt_ctrs.h2_gap_unknown). */
	__u32 wgap_sid;
	__s32 wgap_open; /* (both sides': atomic adds) */
	__u8 sync;
	__u8 lean_seen; /* the copy hook read it (counted once in RT_G_LEAN_MISSED) */
	__u8 wsync;
	__u8 pad[1];
};
_Static_assert(sizeof(struct rt_h2_conn) == 128, "rt_h2_conn layout");

#define RT_H2_SYNC_NEW 0 /* no read walked yet */
#define RT_H2_SYNC_ON 1	 /* the last read walked ended at rd_seq */
#define RT_H2_SYNC_GAP 2 /* bytes went unwalked: frames not yet found again */
/* A client frame's length the walk takes when it looks for frames again (a gap): the largest
 * SETTINGS_MAX_FRAME_SIZE servers commonly set (Go's, 1 MiB; the default is 16 KiB). A larger
 * frame only delays the resync to a later read. */
#define LL_H2_SYNC_MAX_LEN (1u << 20)

/* A stream the client began (an entry of the "h2_streams" table). */
struct rt_h2_stream {
	__u64 sk;	  /* its connection's socket (0: a free entry) */
	__u64 gen;	  /* and the connection's generation */
	__u64 born_ns;	  /* when its HEADERS were read */
	__u64 arrival_ns; /* its HEADERS' segment queued (struct rt_h2_arrivals), else the bytes
			   * holding the client's END_STREAM (0: unknown) */
	__u64 read_ns;	  /* the server read them (0: the request has not ended yet) */
	__u64 accept_ns;  /* the connection's first stream: when accept() returned it */
	__u64 write_ns;	  /* the server's first frame on it (0: none yet) */
	__u32 sid;
	__u32 wseq; /* which write of the connection that was */
};
_Static_assert(sizeof(struct rt_h2_stream) == 64, "rt_h2_stream layout");

static __attribute__((always_inline)) inline __u32 ll_h2_conn_hash(__u64 sk, __u64 gen)
{
	return ((__u32)(sk >> 6) ^ (__u32)gen ^ (__u32)(gen >> 32)) * 0x9e3779b1u;
}

/*
 * Each stream's own arrival. A read takes the bytes of every segment queued since the last one,
 * and the streams they begin would all get the first segment's stamp: at 10 streams on one
 * connection a stream whose HEADERS came later was held longer than its client waited for it
 * (residence 1.09x the client's mean latency, 1.27x at p99, nginx h2c). So each HTTP/2
 * connection keeps its last RT_H2_ARRIVALS arrivals (sk_data_ready: the segment's first byte,
 * the end of the bytes queued before it, and its stamp), in a table by socket ("h2_arrivals",
 * RT_H2_ARR_SLOTS entries, claimed at the preface; a connection whose entry another one took
 * since keeps the older stamp: the earliest unread bytes'), and a stream begun by a client
 * HEADERS takes the stamp of the segment that carried that frame's first byte.
 */
#define RT_H2_ARRIVALS 8 /* a power of 2 */
#define RT_H2_ARR_SLOTS_LOG2 13
#define RT_H2_ARR_SLOTS (1u << RT_H2_ARR_SLOTS_LOG2)

struct rt_h2_arrivals {
	__u64 sk;			/* the connection's socket (the table's key) */
	__u64 gen;			/* and its generation (rt_h2_conn.gen) */
	__u64 ns[RT_H2_ARRIVALS];	/* each arrival's stamp */
	__u32 seq[RT_H2_ARRIVALS];	/* its first byte (TCP sequence number) */
	__u32 next_seq;			/* the end of the bytes queued at the last arrival */
	__u32 n;			/* arrivals so far: the next goes at n % RT_H2_ARRIVALS */
};
_Static_assert(sizeof(struct rt_h2_arrivals) == 16 + 12 * RT_H2_ARRIVALS + 8,
	       "rt_h2_arrivals layout");

/* The table's entry of socket sk. */
static __attribute__((always_inline)) inline __u32 ll_h2_arr_slot(__u64 sk)
{
	return ((__u32)(sk >> 6) * 0x9e3779b1u) >> (32 - RT_H2_ARR_SLOTS_LOG2);
}

/* An arrival: the bytes queued now end at end (rcv_nxt), stamped ns; a call that queued nothing
 * new is none. */
static __attribute__((always_inline)) inline void ll_h2_arrival_add(struct rt_h2_arrivals *a,
								    __u32 end, __u64 ns)
{
	__u32 i = a->n & (RT_H2_ARRIVALS - 1);

	if ((__s32)(end - a->next_seq) <= 0)
		return;
	a->ns[i] = ns;
	a->seq[i] = a->next_seq;
	a->next_seq = end;
	a->n++;
}

/* The stamp of the arrival that brought byte x: the one that began last at or before x, if x
 * came by the last arrival and that one is still held (0: not known). The held arrivals are
 * contiguous, each beginning where the one before ended. */
static __attribute__((always_inline)) inline __u64 ll_h2_arrival_of(const struct rt_h2_arrivals *a,
								    __u32 x)
{
	__u32 i, d, best = 0xffffffffu;
	__u64 ns = 0;

	if ((__s32)(a->next_seq - x) <= 0)
		return 0;
	for (i = 0; i < RT_H2_ARRIVALS; i++) {
		if (i >= a->n)
			break;
		d = x - a->seq[i];
		if ((__s32)d >= 0 && d < best) {
			best = d;
			ns = a->ns[i];
		}
	}
	return ns;
}

/* The first entry in h2_runs of a connection's (sk, gen) run of RT_H2_PROBES entries (see the
 * tables' comment above). */
static __attribute__((always_inline)) inline __u32 ll_h2_run(__u64 sk, __u64 gen)
{
	return (ll_h2_conn_hash(sk, gen) >> (32 - RT_H2_RUNS_LOG2)) & ~(RT_H2_PROBES - 1);
}


/* The first entry in h2_streams of stream sid's place of its own (RT_H2_PROBES entries from
 * there): a hash of all three. */
static __attribute__((always_inline)) inline __u32 ll_h2_slot(__u64 sk, __u64 gen, __u32 sid)
{
	return ((ll_h2_conn_hash(sk, gen) ^ sid) * 0x85ebca6bu) >> (32 - RT_H2_STREAMS_LOG2);
}

static __attribute__((always_inline)) inline int ll_h2_preface(const __u64 w[3])
{
	return w[0] == LL_H2_PREFACE_0 && w[1] == LL_H2_PREFACE_1 && w[2] == LL_H2_PREFACE_2;
}

/* The preface's word j (8 bytes, little-endian), 0 past its end. */
static __attribute__((always_inline)) inline __u64 ll_h2_preface_word(__u32 j)
{
	return j == 0 ? LL_H2_PREFACE_0 : j == 1 ? LL_H2_PREFACE_1 : j == 2 ? LL_H2_PREFACE_2 : 0;
}

/* How many of x's low bytes are zero (8 when x is). Branch-free, a loop the verifier walks
 * once: every register, no stack. */
static __attribute__((always_inline)) inline __u32 ll_zero_low_bytes(__u64 x)
{
	__u32 i, k = 0, on = 1;

#ifdef __clang__
#pragma clang loop unroll(disable)
#endif
	for (i = 0; i < 8; i++) {
		on &= (((__u32)(x & 0xff) - 1) >> 8) & 1; /* this byte is zero, and each before it */
		k += on;
		x >>= 8;
	}
	return k;
}

/*
 * A client may write the preface in pieces (a byte at a time, even): the server's first reads
 * then hold a part of it each. What a connection's read of n bytes says, its first
 * LL_H2_PREFACE_LEN bytes as three little-endian words w0..w2 (zeros past what was read), after
 * earlier reads matched the preface's first `at` bytes; *m: the preface's bytes matched with it.
 *   LL_H2_PRE_WHOLE  the preface is complete (its last LL_H2_PREFACE_LEN - at bytes were the read's first)
 *   LL_H2_PRE_PART   every byte of the read is the preface's next: more to come, no request yet
 *   LL_H2_PRE_BAD    the preface's "PRI " began, then other bytes: no HTTP/1 request begins so
 *                    (PRI is the preface's method only), and no HTTP/2 connection
 *   LL_H2_PRE_NONE   something else: a request of its own (a POST's "P" read alone, then "OST")
 * Words, not bytes at a variable place: BPF before 5.12 reads no stack so, and 6.1's fexit
 * programs share 512 bytes of stack with their calls.
 */
enum { LL_H2_PRE_NONE, LL_H2_PRE_PART, LL_H2_PRE_WHOLE, LL_H2_PRE_BAD };
#define LL_H2_PRE_METHOD 4 /* "PRI " */

/* The preface's word from byte at + 8 j on (zeros past its end). */
static __attribute__((always_inline)) inline __u64 ll_h2_preface_from(__u32 at, __u32 j)
{
	__u32 q = (at >> 3) + j, r = 8 * (at & 7);
	__u64 lo = ll_h2_preface_word(q), hi = ll_h2_preface_word(q + 1);

	return r ? (lo >> r) | (hi << (64 - r)) : lo;
}

static __attribute__((always_inline)) inline int ll_h2_preface_step(__u64 w0, __u64 w1, __u64 w2,
								    __u32 n, __u32 at, __u32 *m)
{
	__u32 want, z0, z1, z2, k;

	if (at >= LL_H2_PREFACE_LEN)
		return LL_H2_PRE_BAD;
	want = LL_H2_PREFACE_LEN - at < n ? LL_H2_PREFACE_LEN - at : n;
	/* the read's bytes that equal the preface's from at, counted up to the first that does not */
	z0 = ll_zero_low_bytes(w0 ^ ll_h2_preface_from(at, 0));
	z1 = ll_zero_low_bytes(w1 ^ ll_h2_preface_from(at, 1));
	z2 = ll_zero_low_bytes(w2 ^ ll_h2_preface_from(at, 2));
	k = z0 + (z0 >> 3) * (z1 + (z1 >> 3) * z2);
	if (k > want)
		k = want;
	*m = at + k;
	if (*m == LL_H2_PREFACE_LEN)
		return LL_H2_PRE_WHOLE;
	if (k == want)
		return LL_H2_PRE_PART;
	return *m >= LL_H2_PRE_METHOD ? LL_H2_PRE_BAD : LL_H2_PRE_NONE;
}

/* A frame header's fields. Returns its payload length, or -1 if the bytes are no frame header
 * the walk takes (a type beyond LL_H2_MAX_TYPE). *tf: type | flags << 8. */
static __attribute__((always_inline)) inline long ll_h2_frame(const __u8 *h, __u32 *sid,
							       __u32 *tf)
{
	if (h[3] > LL_H2_MAX_TYPE)
		return -1;
	*sid = ((__u32)(h[5] & 0x7f) << 24) | ((__u32)h[6] << 16) | ((__u32)h[7] << 8) | h[8];
	*tf = h[3] | ((__u32)h[4] << 8);
	return ((long)h[0] << 16) | ((long)h[1] << 8) | h[2];
}

/* How many streams a client began with ids above lo and up to hi (its ids are odd and grow,
 * RFC 9113 5.1.1; one that skips ids makes this too many): a read gap's, from the highest id
 * before it and the last one (or the first after it, less 1). 0 when hi <= lo. */
static __attribute__((always_inline)) inline __u32 ll_h2_client_streams(__u32 lo, __u32 hi)
{
	__u32 a = (lo >> 1) + (lo & 1), b = (hi >> 1) + (hi & 1); /* odd ids up to lo, up to hi */

	return b > a ? b - a : 0;
}

/* Is this frame one the stream table looks at? The client's streams have odd ids (the
 * server's pushed streams are even; stream 0 holds SETTINGS, PING, WINDOW_UPDATE, GOAWAY);
 * HEADERS, DATA and RST_STREAM move a stream along (a PUSH_PROMISE is a server frame on the
 * client's stream: its response has begun). */
static __attribute__((always_inline)) inline int ll_h2_stream_frame(__u32 sid, __u32 tf)
{
	__u32 t = tf & 0xff;

	return (sid & 1) && (t == LL_H2_DATA || t == LL_H2_HEADERS || t == LL_H2_RST_STREAM ||
			     t == LL_H2_PUSH_PROMISE);
}

/*
 * Could these 9 bytes be a frame header a client sends (server 0), or a server (server 1)
 * (RFC 9113, 4.1 and 6)? The walk asks this of every header of a read or write in a gap
 * (rt_h2_conn.sync, wsync), where it does not know where frames begin: bytes begun inside a
 * frame's payload pass every test below for their headers only by chance (the type, its flags,
 * the stream id's class, the fixed lengths, the reserved bit). A client sends no PUSH_PROMISE, a
 * server no PRIORITY_UPDATE (0x10, on stream 0: the only registered extension past CONTINUATION
 * taken). Streams a server pushes (even ids) are not taken: push is all but gone (browsers and
 * nginx dropped it), a write with such a frame only puts the resync off to a later write, and in
 * nginx's 187 bytes one place inside a frame passes as a pushed stream's empty DATA
 * (tests/unit/test_h2.c).
 */
static __attribute__((always_inline)) inline int ll_h2_gap_frame(const __u8 *h, int server)
{
	__u32 len = ((__u32)h[0] << 16) | ((__u32)h[1] << 8) | h[2];
	__u32 sid = ((__u32)h[5] << 24) | ((__u32)h[6] << 16) | ((__u32)h[7] << 8) | h[8];
	__u8 t = h[3], f = h[4];

	if ((sid >> 31) || len > LL_H2_SYNC_MAX_LEN)
		return 0;
	switch (t) {
	case LL_H2_DATA:
		return (sid & 1) && !(f & ~0x09);
	case LL_H2_HEADERS:
		return (sid & 1) && !(f & ~0x2d);
	case 2: /* PRIORITY */
		return sid && len == 5 && !f;
	case LL_H2_RST_STREAM:
		return (sid & 1) && len == 4 && !f;
	case 4: /* SETTINGS */
		return !sid && !(f & ~0x01) && (f ? !len : len % 6 == 0);
	case LL_H2_PUSH_PROMISE:
		return server && (sid & 1) && len >= 4 && !(f & ~0x0c);
	case 6: /* PING */
		return !sid && len == 8 && !(f & ~0x01);
	case 7: /* GOAWAY */
		return !sid && len >= 8 && !f;
	case 8: /* WINDOW_UPDATE */
		return len == 4 && !f;
	case LL_H2_CONTINUATION:
		return (sid & 1) && !(f & ~0x04);
	case 0x10: /* PRIORITY_UPDATE */
		return !server && !sid && len >= 4 && !f;
	}
	return 0;
}

/* Does this frame end its stream from the sender's side? */
static __attribute__((always_inline)) inline int ll_h2_ends(__u32 tf)
{
	__u32 t = tf & 0xff;

	return t == LL_H2_RST_STREAM ||
	       ((t == LL_H2_DATA || t == LL_H2_HEADERS) && ((tf >> 8) & LL_H2_END_STREAM));
}

/*
 * The walk of one direction, in two steps the kernel (h2_step() in bpf/req_h2.bpf.h) and the
 * unit tests share; only the copy of header bytes between them differs.
 * ll_h2_next: at the next `left` bytes, the payload still to come is passed over first (*pass
 * bytes), then *take header bytes are due (the 9 of a header, or the rest of one cut by the end
 * of the last read; 0: the bytes end first). Returns -1 for a state the walk never leaves.
 */
static __attribute__((always_inline)) inline int ll_h2_next(struct rt_h2_dir *d, __u32 left,
							     __u32 *pass, __u32 *take)
{
	if (d->hlen >= LL_H2_HDR)
		return -1;
	if (d->skip >= left) {
		*pass = left;
		d->skip -= left;
		*take = 0;
		return 0;
	}
	*pass = d->skip;
	left -= d->skip;
	d->skip = 0;
	*take = LL_H2_HDR - d->hlen;
	if (*take > left)
		*take = left;
	return 0;
}

/* ll_h2_got: take header bytes were copied to d->hdr + d->hlen. Returns 1 for a whole header
 * (its frame in *sid and *tf; its payload is passed over next), 0 for a header still cut, -1 for
 * bytes that are no frame header. */
static __attribute__((always_inline)) inline int ll_h2_got(struct rt_h2_dir *d, __u32 take,
							    __u32 *sid, __u32 *tf)
{
	long flen;

	d->hlen += take;
	if (d->hlen < LL_H2_HDR)
		return 0;
	d->hlen = 0;
	flen = ll_h2_frame(d->hdr, sid, tf);
	if (flen < 0)
		return -1;
	d->skip = (__u32)flen;
	return 1;
}

#endif /* LOADLENS_H2_H */
