/* SPDX-License-Identifier: MIT */
/*
 * What the request-timing programs (bpf/req.bpf.h in bpf/sockets.bpf.c) and their userspace
 * (observer/sources/reqtime_stats.c) share: components, limits, the per-slot counter block,
 * the per-socket state and the --trace record. docs/observer/request-timing.md explains
 * each figure.
 *
 * A slot is one (target port, protocol) pair: slot = 2 * port_index + (udp ? 1 : 0). Each slot
 * has a record (struct rt_rec: its counters and RT_NCOMP histograms of LL_HIST_BUCKETS counters)
 * per CPU, in the memory-mapped array "recs": key = cpu * slots + slot.
 */
#ifndef LOADLENS_REQTIME_H
#define LOADLENS_REQTIME_H

#include <linux/types.h>
#include "loadlens/hist.h"

/* Ports with request timing; rodata maps a port to 1 + its index (0: not a target). */
#define RT_MAX_PORTS 16
#define RT_MAX_SLOTS (2 * RT_MAX_PORTS)
/* the :status values HPACK's static table holds (include/loadlens/h2.h) */
#define RT_H2_STATIC_STATUSES 7

/* --pid/--cgroup without --port: the ports of the target's own sockets get slots as they are
 * first seen (slot = 2 * index + udp); targ_slot holds RT_SLOT_DYN for every port then. */
#define RT_SLOT_DYN 0xff
/* Ports given slots that way (each costs 2 * RT_NCOMP histograms per CPU in the kernel). */
#define RT_DYN_PORTS 4
/* TCP request state: a direct-mapped table of this many entries, indexed by a hash of the
 * socket's address (bpf/req_tcp.bpf.h, tcp_key()); a socket whose entry another live socket holds
 * keeps its state in its own socket storage instead (counted: RT_G_TCP_OWN_STORAGE). */
#define RT_TCP_SLOT_BITS 16
#define RT_TCP_SLOTS (1u << RT_TCP_SLOT_BITS)

/* UDP arrival stamps kept per socket (a power of two): datagrams queued beyond this lose theirs. */
#define RT_UDP_RING 512
/* UDP threads of one socket timed at once, each its datagram to its reply (a power of two): a
 * datagram read while this many others are in service is not timed (udp_unpaired) */
#define RT_UDP_READERS 8
/* --runq: slots for serving processes (by tgid) and for runnable threads (by tid); powers of two. */
#define RT_WATCH_SLOTS 1024
#define RT_WAKE_SLOTS 8192
/* --trace ring buffer size in bytes (a power of two, a multiple of the page size). */
#define RT_TRACE_RING (4u << 20)

/* Histograms per slot. service_last is derived in userspace
 * (observer/sources/reqtime_stats.c). */
enum rt_comp {
	RT_QUEUE = 0,	/* socket-queue wait: bytes queued (or accepted, if later) -> first read */
	RT_SERVICE,	/* first read -> first write of the response */
	RT_RESIDENCE,	/* arrival -> first write (includes the accept-queue share) */
	RT_ACCEPT,	/* first request of a connection: the part of its wait spent unaccepted */
	RT_MULTI_FIRST, /* responses written in several pieces: read -> first write */
	RT_MULTI_LAST,	/* the same responses: read -> last write */
	RT_TLS_HS,	/* TLS handshake: the ClientHello's first byte queued -> the end of the
			 * server's last handshake write (its Finished) */
	RT_TLS_WORK,	/* the server's own work in it: per server flight, the read of the client's
			 * flight -> the flight's last write, summed */
	RT_NCOMP,
};

/* Counters per slot (in its per-CPU record, struct rt_rec below). first_ns is a min, last_ns and
 * max_ns maxima. */
struct rt_ctrs {
	__u64 requests;	    /* responses begun: one per request */
	__u64 unanswered;   /* read, but the next read or the close came before any write */
	__u64 no_arrival;   /* read with no arrival seen: queue wait and residence not recorded */
	__u64 unsolicited;  /* writes with no request read before them (greeting, push) */
	__u64 multi_write;  /* responses written in more than one write */
	__u64 ring_overrun; /* UDP: more datagrams queued than RT_UDP_RING stamps */
	__u64 trace_lost;   /* --trace records the ring buffer had no room for */
	__u64 multi_arrival; /* TCP reads that took the bytes of two or more arrivals (peer writes
			      * queued apart): pipelined requests, or requests written in pieces */
	__u64 udp_switch;    /* UDP reads by another thread than the socket's previous reader */
	__u64 udp_shared;    /* UDP sockets read by two or more threads (counted once each) */
	__u64 udp_unpaired;  /* UDP datagrams read while RT_UDP_READERS other threads of the socket
			      * were serving one, or replies whose thread's entry another took:
			      * not timed, not counted */
	__u64 first_ns;	    /* first response (bpf_ktime_get_ns, CLOCK_MONOTONIC) */
	__u64 last_ns;	    /* last response */
	__u64 sum_ns[RT_NCOMP];
	__u64 max_ns[RT_NCOMP];
	__u64 accept_n; /* values added to the RT_ACCEPT histogram. Userspace reads a histogram
			 * back only when its count moved (observer/sources/reqtime_stats.c): RT_SERVICE holds
			 * `requests` values, RT_QUEUE and RT_RESIDENCE requests - no_arrival,
			 * RT_MULTI_* multi_write, RT_ACCEPT accept_n, RT_TLS_* tls_handshakes */
	/* TLS (bpf/req_tls.bpf.h): connections whose first bytes are a ClientHello record */
	__u64 tls_handshakes; /* handshakes timed (RT_TLS_HS, RT_TLS_WORK): never requests */
	__u64 tls13;	      /* of which TLS 1.3 (the client's Finished came encrypted) */
	__u64 tls_resumed;    /* of which TLS 1.2 resuming a session (abbreviated handshake; a
			       * TLS 1.3 resumption is encrypted: not told apart) */
	__u64 tls_plain_conns; /* TLS connections whose plaintext the uprobes on libssl see
				* (bpf/req_ssl.bpf.h): their requests are counted from it */
	__u64 tls_alerts;     /* alerts read during a handshake (it failed, or the client left) */
	__u64 tls_lost;	      /* handshakes not timed (more than RT_TLS_HS_SLOTS at once, or
			       * records the observer lost track of) */
	__u64 tls_alpn_h2;    /* TLS connections whose ClientHello offered HTTP/2 (ALPN "h2") */
	/* HTTP/2 (bpf/req_h2.bpf.h): connections that began with the client preface; each stream
	 * is one request (counted in requests, unanswered) */
	__u64 h2_conns;	      /* connections recognised by the client preface */
	__u64 h2_lost;	      /* of which the observer lost track of the frames (no memory for
			       * the walk's state): later streams not seen (a read or write the
			       * walk lost its place in is a gap, h2_gaps) */
	__u64 h2_unwalked;    /* reads and writes of those connections after that: not walked */
	__u64 h2_unmatched;   /* server frames ending a stream the observer had no entry for
			       * (not timed, or its entry taken after RT_H2_STALE_NS) */
	__u64 h2_early;	      /* streams the server ended before the client did: not timed */
	__u64 h2_client_reset; /* streams the client reset (RST_STREAM) before a response */
	__u64 h2_stream_drops; /* streams not timed: their entry of the stream table was held by
				* another open stream */
	__u64 h2_behind;       /* streams begun while older streams of their connection were still
				* unanswered: a server that serves a connection's streams one at a
				* time holds them itself, and that wait is in their service time */
	/* TLS connections whose plaintext the observer does not see (no uprobe on their server's
	 * TLS library: uprobes off, or TLS linked into the executable, as Go's crypto/tls): past
	 * the handshake nothing of them is counted, never read/write turns as requests */
	__u64 tls_unseen;
	__u64 tls_plain_lost; /* of the seen ones, connections whose plaintext state found no room
			       * (RT_SSL_CONNS at once): not counted */
	/* the server's header blocks (include/loadlens/h2.h, "h2_hb") */
	__u64 h2_hb_ends; /* HEADERS the server wrote with END_STREAM on a client stream (a gRPC
			   * call's trailers): userspace reads the status of each it can */
	__u64 h2_hb_lost; /* connections whose records stopped: the ring buffer had no room */
	__u64 h2_hb_big;  /* connections whose records stopped: a fragment over LL_H2_HB_MAX */
	__u64 h2_hb_static[RT_H2_STATIC_STATUSES]; /* header blocks read in the kernel, not sent
						    * (include/loadlens/h2.h): by :status 200,
						    * 204, 206, 304, 400, 404, 500 */
	__u64 h2_hb_static_ends; /* of which ended their stream */
	__u64 h2_bad_preface; /* connections whose first bytes began the HTTP/2 preface ("PRI ")
			       * and broke it: neither HTTP/2 nor requests, not followed */
	__u64 h2_over_bound; /* HTTP/2 streams not timed: their connection held RT_H2_CONN_STREAMS
			      * entries of the stream table already */
	/* HTTP/2 reads not walked (a gap: rt_h2_conn.sync in include/loadlens/h2.h) */
	__u64 h2_gaps;	       /* times a connection's reads went unwalked (the lean hooks read
				* them, or the walk lost its place in one): its walk resumes at
				* a read of whole client frames; and times its writes did (the
				* walk lost its place in one), until a write of whole server
				* frames */
	__u64 h2_gap_reads;    /* reads in a gap that were not whole client frames, and a read
				* the walk lost its place in: not walked */
	__u64 h2_gap_answered; /* streams begun in a gap that the server ended: counted, not
				* timed (their requests were not seen), and streams whose request's
				* end or response's start a gap may have held */
	/* HTTP/2 writes not walked (a write gap: rt_h2_conn.wsync) */
	__u64 h2_gap_writes;   /* writes in a gap that were not whole server frames, and a write
				* the walk lost its place in: not walked */
	__u64 h2_gap_unknown;  /* streams open across a write gap that the server never ended
				* after it, and streams begun in a read gap (by their ids) that
				* no walked write ended: answered in a gap or not at all, not
				* known */
	/* TLS in the kernel (kTLS, bpf/req_tls.bpf.h): connections whose handshake ended with
	 * both directions handed to the kernel's TLS, so that the server reads and writes their
	 * plaintext on the socket; followed from there as a connection in the clear, no uprobe */
	__u64 ktls_conns;
	__u64 untimed; /* plain TCP under the copy hook alone (rt_solo_write()): responses whose
			* write time TCP's stamps do not tell: counted in requests, not timed (no
			* service, queue or residence value; in no_arrival too) */
};
_Static_assert(sizeof(struct rt_ctrs) == (43 + RT_H2_STATIC_STATUSES + 1 + 2 * RT_NCOMP) * 8, "rt_ctrs layout");

/* One slot's record on one CPU: its counters, then a histogram per component (bucket
 * ll_hist_bucket(value)). Userspace sums the CPUs' records. */
struct rt_rec {
	struct rt_ctrs c;
	__u64 hist[RT_NCOMP][LL_HIST_BUCKETS];
};

/* Global counters (per-CPU array "rt_global"). */
enum rt_global {
	RT_G_NO_STORAGE = 0, /* socket state could not be created (memory, optmem_max) */
	RT_G_RUNQ_SUM_NS,    /* run-queue wait: sum */
	RT_G_RUNQ_MAX_NS,    /* run-queue wait: largest (max over CPUs) */
	RT_G_TGIDS_FULL,     /* a serving process could not join the run-queue watch (slot taken) */
	RT_G_FOREIGN,	     /* --pid/--cgroup: sockets first read or written by another process,
			      * not timed (counted once per socket) */
	RT_G_PORTS_FULL,     /* --pid/--cgroup without --port: target sockets not timed because
			      * RT_DYN_PORTS ports had slots already (once per socket) */
	RT_G_TCP_OWN_STORAGE, /* TCP sockets whose table entry another live socket held: state in
			       * their socket storage (exact, a little slower) */
	RT_G_CLIENT,	     /* --pid/--cgroup without --port: target sockets on an ephemeral port
			      * (ip_local_port_range), the client end of a connection the target
			      * made: not timed (once per socket) */
	RT_G_SSL_UNMAPPED,   /* plaintext an SSL call returned on an SSL object the observer had
			      * not tied to a target socket (a client connection of the server, or
			      * one whose reads it never saw inside an SSL call) */
	RT_G_SSL_PROCS_FULL, /* ClientHellos read by a process whose slot of the SSL-process table
			      * another process held: its SSL calls are not looked at */
	/* the lean hooks (rt_lean_arrival(); observer/kernel/lean.h) */
	RT_G_LEAN_UNKNOWN,   /* reads whose arrival the full hooks would have seen and the copy
			      * hook could not (pipelined, written in pieces): no_arrival too */
	RT_G_LEAN_MISSED,    /* connections the copy hook cannot follow: TLS (not timed), and
			      * HTTP/2 (their reads unwalked until the full hooks are back: a gap,
			      * rt_ctrs.h2_gaps) */
	RT_G_TCP_STALE,	     /* TCP table entries found held by a socket gone without freeing
			      * it (a newer socket at its address took it over): should be 0 */
	/* TLS plaintext's uprobes (bpf/req_ssl.bpf.h): what they cost, in calls (each call an entry
	 * and a return trap) */
	RT_G_SSL_CALLS,	     /* SSL calls of the serving processes the probes looked at */
	RT_G_SSL_OTHER,	     /* SSL calls of other processes: they paid the traps, nothing read */
	RT_G_MAX,
};

/*
 * --pid/--cgroup: who read the server-side sockets that are not the targets' (the "foreign"
 * map: an LRU hash, first reads only, so one update per socket): a process the targets hand
 * their connections to (fd passing, a cluster's workers, a pre-fork master's children when
 * --children is off). Client ends (ephemeral ports) are left out.
 */
#define RT_FOREIGN_SLOTS 64
struct rt_foreign_key {
	__u32 tgid;
	__u16 port; /* local port, host order */
	__u8 udp;
	__u8 pad;
};
struct rt_foreign {
	__u64 sockets; /* sockets first read or written by tgid on port */
	char comm[16];
};
_Static_assert(sizeof(struct rt_foreign_key) == 8, "rt_foreign_key layout");
_Static_assert(sizeof(struct rt_foreign) == 24, "rt_foreign layout");

/* Per-socket request state machine (docs/observer/request-timing.md, "Request boundaries"). */
enum rt_state {
	RT_IDLE = 0,	/* nothing pending */
	RT_QUEUED,	/* bytes arrived, not read yet */
	RT_READING,	/* the request is being read or served: no response byte written yet */
	RT_WRITING,	/* the response is being written */
};

#define RT_F_SEEN_READ 1 /* the socket's first request has been read */
#define RT_F_MULTI 2	 /* the current response took more than one write */
#define RT_F_OWNED 4	 /* --pid/--cgroup: a target read or wrote it first (slot decided) */
#define RT_F_FOREIGN 8	 /* another process read or wrote it first, or no slot: not timed */
#define RT_F_SHARED 16	 /* UDP: read by two or more threads */
#define RT_F_KTLS 16	 /* TCP: TLS in the kernel both ways (kTLS): its plaintext is the socket's */
#define RT_F_TLS 32	 /* TCP: its first bytes were a TLS ClientHello record */
#define RT_F_H2 64	 /* TCP: its first bytes were the HTTP/2 client preface */
#define RT_F_PLAIN 128	 /* TCP, TLS: read or written inside an SSL call of libssl (uprobes):
			  * its requests are counted from the plaintext (bpf/req_ssl.bpf.h) */
/* UDP only, past the byte owned() sees: a datagram of it was not paired (udp_unpaired), so a reply
 * its thread has no entry for may be that one's, not an unsolicited write */
#define RT_F_UDP_UNPAIRED 256

/* TLS connections: where the handshake is (rt_tcp_sock.tls), moved along by the record headers
 * the server reads and by its writes (bpf/req_tls.bpf.h; docs/observer/tls-http2.md, "TLS"). */
enum rt_tls_phase {
	RT_TLS_NONE = 0,  /* not TLS (or not known yet) */
	RT_TLS_HELLO,	  /* the ClientHello is read; the server's first flight is due */
	RT_TLS_HELLO_ANS, /* the server wrote it */
	RT_TLS_KEX,	  /* TLS 1.2, full: the client's key exchange and Finished are read */
	RT_TLS_KEX_ANS,	  /* the server wrote its Finished */
	RT_TLS_CCS,	  /* a ChangeCipherSpec began the client's second flight */
	RT_TLS_TICKETS,	  /* TLS 1.3: the client's Finished is read; tickets may follow */
	RT_TLS_TICKETS_W, /* the server wrote them */
	RT_TLS_LATE,	  /* TLS 1.3: a request came with the Finished, before the tickets */
	RT_TLS_DONE,	  /* application data: the handshake is over (the record path stops at
			   * the first of these phases: ll_tls_step()'s table goes on, for its
			   * unit tests and the phases it names) */
	RT_TLS_CLOSING,	  /* an alert was read: what follows is not a request */
	RT_TLS_UNSEEN,	  /* past the handshake, and its plaintext is not seen: counted once */
};
/* TLS handshakes timed at once (an LRU hash keyed by socket: the oldest are lost, counted). */
#define RT_TLS_HS_SLOTS 16384

/* A TLS handshake under way (the "tls_hs" map, keyed by the struct sock's address). */
struct rt_tls_hs {
	__u64 start_ns;	 /* the ClientHello's first byte queued (its read, if unknown) */
	__u64 work_ns;	 /* the server's flights so far: read -> last write */
	__u64 accept_ns; /* when accept() returned the socket (0: unknown) */
};
_Static_assert(sizeof(struct rt_tls_hs) == 24, "rt_tls_hs layout");

/*
 * The client writes a read took, for the "several writes at once" count (multi_arrival): the
 * arrivals (sk_data_ready) since the previous read, less the peer's FIN, which wakes the socket
 * too (a request read with the close, as pgbench -C's Terminate, is one write); on a TLS
 * connection the client writes its records apart (ChangeCipherSpec, Finished, a request) and
 * how many requests they hold is encrypted: at most one.
 */
static __attribute__((always_inline)) inline __u32 rt_client_writes(__u32 arrivals, int peer_fin,
								     int tls)
{
	if (peer_fin && arrivals > 1)
		arrivals--;
	return tls && arrivals > 1 ? 1 : arrivals;
}

/*
 * The lean hooks (observer/kernel/lean.h): a plain TCP read is begun at tcp:tcp_rcv_space_adjust
 * (after each skb recvmsg copies, before TCP refreshes its clock), with no sk_data_ready and no
 * sock_recv_length attached. The arrival is then TCP's clock there (tcp_clock_cache: its last
 * refresh, a segment's receipt or a transmit), when what the socket did since tells that the
 * refresh was the request's only segment. What tells: the mark each write of a response leaves
 * (in the entry's accept_ns, dead after the first write): the reader's position (copied_seq),
 * whether bytes were unread then (rcv_nxt ahead: the next request came before the response
 * went: pipelined), and the data segments received so far (data_segs_in).
 */
#define RT_LEAN_TAG 0xa5ULL /* the mark's top byte: a timestamp's never is (2^56 ns: 833 days) */
#define RT_LEAN_PENDING (1ULL << 48)

static __attribute__((always_inline)) inline __u64 rt_lean_mark(__u32 copied_seq, __u32 rcv_nxt,
								 __u32 data_segs_in)
{
	return RT_LEAN_TAG << 56 | (rcv_nxt != copied_seq ? RT_LEAN_PENDING : 0) |
	       (__u64)(data_segs_in & 0xffff) << 32 | copied_seq;
}

enum rt_lean_kind {
	RT_LEAN_EXACT = 0, /* the clock is the request's one segment's receipt */
	RT_LEAN_UNKNOWN,   /* the full hooks would have known it: not this one (pipelined, in
			    * pieces, a greeting first, the peer's FIN) */
	RT_LEAN_BEFORE,	   /* nothing to go by: the socket's last write was before the copy hook
			    * (the full hooks' "bytes queued before we attached") */
};

/* What a lean read's first copy knows: the entry's mark (0: none), TCP's counters and clocks now. */
struct rt_lean_in {
	__u64 mark;
	__u64 clock;	   /* tcp_clock_cache */
	__u64 after;	   /* the socket's last event of ours (last write, or read) */
	__u64 consumed;	   /* bytes_received - (rcv_nxt - copied_seq) */
	__u32 copied_seq;
	__u32 data_segs_in;
	__u32 data_segs_out;
	__u8 first;	   /* the connection's first read */
	__u8 peer_fin;	   /* CLOSE_WAIT: the peer's FIN came, and refreshed the clock */
};

/* The arrival (0: unknown), *kind, *bytes (of this read so far: 0 unknown) and *multi (two or
 * more data segments since the response: the full hooks count them as multi_arrival). */
static __attribute__((always_inline)) inline __u64 rt_lean_arrival(const struct rt_lean_in *in,
								    __u32 *kind, __u32 *bytes,
								    __u32 *multi)
{
	__u32 segs;

	*bytes = 0;
	*multi = 0;
	if (in->mark >> 56 != RT_LEAN_TAG) {
		if (!in->first) {
			*kind = RT_LEAN_BEFORE;
			return 0;
		}
		/* a connection's first read: all it consumed is this read's */
		*bytes = (__u32)in->consumed;
		*multi = in->data_segs_in > 1;
		/* one data segment and nothing sent (a greeting's transmit could be later) */
		if (in->data_segs_in != 1 || in->data_segs_out || in->peer_fin || !in->clock) {
			*kind = RT_LEAN_UNKNOWN;
			return 0;
		}
		*kind = RT_LEAN_EXACT;
		return in->clock;
	}
	*bytes = in->copied_seq - (__u32)in->mark;
	segs = (in->data_segs_in - (__u32)(in->mark >> 32)) & 0xffff;
	*multi = segs > 1;
	if ((in->mark & RT_LEAN_PENDING) || segs != 1 || in->peer_fin || in->clock <= in->after) {
		*kind = RT_LEAN_UNKNOWN;
		return 0;
	}
	*kind = RT_LEAN_EXACT;
	return in->clock;
}

/*
 * The copy hook alone (the send hook detached): a request read and its response's write unseen.
 * Its next read (or the server's close, or the per-interval sweep) finds data_segs_out moved since
 * the read: the response went. Its time is TCP's stamp of its last transmit (tcp_wstamp_ns) where
 * that can only be the response's: one data segment out since the read, and no transmit after it:
 *  - nothing received since the read (in_segs 0, no FIN): the last transmit is the response (a pure
 *    ACK goes out only for something received);
 *  - one data segment received (the next request): the stamp is older than its receipt (clock):
 *    a quick-ack for it would carry the receipt's clock, and a response written after it (a
 *    pipelined request) would be stamped at or after it.
 * Else (two segments out: a response in pieces, a retransmit; more received) 0: counted, untimed.
 */
static __attribute__((always_inline)) inline __u64 rt_solo_write(__u32 out_segs, __u32 in_segs,
								  __u8 peer_fin, __u64 wstamp,
								  __u64 clock, __u64 read)
{
	if (out_segs != 1 || in_segs > 1 || wstamp <= read)
		return 0;
	if ((in_segs || peer_fin) && wstamp >= clock)
		return 0;
	return wstamp;
}

/* --runq: when a watched thread became runnable (a .bss array indexed by tid). */
struct rt_wake {
	__u64 ts; /* 0: not runnable, or already counted */
	__u32 tid;
	__u32 pad;
};
_Static_assert(sizeof(struct rt_wake) == 16, "rt_wake layout");

/* TCP socket state: an entry of the direct-mapped "tcp_slots" table (freed when the socket moves
 * to CLOSE), or, when another live socket holds that entry, in sk_storage (freed with the socket). */
struct rt_tcp_sock {
	__u64 sk;	  /* the key of the socket holding the table entry (tcp_key(); 0: free);
			   * unused in sk_storage */
	__u64 arrival_ns; /* current request: first bytes queued (0: unknown) */
	__u64 pending_ns; /* bytes queued after the current request's reads: the next request */
	__u64 read_ns;	  /* current request: end of the first read */
	union {
		struct {
			__u64 write_ns; /* end of the first write of its response */
			__u64 last_write_ns;
		};
		/* plain TCP, RT_READING while the copy hook alone reads (lean_solo, rt_solo_write()) */
		struct {
			__u64 solo_mark; /* rt_lean_mark() at the request's last read */
			__u32 solo_out;	 /* data_segs_out then */
			__u32 solo_pad;
		};
	};
	__u64 accept_ns; /* first request only: when accept() returned the socket (0: unknown);
			  * after its first write, the lean hooks' mark (rt_lean_mark()) */
	__u8 state;
	__u8 flags;
	__u8 slot;	/* --pid/--cgroup without --port: the socket's slot (with RT_F_OWNED) */
	__u8 arrivals;	/* arrivals (sk_data_ready) since the last read, up to 255 */
	__u8 tls;	/* enum rt_tls_phase (with RT_F_TLS) */
	__u8 h2;	/* with RT_F_H2: 0 its frames walked, 1 lost track of, 2 closed */
	__u16 tls_skip; /* TLS handshake: bytes of the last record header seen beyond the read */
};
_Static_assert(sizeof(struct rt_tcp_sock) == 64, "rt_tcp_sock layout");

/* A thread serving a UDP socket's datagram: the one it read last, until it replies. */
struct rt_udp_reader {
	__u32 tid;   /* 0: free */
	__u32 state; /* RT_READING from its read to its reply */
	__u64 read_ns;
	__u64 arrival_ns; /* 0: unknown */
};

/* An entry's tid and state, one 8-byte word: claimed together by compare-and-swap. */
struct rt_udp_claim {
	__u32 tid;
	__u32 state;
};
_Static_assert(sizeof(struct rt_udp_claim) == 8 &&
		       __builtin_offsetof(struct rt_udp_reader, state) == 4,
	       "rt_udp_claim layout");

/* UDP socket state: a ring of arrival stamps, one per queued datagram, in queue order, and the
 * threads serving its datagrams (several threads may read one socket: memcached -t 4). */
struct rt_udp_sock {
	__u64 arrival[RT_UDP_RING];
	__u64 tail; /* datagrams seen arriving */
	__u64 head; /* datagrams read */
	struct rt_udp_reader readers[RT_UDP_READERS];
	__u32 flags;
	__u32 gen;  /* --arrivals sampled: the stamping window the ring is in step with */
	__u32 skip; /* datagrams queued while stamping was off: read without a stamp */
	__u32 reader; /* tid of the last reader */
	__u8 slot;    /* as in rt_tcp_sock */
	__u8 pad[7];
};
_Static_assert(sizeof(struct rt_udp_sock) == (RT_UDP_RING + 5 + 3 * RT_UDP_READERS) * 8,
	       "rt_udp_sock layout");

/* One --trace record: a sampled request. Times are bpf_ktime_get_ns() (CLOCK_MONOTONIC). */
struct rt_trace_rec {
	__u64 arrival_ns; /* 0: unknown */
	__u64 accept_ns;  /* 0: not a first request, or unknown */
	__u64 read_ns;
	__u64 write_ns;
	__u8 saddr[16]; /* local address (IPv4 in the first 4 bytes) */
	__u8 daddr[16]; /* peer address; zero for an unconnected UDP socket */
	__u32 tgid;
	__u16 sport; /* local port */
	__u16 dport; /* peer port; 0 for an unconnected UDP socket */
	__u16 family;
	__u8 udp;
	__u8 pad[3];
};
_Static_assert(sizeof(struct rt_trace_rec) == 80, "rt_trace_rec layout");

#endif /* LOADLENS_REQTIME_H */
