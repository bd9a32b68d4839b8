/* SPDX-License-Identifier: MIT */
/*
 * What the observer's BPF programs (bpf/conn.bpf.c) and its userspace (observer/) share: counter
 * indices, map limits and the value types of the maps. Every value is a __u64 so a per-CPU map
 * reads back as an array of __u64 per CPU.
 */
#ifndef LOADLENS_OBSERVER_H
#define LOADLENS_OBSERVER_H

#include <linux/types.h>

/* Ports named with --port; the kernel filter is a bitmap, so this is only a CLI limit. */
#define OBS_MAX_PORTS 16
/* Port bitmap in rodata: one bit per TCP port. */
#define OBS_PORT_WORDS (65536 / 64)

/* Threads inside accept()/accept4() on a target port at the same time (hash, per tid). */
#define OBS_MAX_ACCEPTING 16384
/* Handshaked sockets waiting in an accept queue (LRU hash, per struct sock *). */
#define OBS_MAX_QUEUED 65536
/* errno slots for accept() failures; errno >= OBS_ERRNO_SLOTS lands in the last slot. */
#define OBS_ERRNO_SLOTS 256

/* Indices of the per-CPU "counters" array. Each is written by one program type only. */
enum obs_counter {
	OBS_CTR_ACCEPTED = 0,	  /* accept()/accept4() returned a socket on a target port */
	OBS_CTR_HANDSHAKES,	  /* SYN_RECV -> ESTABLISHED on a target port */
	OBS_CTR_ACCEPT_ERRORS,	  /* accept() failed on a target port, EAGAIN excluded */
	OBS_CTR_ACCEPT_EAGAIN,	  /* accept() on a non-blocking target listener found nothing */
	OBS_CTR_WAIT_SUM_NS,	  /* sum of accept-queue waits */
	OBS_CTR_WAIT_MAX_NS,	  /* largest accept-queue wait (max over CPUs, not a sum) */
	OBS_CTR_WAIT_UNMATCHED,	  /* accepted, no handshake time (before start, or LRU-evicted) */
	OBS_CTR_DROP_ACCEPTING,	  /* per-tid accept map full: an error may go unattributed */
	OBS_CTR_DROP_QUEUED,	  /* handshake time not stored (LRU evicts, so rare): wait lost */
	OBS_CTR_DROP_UNRESOLVED,  /* accepted fd could not be resolved to a socket */
	OBS_CTR_MAX,
};

/* Value of the per-tid "accepting" hash: the listening socket's local port. */
struct obs_accepting {
	__u64 port;
};
_Static_assert(sizeof(struct obs_accepting) == 8, "obs_accepting layout");

/* Value of the per-sock "queued" LRU hash: when the handshake completed (bpf_ktime_get_ns). */
struct obs_queued {
	__u64 estab_ns;
};
_Static_assert(sizeof(struct obs_queued) == 8, "obs_queued layout");

#endif /* LOADLENS_OBSERVER_H */
