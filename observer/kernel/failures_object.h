/* SPDX-License-Identifier: MIT */
/*
 * bpf/failures.bpf.c from userspace: syscall failures (EMFILE, ENFILE, EADDRNOTAVAIL,
 * EADDRINUSE) by call and by process, skb drops by reason, SYN-ACK retransmits, resets, and the
 * target processes' exits (ring buffer). Shares sockets.bpf.c's "targets" and "errprocs" maps.
 */
#ifndef LOADLENS_OBSERVER_KERNEL_FAILURES_OBJECT_H
#define LOADLENS_OBSERVER_KERNEL_FAILURES_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/observer.h"
#include "kernel/sockets.h"

struct obs_fail_stats {
	uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX];
	uint64_t drops[OBS_DROP_REASON_SLOTS];
	uint64_t ctrs[OBS_FAILURES_CTR_MAX];
	uint64_t missed; /* program runs the kernel skipped */
};

struct obs_fail_opts {
	const struct obs_sockets_opts *conn; /* the same targets as the connection observer */
	bool children;			  /* a target's new processes become targets */
};

/* What got attached. */
struct obs_fail_features {
	bool sys[OBS_SYS_MAX]; /* sys_exit_<call> (accept/accept4: sockets.bpf.c), syscall tier */
	bool drops;	       /* skb:kfree_skb with a reason */
	bool synack;	       /* tcp:tcp_retransmit_synack */
	bool resets;	       /* tcp:tcp_send_reset and tcp_receive_reset */
	bool lifecycle;	       /* sched:sched_process_exit (and _fork with --children) */
};


/* A process whose syscalls failed. */
struct obs_fail_proc {
	uint32_t pid;
	struct obs_errproc e;
};

struct obs_fail;


/* Open failures.bpf.c and plan it (what the kernel offers, the targets): before load. NULL and
 * errno on failure (one line printed). observer/kernel/skeletons.c calls these in order. */
struct obs_fail *obs_fail_open(const char *prog, const struct obs_fail_opts *opts);
/* Load, sharing the "targets" and "errprocs" maps of shared's object (loaded before). */
int obs_fail_load(struct obs_fail *f, const char *prog, struct obs_sockets *shared);
/* Attach everything but the syscall tier, and open the event ring buffer. */
int obs_fail_attach(struct obs_fail *f, const char *prog);
void obs_fail_free(struct obs_fail *f);
/* The syscall tier's programs of this object (loaded ones) into out; returns how many. */
size_t obs_fail_tier_progs(struct obs_fail *f, struct bpf_program **out, size_t max);

const struct obs_fail_features *obs_fail_features(const struct obs_fail *f);
int obs_fail_read(struct obs_fail *f, struct obs_fail_stats *st);
void obs_fail_stats_sub(struct obs_fail_stats *st, const struct obs_fail_stats *a,
			const struct obs_fail_stats *b);
/* --children: the first new process left unwatched because the "targets" map was full (0: none);
 * how many were is obs_fail_stats.ctrs[OBS_FAILURES_CTR_TARGETS_FULL]. */
uint32_t obs_fail_targets_full_pid(const struct obs_fail *f);
/* Up to max processes from the shared errprocs map; returns how many. */
size_t obs_fail_procs(struct obs_fail *f, struct obs_fail_proc *out, size_t max);
/* Deliver queued ring-buffer events to cb; returns the number delivered or a negative errno. */
int obs_fail_poll(struct obs_fail *f, void (*cb)(void *arg, const struct obs_event *ev),
		  void *arg);

/* "connect", "openat", ... */
const char *obs_fail_sys_name(unsigned int sys);
/* "EMFILE", ... */
const char *obs_fail_name(unsigned int fail);
/* The kernel's name of a drop reason without "SKB_DROP_REASON_" ("TCP_LISTEN_OVERFLOW"), or
 * NULL when BTF does not name it. */
const char *obs_fail_drop_reason_name(const struct obs_fail *f, unsigned int reason);
/* The number of a drop reason by its short name, or -1 (the kernel does not have it). */
int obs_fail_drop_reason(const struct obs_fail *f, const char *name);

#endif /* LOADLENS_OBSERVER_KERNEL_FAILURES_OBJECT_H */
