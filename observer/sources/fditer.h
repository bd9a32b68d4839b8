/* SPDX-License-Identifier: MIT */
/*
 * What /proc/PID/fd, /proc/PID/exe and /proc/PID/ns/net tell, read from BPF iterators instead
 * (bpf/fdcount.bpf.c). Those /proc files need CAP_SYS_PTRACE over another user's process; the
 * iterators are created while the observer is privileged and read after it has changed to an
 * unprivileged uid with no capability. Where the kernel lacks them (iterators came in 5.8),
 * obs_fditer_new() fails and the caller keeps reading /proc with CAP_SYS_PTRACE.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_FDITER_H
#define LOADLENS_OBSERVER_SOURCES_FDITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "loadlens/fdcount.h"

struct obs_fditer;

/* Load and attach the iterators. NULL with errno set (ENOTSUP: the kernel has none). */
struct obs_fditer *obs_fditer_new(void);
void obs_fditer_free(struct obs_fditer *it);

/* One pass: open fds of each of pids[0..n) into open[] (0 if it holds none or is gone). */
int obs_fditer_count(struct obs_fditer *it, const uint32_t *pids, size_t n, int64_t *open);

/* Processes (not ourselves; up to max) holding a socket with one of these inodes. */
size_t obs_fditer_owners(struct obs_fditer *it, const uint64_t *inodes, size_t n, uint32_t *pids,
			 size_t max);

/* One process's TCP sockets towards a holders pass's destination (struct fdc_holder). */
struct obs_fditer_holder {
	uint32_t pid;
	struct fdc_holder h;
};

/* What a holders pass found past the processes it returns. */
struct obs_fditer_holders_rest {
	uint64_t procs, conns;	    /* holders past max, and their sockets */
	uint64_t lost_procs, lost;  /* processes the kernel's table had no room for, their sockets */
	uint32_t server_pid;	    /* the process holding a listener on the port (0: none found) */
	char server_comm[16];
	uint32_t servers;	    /* processes holding one */
};

/* One pass over every file of every process: the processes (not ourselves) holding TCP sockets
 * towards key's destination, the most sockets first, up to max into out; the others, and the
 * process that listens on its port, into rest. How many, or -errno (-ENOTSUP: the holders
 * program did not load on this kernel). */
ssize_t obs_fditer_holders(struct obs_fditer *it, const struct fdc_hold_key *key,
			   struct obs_fditer_holder *out, size_t max,
			   struct obs_fditer_holders_rest *rest);

/* Every process on the host (up to max): how many, or -errno. */
ssize_t obs_fditer_tasks(struct obs_fditer *it, struct fdc_task *out, size_t max);

/* One process (its leader): 0, -ESRCH if it is gone, or -errno. */
int obs_fditer_task(struct obs_fditer *it, uint32_t tgid, struct fdc_task *out);

#endif /* LOADLENS_OBSERVER_SOURCES_FDITER_H */
