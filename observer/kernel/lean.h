/* SPDX-License-Identifier: MIT */
/*
 * The lean hooks: request timing with two programs on a request's path instead of three.
 *
 * Why: on a plain TCP keep-alive load the observer's cost is its programs' dispatch more than
 * their work (BENCHMARKS.md, "Observer: request timing overhead"), and the arrival hook
 * (sk_data_ready) runs in the softirq of the client's send, on the client's CPU. The lean hooks
 * begin a read at tcp:tcp_rcv_space_adjust, inside recvmsg after each skb it copies, where TCP's
 * clock still holds the request's receipt (bpf/req_lean.bpf.h; rt_lean_arrival() in
 * include/loadlens/reqtime.h): no sk_data_ready, no sock_recv_length.
 *
 * What they cannot do, and so when they run (--lean auto): TLS and HTTP/2 connections (their
 * reads are walked whole at sock_recv_length), UDP (its reads and arrivals are those two hooks),
 * and the first arrival of a read that took several segments, or a request that came before the
 * previous response went (pipelined): the full hooks know those. So the observer starts with
 * every hook and the copy hook both (OBS_LEAN_START: each response's write leaves a mark for the
 * next read, and where the copy hook alone may come each read leaves its own), and the first
 * interval with requests decides: plain TCP requests and nothing else (no TLS, no HTTP/2, no UDP
 * request, no read of several client writes) detach the other hooks at once (the copy hook
 * alone, else the lean hooks); TLS, HTTP/2 or UDP keep every hook; reads of several client
 * writes keep every hook until OBS_LEAN_AFTER intervals in a row of plain TCP requests, then
 * lean through one interval with both sets attached. A user's 6 s benchmark thus runs 1 s with
 * every hook, not 3 to 7 (BENCHMARKS.md). It goes back to every hook, for the rest of the run,
 * once the copy hook finds a TLS or HTTP/2 connection (TLS: not timed, counted; HTTP/2: a gap in
 * its frame walk, bpf/req_h2.bpf.h), a UDP reply is
 * written, or more than 1 request in OBS_LEAN_UNKNOWN_PER lacks the arrival the full hooks
 * would have had. Each switch is said in a note; the JSON says the share of the run spent lean.
 *
 * The copy hook alone: after OBS_LEAN_SOLO_AFTER lean intervals more, where the targets are ports
 * (--port) and no UDP socket is bound to one (a pass over the UDP sockets each interval), the
 * copy hook's reads leave marks of their own for one interval (OBS_LEAN_SOLO_GOING), and then the
 * send hook is detached too: one event a request. A response is then seen at the request's next
 * read, the server's close or reset, or the pass over the target's TCP sockets each interval
 * (before the counters are read): data_segs_out moved since the read. Its time is TCP's stamp of
 * its transmit where only it can be that (rt_solo_write()); else it is counted untimed
 * ("untimed"). It goes back to the send hook (lean), for the rest of the run, on a UDP socket on
 * a target port or more than 1 response in OBS_LEAN_UNKNOWN_PER untimed; to every hook on what
 * the lean hooks cannot follow (as above).
 *
 *   --lean on   the copy hook from the start, for the run (what it cannot time is counted)
 *   --lean off  every hook, for the run
 *
 * Attaching needs privilege the observer gives up after start: the syscall tier's child does it
 * (observer/kernel/systier.h, obs_systier_want()). Only with the sock: tracepoints (Linux 6.3+);
 * with the fentry mechanism the full hooks stay.
 */
#ifndef LOADLENS_OBSERVER_LEAN_H
#define LOADLENS_OBSERVER_LEAN_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/systier.h"

#define OBS_LEAN_AFTER 3	  /* intervals of plain TCP requests before going lean */
#define OBS_LEAN_UNKNOWN_PER 100 /* at most 1 lean read in this many without its arrival */
#define OBS_LEAN_SOLO_AFTER 2	  /* lean intervals before the copy hook alone */
/* --lean auto's start goes lean in its first interval only while requests wait less than this
 * in the socket queue (p99): the lean arrival is TCP's clock at the read, which anything TCP
 * does for the socket meanwhile refreshes (a delayed ACK, 40 ms or more after the segment), and
 * a server falling behind is what the first seconds' findings are about. Past it, the older way
 * (every hook for OBS_LEAN_AFTER plain intervals). */
#define OBS_LEAN_QUEUE_NS 10000000ULL

/* the syscall tier's modes, words and values (kernel/systier.h) */
enum obs_lean_mode {
	OBS_LEAN_AUTO = OBS_SYSTIER_AUTO,
	OBS_LEAN_ON = OBS_SYSTIER_ON,
	OBS_LEAN_OFF = OBS_SYSTIER_OFF,
};

/* "auto", "on", "off" -> mode; -1 if none of them. */
int obs_lean_mode_parse(const char *s);
const char *obs_lean_mode_name(enum obs_lean_mode m);

/* Where the hooks are: which programs are attached, and whether the writes leave marks. */
enum obs_lean_state {
	OBS_LEAN_FULL = 0, /* every hook; not lean yet */
	OBS_LEAN_GOING,	   /* both sets, marks on: the next interval is lean */
	OBS_LEAN_LEAN,	   /* the copy hook and the send hook */
	OBS_LEAN_LEAVING,  /* both sets again: the next interval is full, for good */
	OBS_LEAN_DONE,	   /* every hook, for the rest of the run */
	OBS_LEAN_SOLO_GOING, /* the copy hook and the send hook, the reads leaving marks of their
			      * own: the next interval is the copy hook alone */
	OBS_LEAN_SOLO,	     /* the copy hook alone */
	OBS_LEAN_START,	     /* --lean auto's first: every hook and the copy hook, the writes'
			      * marks and (the copy hook alone may come) the reads' own: the first
			      * interval with requests decides */
};

/* One interval's deltas, as the decision sees them. */
struct obs_lean_interval {
	uint64_t tcp_requests;	/* TCP requests recorded */
	uint64_t multi_arrival; /* TCP reads of several client writes */
	uint64_t tls_h2;	/* TLS handshakes and HTTP/2 connections (the full hooks') */
	uint64_t udp;		/* UDP requests and unsolicited replies */
	uint64_t lean_unknown;	/* reads the copy hook began without the arrival the full hooks
				 * had had (while it is attached it begins every TCP read) */
	uint64_t lean_missed;	/* TLS/HTTP/2 connections the copy hook cannot follow */
	uint64_t untimed;	/* responses the copy hook alone could not time */
	uint64_t multi_write;	/* TCP responses written in more than one write: the copy hook
				 * alone could not time them (it sees a response by its segments) */
	uint64_t udp_socks;	/* UDP sockets on a target port (the last pass over them; obs_lean_tick()
				 * fills it in) */
	uint64_t queue_p99_ns;	/* the longest socket-queue wait p99 of a TCP slot (the full hooks') */
};

struct obs_lean_rule {
	enum obs_lean_state state;
	bool solo;	    /* the copy hook alone may come (targets by port) */
	unsigned int plain; /* intervals in a row of plain TCP requests */
	char why[160];	    /* the last switch's reason */
};

/* The decision, a pure function: from r->state and this interval, the next state (set in
 * r->state, r->why said why when it changed). mode ON stays LEAN; OFF stays FULL. */
enum obs_lean_state obs_lean_decide(struct obs_lean_rule *r, enum obs_lean_mode mode,
				    const struct obs_lean_interval *iv);

/* The programs each state has attached: a mask of OBS_LEAN_PROG_*. */
#define OBS_LEAN_PROG_ARRIVAL 1U
#define OBS_LEAN_PROG_RECV 2U
#define OBS_LEAN_PROG_COPY 4U
#define OBS_LEAN_PROG_SEND 8U
#define OBS_LEAN_PROGS 4
unsigned int obs_lean_progs(enum obs_lean_state s);
/* The BPF side's lean_marks byte in state s: 0 none; 1 the writes leave marks; 2 and the full
 * hooks were attached before the copy hook came (START, GOING): TLS and HTTP/2 connections are
 * theirs, and the copy hook leaves them alone (not LEAVING: the full hooks come back after). */
uint8_t obs_lean_marks(enum obs_lean_state s);
/* The BPF side's lean_solo byte in state s, the last one `was` (0: off; 1: the reads leave marks
 * of their own; 2: and the send hook is detached). Once on it stays on: a request read under it
 * may be answered after. */
uint8_t obs_lean_solo(enum obs_lean_state s, uint8_t was);

struct bpf_program;
struct obs_lean;

/* What the lean hooks switch: the programs (loaded, not attached), the BPF side's bytes, and
 * the passes over the target's sockets. */
struct obs_lean_kernel {
	struct bpf_program *progs[OBS_LEAN_PROGS]; /* arrival, recv, copy, send */
	struct bpf_program *sweep, *udp;	   /* iter/tcp and iter/udp (NULL: no solo) */
	volatile uint8_t *marks, *solo;		   /* lean_marks, lean_solo */
	volatile uint32_t *udp_socks;		   /* lean_udp_socks */
	int netns_fd;				   /* the target's (-1: ours) */
	bool solo_ok;				   /* targets by port: the copy hook alone may come */
};

/*
 * After attach, privileged: fork the attaching child with the four programs and attach the first
 * state's (AUTO: every hook; ON: lean), waiting for it; the passes' iterators. NULL and errno set,
 * one line printed.
 */
struct obs_lean *obs_lean_new(const char *prog, enum obs_lean_mode mode,
			      const struct obs_lean_kernel *k);
/* Before each read of the counters (the read phase): the passes the state wants, over the
 * target's TCP sockets (responses the copy hook alone has not seen yet) and UDP ones. */
void obs_lean_pass(struct obs_lean *l);
void obs_lean_free(struct obs_lean *l);
/* One interval's deltas: decide, switch (without waiting), say it in a note; final: the last
 * read's, only counted. */
void obs_lean_tick(struct obs_lean *l, const struct obs_lean_interval *iv, bool final);
/* The share of the run so far the copy hook was the read (0..1), the TCP requests it began,
 * and the state and reason. */
double obs_lean_share(const struct obs_lean *l);
double obs_lean_solo_share(const struct obs_lean *l); /* the copy hook alone's (0..1) */
uint64_t obs_lean_reads(const struct obs_lean *l);
enum obs_lean_state obs_lean_state(const struct obs_lean *l);
const char *obs_lean_why(const struct obs_lean *l);
enum obs_lean_mode obs_lean_mode(const struct obs_lean *l);

#endif /* LOADLENS_OBSERVER_LEAN_H */
