/* SPDX-License-Identifier: MIT */
/* Limits shared by bpf/fdcount.bpf.c and observer/features/fditer.c. */
#ifndef LOADLENS_FDCOUNT_H
#define LOADLENS_FDCOUNT_H

#define FDC_MAX_PROCS 256 /* processes counted in one pass (OBS_PROCS_MAX) */
#define FDC_MAX_INODES 64 /* sockets whose owners one pass looks for */

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

#endif /* LOADLENS_FDCOUNT_H */
