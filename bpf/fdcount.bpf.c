// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * The watched processes' open fds, and the owners of given sockets, from a task_file iterator
 * (observer/sources/fditer.c). The iterator is created while the observer is privileged; reading
 * it later needs no capability, where listing another process's /proc/PID/fd needs
 * CAP_SYS_PTRACE. The kernel visits each file of each process once (threads sharing the fd table
 * of their leader are skipped), so a count equals the entries of /proc/PID/fd at that moment.
 *
 *   fdc_count   tgid -> files: userspace puts the watched tgids in with 0 before each pass
 *   fdc_inodes  socket inode -> 1: userspace puts the inodes whose owners it wants
 *   fdc_owners  tgid -> 1: processes holding one of those sockets (when want_owners is set)
 *   fdc_holders tgid -> struct fdc_holder: the TCP sockets towards hold_key's destination each
 *               process holds, and whether it reads them (a second task_file program,
 *               handle_task_file_hold, on a link of its own: where it does not load, the others
 *               still do)
 *
 * A second iterator (iter/task) writes one struct fdc_task per process: its network namespace,
 * its executable (inode) and start time, what /proc/PID/ns/net and /proc/PID/exe tell a reader
 * that may ptrace the process.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "maps.bpf.h"
#include "iter.bpf.h"
#include "loadlens/fdcount.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* the kernel's types, read by name (CO-RE); the ___fdc flavour keeps vmlinux.h untouched */
struct super_block___fdc;

struct inode___fdc {
	unsigned short i_mode;
	unsigned long i_ino;
	struct super_block___fdc *i_sb;
} __attribute__((preserve_access_index));

struct file___fdc {
	struct inode___fdc *f_inode;
	void *private_data;
} __attribute__((preserve_access_index));

/* a socket file's private data, its sock (vmlinux.h's sock_common first), and the TCP counters a
 * holders pass reads */
struct sock___fdc {
	struct sock_common __sk_common;
	u16 sk_protocol;
} __attribute__((preserve_access_index));

struct socket___fdc {
	struct sock___fdc *sk;
} __attribute__((preserve_access_index));

struct tcp_sock___fdc {
	u32 rcv_nxt;
	u32 copied_seq;
	u64 bytes_received; /* bytes the peer sent that arrived in order (RFC 4898) */
	u64 bytes_acked;    /* bytes we sent that the peer acknowledged */
} __attribute__((preserve_access_index));

struct super_block___fdc {
	__u32 s_dev;
} __attribute__((preserve_access_index));

struct ns_common___fdc {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct net___fdc {
	struct ns_common___fdc ns;
} __attribute__((preserve_access_index));

struct nsproxy___fdc {
	struct net___fdc *net_ns;
} __attribute__((preserve_access_index));

struct mm_struct___fdc {
	struct file___fdc *exe_file;
} __attribute__((preserve_access_index));

struct fdtable___fdc {
	unsigned int max_fds;
	unsigned long *open_fds;
} __attribute__((preserve_access_index));

struct files_struct___fdc {
	struct fdtable___fdc *fdt;
} __attribute__((preserve_access_index));

struct task_struct___fdc {
	int pid;
	int tgid;
	__u64 start_boottime;
	struct mm_struct___fdc *mm;
	struct nsproxy___fdc *nsproxy;
	struct files_struct___fdc *files;
} __attribute__((preserve_access_index));

struct bpf_iter__task___fdc {
	struct bpf_iter_meta___ll *meta;
	struct task_struct___fdc *task;
} __attribute__((preserve_access_index));

struct bpf_iter__task_file___fdc {
	void *meta;
	struct task_struct *task;
	__u32 fd;
	struct file___fdc *file;
} __attribute__((preserve_access_index));

#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define AF_INET 2
#define IPPROTO_TCP 6
#define TCP_LISTEN 10

LL_MAP(fdc_count, BPF_MAP_TYPE_HASH, FDC_MAX_PROCS, __u32, __u64);
LL_MAP(fdc_inodes, BPF_MAP_TYPE_HASH, FDC_MAX_INODES, __u64, __u32);
LL_MAP(fdc_owners, BPF_MAP_TYPE_HASH, FDC_MAX_PROCS, __u32, __u32);
LL_MAP(fdc_holders, BPF_MAP_TYPE_HASH, FDC_MAX_HOLDERS, __u32, struct fdc_holder);

__u32 want_owners = 0;
__u64 owners_full = 0; /* owners past FDC_MAX_PROCS, counted */
struct fdc_hold_key hold_key = {};
__u64 holders_lost = 0;	      /* sockets of processes past FDC_MAX_HOLDERS, counted */
__u64 holders_lost_procs = 0; /* those processes (one per refused insert: an upper bound) */

static __always_inline bool addr_eq(const __u8 *x, const __u8 *y, int n)
{
	int i;

#pragma unroll
	for (i = 0; i < 16; i++)
		if (i < n && x[i] != y[i])
			return false;
	return true;
}

/* A holders pass: the socket file's TCP socket, if it goes to hold_key's destination (or
 * listens on its port), counted for the process that holds it. */
static __always_inline void hold_count(struct task_struct *task, __u32 tgid,
				       struct file___fdc *file)
{
	struct socket___fdc *sock = BPF_CORE_READ(file, private_data);
	struct tcp_sock___fdc *tp;
	struct fdc_holder *h, nh = {};
	struct sock___fdc *sk;
	__u32 rcv_nxt, copied;
	__u8 a[16] = {}, b[16] = {};
	__u64 got, acked;
	bool listener;

	sk = sock ? BPF_CORE_READ(sock, sk) : NULL;
	if (!sk || BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP ||
	    BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum) != hold_key.netns)
		return;
	/* a listener on the port, of either family (a JVM listens on IPv6, dual-stack) */
	listener = BPF_CORE_READ(sk, __sk_common.skc_state) == TCP_LISTEN;
	if (listener) {
		if (BPF_CORE_READ(sk, __sk_common.skc_num) != hold_key.dport)
			return;
	} else {
		if (BPF_CORE_READ(sk, __sk_common.skc_family) != hold_key.family ||
		    bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport)) != hold_key.dport)
			return;
		if (hold_key.family == AF_INET) {
			bpf_core_read(a, 4, &sk->__sk_common.skc_rcv_saddr);
			bpf_core_read(b, 4, &sk->__sk_common.skc_daddr);
			if (!addr_eq(a, hold_key.saddr, 4) || !addr_eq(b, hold_key.daddr, 4))
				return;
		} else {
			bpf_core_read(a, 16, &sk->__sk_common.skc_v6_rcv_saddr);
			bpf_core_read(b, 16, &sk->__sk_common.skc_v6_daddr);
			if (!addr_eq(a, hold_key.saddr, 16) || !addr_eq(b, hold_key.daddr, 16))
				return;
		}
	}
	h = bpf_map_lookup_elem(&fdc_holders, &tgid);
	if (!h) {
		BPF_CORE_READ_STR_INTO(&nh.comm, task, comm);
		if (bpf_map_update_elem(&fdc_holders, &tgid, &nh, BPF_NOEXIST)) {
			holders_lost_procs++;
			holders_lost += !listener;
			return;
		}
		h = bpf_map_lookup_elem(&fdc_holders, &tgid);
		if (!h)
			return;
	}
	if (listener) {
		h->listens = 1;
		return;
	}
	/* unread: rcv_nxt - copied_seq; read so far: what came in order less that */
	tp = (struct tcp_sock___fdc *)sk;
	rcv_nxt = BPF_CORE_READ(tp, rcv_nxt);
	copied = BPF_CORE_READ(tp, copied_seq);
	got = BPF_CORE_READ(tp, bytes_received);
	acked = BPF_CORE_READ(tp, bytes_acked);
	h->conns++;
	if (rcv_nxt != copied) {
		h->unread++;
		h->unread_bytes += rcv_nxt - copied;
	}
	if (got && got <= (__u32)(rcv_nxt - copied))
		h->never_read++;
	if (!got && !acked)
		h->idle++;
}

SEC("iter/task_file")
int handle_task_file(struct bpf_iter__task_file___fdc *ctx)
{
	struct task_struct *task = ctx->task;
	struct file___fdc *file = ctx->file;
	struct inode___fdc *inode;
	__u32 tgid, one = 1;
	__u64 *n, ino;

	if (!task || !file)
		return 0;
	tgid = (__u32)BPF_CORE_READ(task, tgid);
	n = bpf_map_lookup_elem(&fdc_count, &tgid);
	if (n)
		__sync_fetch_and_add(n, 1);
	if (!want_owners)
		return 0;
	inode = BPF_CORE_READ(file, f_inode);
	if (!inode || (BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFSOCK)
		return 0;
	ino = BPF_CORE_READ(inode, i_ino);
	if (bpf_map_lookup_elem(&fdc_inodes, &ino) &&
	    bpf_map_update_elem(&fdc_owners, &tgid, &one, BPF_ANY))
		__sync_fetch_and_add(&owners_full, 1);
	return 0;
}

/* The holders pass: every socket file, counted for its process if it goes to hold_key's
 * destination (hold_count). */
SEC("iter/task_file")
int handle_task_file_hold(struct bpf_iter__task_file___fdc *ctx)
{
	struct task_struct *task = ctx->task;
	struct file___fdc *file = ctx->file;
	struct inode___fdc *inode;

	if (!task || !file)
		return 0;
	inode = BPF_CORE_READ(file, f_inode);
	if (!inode || (BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFSOCK)
		return 0;
	hold_count(task, (__u32)BPF_CORE_READ(task, tgid), file);
	return 0;
}

/* Open fds of a watched process: the bits set in its fd table's open_fds bitmap, 8 words a turn,
 * so that a process holding 20,000 connections costs ~40 reads, not 20,000 file visits. */
struct fdc_bits {
	const unsigned long *words;
	__u32 nwords;
	__u64 open;
};

static __always_inline __u64 fdc_popcount(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

static long fdc_count_chunk(__u64 i, void *ctx)
{
	struct fdc_bits *b = ctx;
	__u64 w[8] = {};
	__u32 k, left;

	if (i * 8 >= b->nwords)
		return 1;
	left = b->nwords - (__u32)i * 8;
	if (left >= 8) {
		if (bpf_probe_read_kernel(w, sizeof(w), b->words + i * 8))
			return 1;
	} else { /* the table's last words, one by one: none past its end */
		for (k = 0; k < 7 && k < left; k++)
			if (bpf_probe_read_kernel(&w[k], sizeof(w[k]), b->words + i * 8 + k))
				return 1;
	}
	for (k = 0; k < 8; k++)
		b->open += fdc_popcount(w[k]);
	return 0;
}

/* The task's tgid where it leads its process; 0 for no task or one of the process's other
 * threads (the task iterator never shows pid 0) */
static __always_inline __u32 leader_tgid(struct task_struct___fdc *task)
{
	__u32 tgid;

	if (!task)
		return 0;
	tgid = (__u32)BPF_CORE_READ(task, tgid);
	return (__u32)BPF_CORE_READ(task, pid) == tgid ? tgid : 0;
}

SEC("iter/task")
int handle_task_fds(struct bpf_iter__task___fdc *ctx)
{
	struct task_struct___fdc *task = ctx->task;
	struct fdtable___fdc *fdt;
	struct fdc_bits b = {};
	__u32 tgid;
	__u64 *n;

	tgid = leader_tgid(task);
	if (!tgid)
		return 0; /* none, or a thread: threads share the leader's table */
	n = bpf_map_lookup_elem(&fdc_count, &tgid);
	if (!n)
		return 0;
	fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt)
		return 0; /* exiting: no table */
	b.words = BPF_CORE_READ(fdt, open_fds);
	b.nwords = (BPF_CORE_READ(fdt, max_fds) + 63) / 64;
	bpf_loop((b.nwords + 7) / 8, fdc_count_chunk, &b, 0);
	*n = b.open;
	return 0;
}

SEC("iter/task")
int handle_task(struct bpf_iter__task___fdc *ctx)
{
	struct task_struct___fdc *task = ctx->task;
	struct inode___fdc *inode;
	struct fdc_task rec = {};
	struct mm_struct___fdc *mm;
	struct file___fdc *exe;

	rec.tgid = leader_tgid(task);
	if (!rec.tgid)
		return 0; /* none, or a thread: one record per process, its leader's */
	mm = BPF_CORE_READ(task, mm);
	exe = mm ? BPF_CORE_READ(mm, exe_file) : NULL;
	if (!exe)
		return 0; /* a kernel thread, or a process exiting */
	inode = BPF_CORE_READ(exe, f_inode);
	rec.exe_ino = inode ? BPF_CORE_READ(inode, i_ino) : 0;
	rec.exe_dev = inode ? BPF_CORE_READ(inode, i_sb, s_dev) : 0;
	rec.netns = BPF_CORE_READ(task, nsproxy, net_ns, ns.inum);
	rec.start_ns = BPF_CORE_READ(task, start_boottime);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
