/* SPDX-License-Identifier: MIT */
/*
 * fd usage of the target processes: open fds (a BPF task_file iterator, fditer.h; where the
 * kernel has none, /proc/PID/fd, which for another user's process needs CAP_SYS_PTRACE, kept for
 * this only), RLIMIT_NOFILE (/proc/PID/limits, readable by anyone), the peak, and the
 * system-wide fs.file-nr against fs.file-max.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_FDS_H
#define LOADLENS_OBSERVER_SOURCES_FDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct obs_fd_proc {
	uint32_t pid;
	char comm[16];
	int64_t open;	  /* -1: unreadable */
	int64_t peak;	  /* largest open seen */
	int64_t soft;	  /* RLIMIT_NOFILE; -1 unlimited or unknown */
	int64_t hard;
	int err;	  /* errno of the last failed /proc/PID/fd read, 0 if fine */
};

/* Count the open fds of pid and read its limits into p (pid and peak kept). Returns 0/-errno. */
int obs_fd_read(struct obs_fd_proc *p);
/* The same with the count given (from the iterator): limits, peak, comm. Returns 0/-errno. */
int obs_fd_set(struct obs_fd_proc *p, int64_t open);

/* System-wide: allocated file handles and fs.file-max. Returns 0 or -errno. */
int obs_fd_system(uint64_t *nr, uint64_t *max);

/* Processes (up to max, not ourselves) holding a socket with one of these inodes. */
size_t obs_fd_owners(const uint64_t *inodes, size_t n, uint32_t *pids, size_t max);

#endif /* LOADLENS_OBSERVER_SOURCES_FDS_H */
