/* SPDX-License-Identifier: MIT */
/*
 * A hand-written, minimal vmlinux.h for loadlens' BPF programs.
 *
 * Why by hand: the build must work on a host without /sys/kernel/btf/vmlinux, and a generated
 * vmlinux.h (130k lines, one kernel's layout) must not live in git. So this header takes the
 * stable ABI from the uapi headers (<linux/types.h>, <linux/bpf.h>: map types, helper flags,
 * struct bpf_raw_tracepoint_args) and declares only the kernel-internal types our programs read,
 * with only the fields they read.
 *
 * Every such type carries __attribute__((preserve_access_index)): clang records each field access
 * as a CO-RE relocation by field NAME, and libbpf rewrites the offset at load time against the
 * running kernel's BTF. So these declarations need not match any kernel's layout: member order,
 * offsets and padding here are irrelevant. Where the kernel nests a field inside anonymous
 * unions/structs (struct sock_common's skc_num, for example), it is declared flat here: libbpf
 * matches a member name through anonymous members of the target type.
 *
 * Rules for adding a field: copy its name and a type of the same size and signedness from the
 * kernel (bpftool btf dump file /sys/kernel/btf/vmlinux format c), never add a field the programs
 * do not read, and keep tracepoint context structs (read without helpers) exact in name and type.
 */
#ifndef LOADLENS_VMLINUX_H
#define LOADLENS_VMLINUX_H
/* bpf_tracing.h names the registers as the kernel does (di, not the uapi's rdi) after a
 * vmlinux.h, which it knows by this macro */
#define __VMLINUX_H__

#include <linux/types.h>
#include <linux/bpf.h>

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
#endif

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef _Bool bool;
typedef unsigned long size_t;
enum {
	false = 0,
	true = 1,
};

/* include/linux/fdtable.h */
struct fdtable {
	unsigned int max_fds;
	struct file **fd;
};

struct files_struct {
	struct fdtable *fdt;
};

/* include/linux/sched.h */
struct task_struct {
	void *stack; /* (its kernel stack page: bpf/observe.bpf.h's ll_stack_regs()) */
	struct files_struct *files;
	int pid;
	int tgid;
	int exit_code;
	char comm[16];
};

/* include/linux/ns_common.h, include/net/net_namespace.h (observer: target netns filter) */
struct ns_common {
	unsigned int inum;
};

/* include/net/netns/ipv4.h: the ephemeral port range, hi << 16 | lo (Linux 6.3+) */
struct local_ports {
	u32 range;
};

struct netns_ipv4 {
	struct local_ports ip_local_ports;
};

struct net {
	struct ns_common ns;
	struct netns_ipv4 ipv4;
};

typedef struct {
	struct net *net;
} possible_net_t;

/* include/linux/fs.h */
struct file {
	void *private_data;
};

/* include/linux/net.h */
struct socket {
	short type;
	struct file *file;
	struct sock *sk;
};

/* include/linux/socket.h: only pointed to (the fexit programs' arguments) */
struct msghdr;

/* include/uapi/linux/in6.h (the kernel's has unions of u8/u16/u32 arrays; one view is enough) */
struct in6_addr {
	__u8 s6_addr[16];
};

/* include/net/sock.h; the kernel nests the first five fields inside anonymous unions */
struct sock_common {
	__be32 skc_daddr;
	__be32 skc_rcv_saddr;
	unsigned int skc_hash; /* the established-hash of the 4-tuple, once hashed */
	__be16 skc_dport;
	__u16 skc_num;
	unsigned short skc_family;
	volatile unsigned char skc_state;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
	possible_net_t skc_net;
	unsigned long skc_flags; /* sock_flag()s: here from 6.14 or so (sk_flags before) */
	struct proto *skc_prot;	 /* TCP's, or the tls module's in its place (kTLS) */
};

/* include/net/sock.h: a protocol's operations, compared by address (kTLS: req_tls.bpf.h) */
struct proto {
	void *sendmsg;
	void *recvmsg;
};

/* include/linux/skbuff.h */
struct sk_buff_head {
	__u32 qlen;
};

struct sock {
	struct sock_common __sk_common;
	struct sk_buff_head sk_receive_queue;
	u32 sk_ack_backlog;
	u32 sk_max_ack_backlog;
	u16 sk_protocol; /* a plain field since 5.6 (a bitfield before) */
	int sk_err;
	u8 sk_shutdown;	      /* RCV_SHUTDOWN 1 | SEND_SHUTDOWN 2 (read with BPF_CORE_READ_BITFIELD) */
	unsigned long sk_flags; /* sock_flag()s, before they moved to skc_flags */
};
/* include/net/inet_sock.h: the local port, still set at CLOSE (unlike skc_num, which
 * inet_put_port() zeroes before the CLOSE state is stored) */
struct inet_sock {
	struct sock sk;
	__be16 inet_sport;
};

/* include/linux/udp.h: datagrams a reader moved off sk_receive_queue and has not read yet */
/* include/net/inet_hashtables.h: a local port's bind bucket; fastreuse is -1 only in a bucket
 * made by connect()'s search for an ephemeral port, never in one a bind() made */
struct inet_bind_bucket {
	signed char fastreuse;
};

/* include/net/inet_connection_sock.h */
struct tcp_ulp_ops;
struct inet_connection_sock {
	struct inet_sock icsk_inet;
	struct inet_bind_bucket *icsk_bind_hash;
	const struct tcp_ulp_ops *icsk_ulp_ops; /* an upper-layer protocol: the tls module's */
};

struct udp_sock {
	struct inet_sock inet;
	struct sk_buff_head reader_queue;
};

/* include/linux/tcp.h */
struct tcp_sock {
	u64 tcp_wstamp_ns;   /* departure time of the last segment transmitted */
	u64 tcp_clock_cache; /* tcp_clock_ns() at the last transmit or receive */
	u32 rcv_nxt;	     /* what we want to receive next */
	u32 copied_seq;	     /* head of yet unread data */
	u64 bytes_received;  /* RFC4898 tcpEStatsAppHCThruOctetsReceived (4.1+) */
	u32 data_segs_in;    /* RFC4898 tcpEStatsPerfDataSegsIn (4.6+) */
	u32 data_segs_out;   /* RFC4898 tcpEStatsPerfDataSegsOut (4.6+) */
};

struct request_sock;

/* include/linux/netdevice.h */
struct net_device {
	possible_net_t nd_net;
};

/* include/linux/skbuff.h; the kernel nests these inside unions and a struct_group */
struct sk_buff {
	struct net_device *dev;
	unsigned char *head;
	__u16 transport_header;
};

/* include/uapi/linux/tcp.h */
struct tcphdr {
	__be16 source;
	__be16 dest;
};

/* include/linux/trace_events.h: the header of every trace event record */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

/* kernel/trace/trace.h: the record of syscalls:sys_enter_* and syscalls:sys_exit_* */
struct syscall_trace_enter {
	struct trace_entry ent;
	int nr;
	unsigned long args[6];
};

struct syscall_trace_exit {
	struct trace_entry ent;
	int nr;
	long ret;
};

/* include/trace/events/syscalls.h: the record of raw_syscalls:sys_enter / sys_exit */
struct trace_event_raw_sys_enter {
	struct trace_entry ent;
	long id;
	unsigned long args[6];
};

struct trace_event_raw_sys_exit {
	struct trace_entry ent;
	long id;
	long ret;
};

/* include/trace/events/sock.h: the record of sock:inet_sock_set_state */
struct trace_event_raw_inet_sock_set_state {
	struct trace_entry ent;
	const void *skaddr;
	int oldstate;
	int newstate;
	__u16 sport;
	__u16 dport;
	__u16 family;
	__u16 protocol;
	__u8 saddr[4];
	__u8 daddr[4];
	__u8 saddr_v6[16];
	__u8 daddr_v6[16];
};

#if defined(__TARGET_ARCH_x86)
/* arch/x86/include/asm/ptrace.h: for bpf_tracing.h's PT_REGS_* on x86-64 (on another architecture
 * but arm64 struct pt_regs stays incomplete) */
struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};
#elif defined(__TARGET_ARCH_arm64)
/* arch/arm64/include/asm/ptrace.h, the fields read (bpf/observe.bpf.h's ll_syscall(), the uprobes
 * of bpf/sockets.bpf.c): regs[] sits in an anonymous union there, which CO-RE's field matching
 * looks into; libbpf's PT_REGS_*_SYSCALL name their own type */
struct pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
	__u64 orig_x0;
	__s32 syscallno;
};
#elif defined(__TARGET_ARCH_powerpc)
/* arch/powerpc/include/asm/ptrace.h (64-bit), the fields read (bpf/observe.bpf.h's ll_syscall(),
 * bpf/conn.bpf.h's listen_fd(), the uprobes of bpf/sockets.bpf.c): they sit in an anonymous
 * struct in an anonymous union there, which CO-RE's field matching looks into. A system call's
 * number is in gpr[0], its arguments in gpr[3..8]; its first argument also in orig_gpr3, as
 * gpr[3] takes the return value at exit */
struct pt_regs {
	unsigned long gpr[32];
	unsigned long nip;
	unsigned long msr;
	unsigned long orig_gpr3;
};
#endif

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* LOADLENS_VMLINUX_H */
