/* SPDX-License-Identifier: MIT */
/* Limits shared by bpf/fdcount.bpf.c and observer/sources/fditer.c. */
#ifndef LOADLENS_FDCOUNT_H
#define LOADLENS_FDCOUNT_H

#define FDC_MAX_PROCS 256 /* processes counted in one pass (OBS_PROCS_MAX) */
#define FDC_MAX_INODES 64 /* sockets whose owners one pass looks for */
#define FDC_MAX_HOLDERS 1024 /* processes one holders pass counts; more are counted as lost */

#include <linux/types.h>

/* One process, from the task iterator: what /proc/PID/{ns/net,exe,stat} say. */
struct fdc_task {
	__u64 exe_ino;	/* inode of its executable */
	__u64 start_ns; /* start time, ns after boot (/proc/PID/stat field 22 is this in ticks) */
	__u32 tgid;
	__u32 netns;	/* inode of its network namespace (0 if it has none: exiting) */
	__u32 exe_dev;	/* the executable's file system (the kernel's dev_t) */
	__u32 pad;
};
_Static_assert(sizeof(struct fdc_task) == 32, "struct fdc_task is shared with BPF");

/* The destination whose TCP sockets a holders pass counts per process: the sockets of one port
 * group of the census, (local address -> remote address:port), in one network namespace. */
struct fdc_hold_key {
	__u8 saddr[16]; /* local address (IPv4: the first 4 bytes) */
	__u8 daddr[16]; /* remote address */
	__u32 netns;	/* the namespace's inode */
	__u16 dport;	/* remote port, host order */
	__u8 family;	/* AF_INET or AF_INET6 */
	__u8 pad;
};
_Static_assert(sizeof(struct fdc_hold_key) == 40, "struct fdc_hold_key is shared with BPF");

/* One process's share of those sockets, and what their receive queues say of its reads. */
struct fdc_holder {
	__u64 conns;	    /* its TCP sockets towards the destination (an fd each, any state) */
	__u64 unread;	    /* of which with bytes in the receive queue it has not read */
	__u64 never_read;   /* of which bytes came on, and it read none of them */
	__u64 unread_bytes; /* bytes waiting in those receive queues */
	__u64 idle;	    /* of which nothing was sent or received on (no byte either way) */
	__u32 listens;	    /* it holds a listener on the destination's port (the server) */
	__u32 pad;
	char comm[16];
};
_Static_assert(sizeof(struct fdc_holder) == 64, "struct fdc_holder is shared with BPF");

#endif /* LOADLENS_FDCOUNT_H */
