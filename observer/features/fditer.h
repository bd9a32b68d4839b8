/* SPDX-License-Identifier: MIT */
/*
 * What /proc/PID/fd, /proc/PID/exe and /proc/PID/ns/net tell, read from BPF iterators instead
 * (bpf/fdcount.bpf.c). Those /proc files need CAP_SYS_PTRACE over another user's process; the
 * iterators are created while the observer is privileged and read after it has changed to an
 * unprivileged uid with no capability. Where the kernel lacks them (iterators came in 5.8),
 * obs_fditer_new() fails and the caller keeps reading /proc with CAP_SYS_PTRACE.
 */
#ifndef LOADLENS_OBSERVER_FDITER_H
#define LOADLENS_OBSERVER_FDITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "loadlens/fdcount.h"

struct obs_fditer;

/* Load and attach both iterators. NULL with errno set (ENOTSUP: the kernel has none). */
struct obs_fditer *obs_fditer_new(void);
void obs_fditer_free(struct obs_fditer *it);

/* One pass: open fds of each of pids[0..n) into open[] (0 if it holds none or is gone). */
int obs_fditer_count(struct obs_fditer *it, const uint32_t *pids, size_t n, int64_t *open);

/* Processes (not ourselves; up to max) holding a socket with one of these inodes. */
size_t obs_fditer_owners(struct obs_fditer *it, const uint64_t *inodes, size_t n, uint32_t *pids,
			 size_t max);

/* Every process on the host (up to max): how many, or -errno. */
ssize_t obs_fditer_tasks(struct obs_fditer *it, struct fdc_task *out, size_t max);

/* One process (its leader): 0, -ESRCH if it is gone, or -errno. */
int obs_fditer_task(struct obs_fditer *it, uint32_t tgid, struct fdc_task *out);

#endif /* LOADLENS_OBSERVER_FDITER_H */
