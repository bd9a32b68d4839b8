/* SPDX-License-Identifier: MIT */
/*
 * What the observer's BPF programs (bpf/sockets.bpf.c, bpf/failures.bpf.c) and its userspace
 * (observer/) share: counter indices, map limits and the value types of the maps. Counters are
 * __u64 so a per-CPU map reads back as an array of __u64 per CPU.
 */
#ifndef LOADLENS_OBSERVER_H
#define LOADLENS_OBSERVER_H

#include <linux/types.h>

/* Ports named with --port; the kernel filter is a bitmap, so this is only a CLI limit. */
#define OBS_MAX_PORTS 16
/* Port bitmap in rodata: one bit per TCP port. */
#define OBS_PORT_WORDS (65536 / 64)

/* Slots of the direct-mapped table of handshake times (array indexed by the socket's 4-tuple
 * hash); a power of two. Two sockets queued at once in the same slot: the older one's wait is
 * lost (accept_queue_wait_unmatched); about 0.1% of waits with 128 connections queued. */
#define OBS_QUEUED_SLOTS 131072
/* errno slots for accept() failures; errno >= OBS_ERRNO_SLOTS lands in the last slot. */
#define OBS_ERRNO_SLOTS 256
/* Target processes (tgids) for --pid, with --children their descendants (hash). */
#define OBS_MAX_TARGETS 4096
/* Processes with failed syscalls, named in findings (LRU hash, per tgid). */
#define OBS_MAX_ERRPROCS 1024
/* skb drop reasons counted; a reason >= this lands in the last slot. */
#define OBS_DROP_REASON_SLOTS 256
/* TCP states (include/net/tcp_states.h: 1..12); index = state. */
#define OBS_TCP_STATES 16
/* Ring buffer for rare events (target exit, new child). */
#define OBS_RINGBUF_BYTES (64 * 1024)

/* Indices of the per-CPU "block" of bpf/conn.bpf.h. Each is written by one program type. */
enum obs_counter {
	OBS_CTR_ACCEPTED = 0,	  /* accepted: derived in userspace (observer/kernel/sockets.c),
				   * never written by BPF: handshakes + queued at start - queued now - discarded,
				   * or ACCEPT_CALLS where accepts must be judged by process */
	OBS_CTR_HANDSHAKES,	  /* SYN_RECV -> ESTABLISHED on a target port */
	OBS_CTR_ACCEPT_ERRORS,	  /* accept() failed on a target port, EAGAIN excluded */
	OBS_CTR_ACCEPT_EAGAIN,	  /* accept() on a non-blocking target listener found nothing */
	OBS_CTR_WAIT_SUM_NS,	  /* sum of accept-queue waits */
	OBS_CTR_WAIT_MAX_NS,	  /* largest accept-queue wait (max over CPUs, not a sum) */
	OBS_CTR_WAIT_UNMATCHED,	  /* accept() seen, no handshake time (before start, slot reused) */
	OBS_CTR_ACCEPT_CALLS,	  /* accept()/accept4() returned a target socket, seen while the
				   * syscall programs were attached (observer/kernel/systier.c) */
	OBS_CTR_DROP_UNRESOLVED,  /* accepted fd could not be resolved to a socket */
	OBS_CTR_QLEN_SUM,	  /* accept-queue length seen at each accept, summed */
	OBS_CTR_QLEN_MAX,	  /* longest accept queue seen at an accept (max over CPUs) */
	OBS_CTR_BACKLOG_MAX,	  /* that listener's backlog, sk_max_ack_backlog (max over CPUs) */
	OBS_CTR_QLEN_FULL,	  /* accepts that found the queue at or over its backlog */
	OBS_CTR_TW_ENTRIES,	  /* {FIN_WAIT2,CLOSING} -> CLOSE without error: a TIME_WAIT entry */
	OBS_CTR_LISTEN_DISCARD,	  /* children still queued when their target listener closed */
	OBS_CTR_CONNECT_NOPORT,	  /* connect() found no free local port (EADDRNOTAVAIL): a socket
				   * went SYN_SENT -> CLOSE before it got a port */
	OBS_CTR_MAX,
};

/* Is counter i a maximum (combined over CPUs with max) rather than a sum? */
static inline int obs_ctr_is_max(unsigned int i)
{
	return i == OBS_CTR_WAIT_MAX_NS || i == OBS_CTR_QLEN_MAX || i == OBS_CTR_BACKLOG_MAX;
}

/* State moves of target sockets: [s] moves into TCP state s, [16 + s] out of it. */
#define OBS_STATE_MOVES (2 * OBS_TCP_STATES)

/* The one value of bpf/conn.bpf.h's per-CPU "block" array: every counter and state move, so that a
 * program run costs one map lookup. Userspace reads it back as ncpu consecutive blocks. */
struct obs_conn_block {
	__u64 ctr[OBS_CTR_MAX];
	__u64 moves[OBS_STATE_MOVES];
};
_Static_assert(sizeof(struct obs_conn_block) == 8 * (OBS_CTR_MAX + OBS_STATE_MOVES),
	       "obs_conn_block layout");

/* Syscalls whose failures failures.bpf.c counts (one exit tracepoint each). */
enum obs_sys {
	OBS_SYS_ACCEPT4 = 0,
	OBS_SYS_ACCEPT,
	OBS_SYS_SOCKET,
	OBS_SYS_CONNECT,
	OBS_SYS_BIND,
	OBS_SYS_OPENAT,
	OBS_SYS_OPEN,
	OBS_SYS_PIPE2,
	OBS_SYS_DUP,
	OBS_SYS_DUP2,
	OBS_SYS_DUP3,
	OBS_SYS_SOCKETPAIR,
	OBS_SYS_EPOLL_CREATE1,
	OBS_SYS_EVENTFD2,
	OBS_SYS_MAX,
};

/* The failures counted, by errno. */
enum obs_fail_class {
	OBS_FAIL_EMFILE = 0,	 /* 24: the process is at RLIMIT_NOFILE */
	OBS_FAIL_ENFILE,	 /* 23: the system is at fs.file-max */
	OBS_FAIL_EADDRNOTAVAIL,	 /* 99: no ephemeral port left for this destination */
	OBS_FAIL_EADDRINUSE,	 /* 98: the port is taken */
	OBS_FAIL_MAX,
};

/* Indices of the per-CPU "failures_ctrs" array of failures.bpf.c; one program type each. */
enum obs_failures_ctr {
	OBS_FAILURES_CTR_SYNACK_RETRANS = 0, /* tcp_retransmit_synack on a target listener */
	OBS_FAILURES_CTR_RST_SENT,	   /* tcp_send_reset on a target port */
	OBS_FAILURES_CTR_RST_RECV,	   /* tcp_receive_reset on a target socket */
	OBS_FAILURES_CTR_RB_LOST,		   /* ring buffer full: a rare event was lost */
	OBS_FAILURES_CTR_ERRPROC_FULL,	   /* per-process failure map could not take a new process */
	OBS_FAILURES_CTR_TARGETS_FULL,	   /* --children: a new child not watched, the "targets" map
				    * (OBS_MAX_TARGETS) was full */
	OBS_FAILURES_CTR_MAX,
};

/* A slot of the "queued" table: which socket completed its handshake, and when. */
struct obs_queued {
	__u64 tag;	/* 4-tuple hash << 32 | remote port << 16 | local port; 0 = free */
	__u64 estab_ns; /* bpf_ktime_get_ns() at SYN_RECV -> ESTABLISHED */
	__u64 accept_ns; /* when accept() returned it (0: not seen), for its first request */
};
_Static_assert(sizeof(struct obs_queued) == 24, "obs_queued layout");

/* Value of the "targets" hash (key: tgid). */
#define OBS_TARGET_PID 1u   /* named with --pid */
#define OBS_TARGET_CHILD 2u /* a descendant, with --children */
struct obs_target {
	__u32 flags;
	__u32 parent; /* tgid of the parent for a child, else 0 */
};
_Static_assert(sizeof(struct obs_target) == 8, "obs_target layout");

/* Value of the "errprocs" LRU hash (key: tgid): a process whose syscalls failed. */
struct obs_errproc {
	__u64 fails[OBS_FAIL_MAX]; /* by enum obs_fail_class */
	__u64 last_ns;		   /* bpf_ktime_get_ns() of the latest failure */
	__u32 last_sys;		   /* enum obs_sys of the latest failure */
	__u32 last_fail;	   /* enum obs_fail_class of the latest failure */
	char comm[16];
};
_Static_assert(sizeof(struct obs_errproc) == 64, "obs_errproc layout");

/* Ring buffer record. */
enum obs_event_type {
	OBS_EV_EXIT = 1, /* a target process exited (its last thread) */
	OBS_EV_CHILD,	 /* a target forked a new process, now a target too (--children) */
};
struct obs_event {
	__u64 ts_ns;
	__u32 type;
	__u32 pid;
	__u32 ppid;
	__s32 exit_code;
	char comm[16];
};
_Static_assert(sizeof(struct obs_event) == 40, "obs_event layout");

#endif /* LOADLENS_OBSERVER_H */
