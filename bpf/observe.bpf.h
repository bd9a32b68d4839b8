/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * What sockets.bpf.c and failures.bpf.c share: the target filter and the per-process failure map.
 *
 * Targets, set before load through rodata (0 = off):
 *   targ_port_bits/targ_nports   sockets whose local or remote port is a target port
 *   targ_netns                   sockets of one network namespace (its inode number)
 *   targ_by_pid                  processes whose tgid is in the "targets" hash
 *   targ_cgroup_id               processes in one cgroup v2 (at targ_cgroup_level) or below it
 * Both objects have a "targets" and an "errprocs" map; userspace makes failures.bpf.c reuse
 * sockets.bpf.c's, so there is one of each.
 */
#ifndef LOADLENS_OBSERVE_BPF_H
#define LOADLENS_OBSERVE_BPF_H

#include "maps.bpf.h"
#include "loadlens/observer.h"

/* the TCP states (include/net/tcp_states.h) */
#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT 2
#define TCP_SYN_RECV 3
#define TCP_FIN_WAIT1 4
#define TCP_FIN_WAIT2 5
#define TCP_CLOSE 7
#define TCP_CLOSE_WAIT 8
#define TCP_LAST_ACK 9
#define TCP_LISTEN 10
#define TCP_CLOSING 11

/*
 * bpf_rdonly_cast (a Linux 6.2 kfunc): a typed, read-only view of a kernel pointer, e.g. a struct
 * sock seen as the struct tcp_sock it is, dereferenced with direct loads; a no-op at run time
 * (the verifier rewrites it to a move). Declared weak, so that an object that names it still
 * loads where the kernel lacks it: userspace sets targ_rdonly_cast from the kernel's BTF, and
 * LL_READ() then reads the field with bpf_probe_read_kernel (one helper call) instead. The branch
 * not taken is dead code to the verifier (targ_rdonly_cast is read-only data), which removes it:
 * no cost where the kfunc exists, and no call to a missing kfunc where it does not.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
const volatile __u8 targ_rdonly_cast = 0;

#define LL_CAST(type, ptr) ((const type *)bpf_rdonly_cast((ptr), bpf_core_type_id_kernel(type)))

/* LL_READ_KF with kf: the kfunc path when true. The request programs pass a constant where it is
 * known (the sock: tracepoints exist from 6.3, the kfunc from 6.2: no switch is read at run time)
 * and targ_rdonly_cast in the trampoline programs. */
#define LL_READ_KF(kf, type, ptr, field)                                                           \
	((kf) ? LL_CAST(type, ptr)->field : BPF_CORE_READ((const type *)(ptr), field))

/* Field `field` (one member, possibly nested with '.') of the kernel object at ptr, of `type`.
 * ptr may be a BTF pointer or a plain address (one read with bpf_probe_read_kernel). */
#define LL_READ(type, ptr, field) LL_READ_KF(targ_rdonly_cast, type, ptr, field)

/*
 * bpf_get_current_task_btf (5.11) and bpf_task_pt_regs (5.15), set before load from what the
 * verifier knows (observer/kernel/sockets.c): without the first the current task is a plain
 * address read by helper (LL_TASK_READ), without the second what needs the task's user registers
 * (the buffer of a read or write: payload sampling, HTTP/2's and TLS's bytes; the listener of a
 * failed accept) goes without, said in a note. The branches not taken are dead code.
 */
const volatile __u8 targ_task_btf = 1;
const volatile __u8 targ_pt_regs = 1;

/*
 * Atomic fetch-and-add that returns the old value, and compare-and-exchange (BPF_ATOMIC: 5.12;
 * targ_atomics 0 where the kernel lacks them, with the sockets_compat object). Without them a
 * plain read and write: two CPUs at the same moment may both take the same old value. Where that
 * would lose a count the caller keeps its state elsewhere (TCP: in the hash by socket,
 * bpf/req.bpf.h); the rest is said in a note.
 */
const volatile __u8 targ_atomics = 1;

#ifndef LL_PRE_5_12
#define LL_FETCH_ADD(p, v) __sync_fetch_and_add((p), (v))
#define LL_CMPXCHG(p, old, new) __sync_val_compare_and_swap((p), (old), (new))
/* a function verified once, on its own (its arguments may be pointers from 5.12) */
#define LL_GLOBAL __attribute__((noinline))
#else
/* Before 5.12 (the sockets_compat object, chosen where the kernel refuses BPF_ATOMIC's
 * fetching forms, which it does anywhere in a program): plain reads and writes, and every
 * function inlined */
#define LL_FETCH_ADD(p, v)                                                                         \
	({                                                                                         \
		__typeof__(*(p)) o_ = *(p);                                                        \
		*(p) = o_ + (v);                                                                   \
		o_;                                                                                \
	})
#define LL_CMPXCHG(p, old, new)                                                                    \
	({                                                                                         \
		__typeof__(*(p)) o_ = *(p);                                                        \
		if (o_ == (old))                                                                   \
			*(p) = (new);                                                              \
		o_;                                                                                \
	})
#define LL_GLOBAL static __always_inline
#endif
/* A function verified once, on its own, in both objects: its arguments are numbers only, which
 * kernels before 5.12 take too (the compat object's walks keep their state in a map for them). */
#define LL_GLOBAL_NUM __attribute__((noinline))

/* A pointer as a number (a hash's input): from 5.12 a cast, where the number goes on through a
 * global function's argument in memory; before it, where every function is inlined and the
 * verifier refuses arithmetic on a pointer however it is held, its value read back by helper
 * (one call). */
#ifndef LL_PRE_5_12
#define LL_PTR_NUM(p) ((__u64)(p))
#else
#define LL_PTR_NUM(p)                                                                              \
	({                                                                                         \
		const void *p_ = (p);                                                              \
		__u64 v_ = 0;                                                                      \
		bpf_probe_read_kernel(&v_, sizeof(v_), &p_);                                       \
		v_;                                                                                \
	})
#endif

/* This CPU's entry (key 0) of map, a BPF_MAP_TYPE_PERCPU_ARRAY of one entry, or NULL. */
#define LL_PERCPU0(map)                                                                            \
	({                                                                                         \
		__u32 k0_ = 0;                                                                     \
		bpf_map_lookup_elem(&(map), &k0_);                                                 \
	})

/*
 * State a global function shares with its caller: from 5.12 a pointer argument (LL_STATE_PARAM
 * in its declaration, LL_STATE_ARG in a call) to the caller's zeroed variable (LL_STATE_NEW
 * returns stack); before it, where a global function takes numbers only, this CPU's entry of
 * map, zeroed by LL_STATE_NEW (NULL: none) and looked up by the function itself (LL_STATE_GET).
 */
#ifndef LL_PRE_5_12
#define LL_STATE_PARAM(type, name) type *name,
#define LL_STATE_ARG(p) (p),
#define LL_STATE_GET(type, name, map)
#define LL_STATE_NEW(map, stack) (stack)
#else
#define LL_STATE_PARAM(type, name)
#define LL_STATE_ARG(p)
#define LL_STATE_GET(type, name, map) type *name = LL_PERCPU0(map)
#define LL_STATE_NEW(map, stack)                                                                   \
	({                                                                                         \
		__typeof__(stack) p_ = LL_PERCPU0(map);                                            \
		if (p_)                                                                            \
			__builtin_memset(p_, 0, sizeof(*p_));                                      \
		p_;                                                                                \
	})
#endif

/* The current task's user registers, saved at syscall entry, or NULL. */
#define LL_USER_REGS()                                                                             \
	(targ_pt_regs ? (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf())             \
		      : (struct pt_regs *)0)

/*
 * Before 5.15 (no bpf_task_pt_regs): the same registers where the kernel saved them at system
 * call entry, the top of the task's kernel stack (task_pt_regs(): its stack page + THREAD_SIZE,
 * less the registers; x86-64 and arm64 keep nothing above them), each read by helper.
 * targ_stack_size: the kernel's THREAD_SIZE, set by userspace where bpf_task_pt_regs is missing
 * (0: not read this way). The saved mode checks the place: a 64-bit user task's code segment
 * (x86-64's cs 0x33) or exception level 0 (arm64's pstate); else nothing is read.
 */
const volatile __u32 targ_stack_size = 0;

/* The address of the saved registers, or 0. (Global functions, numbers in and out: their reads'
 * stack stays off the programs' own frames, which 6.1 counts against 512 bytes with their
 * calls' even where this path is never taken.) */
LL_GLOBAL_NUM __u64 ll_stack_regs(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 stack = (__u64)BPF_CORE_READ(t, stack), regs;

	if (!stack || !targ_stack_size)
		return 0;
	regs = stack + targ_stack_size - bpf_core_type_size(struct pt_regs);
#if defined(__TARGET_ARCH_x86)
	if (BPF_CORE_READ((struct pt_regs *)regs, cs) != 0x33)
		return 0;
#elif defined(__TARGET_ARCH_arm64)
	if (BPF_CORE_READ((struct pt_regs *)regs, pstate) & 0xc) /* PSR_MODE_MASK's EL bits */
		return 0;
#else
	return 0;
#endif
	return regs;
}

/* The 8 bytes of kernel memory at addr (0 where they cannot be read). */
LL_GLOBAL_NUM __u64 ll_kread64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (const void *)addr);
	return v;
}

/*
 * The current system call, from the task's user registers saved at its entry: its number and its
 * second and third arguments (a read's or write's buffer, an iovec array or a msghdr; and a
 * length or an iovec count). The numbers: LL_NR_* below, per architecture. false where the
 * registers cannot be read (no bpf_task_pt_regs, or an architecture this file does not know:
 * LL_SYSCALL_REGS 0, and userspace says so).
 */
#if defined(__TARGET_ARCH_x86)
/* arch/x86/entry/syscalls/syscall_64.tbl */
#define LL_SYSCALL_REGS 1
#define LL_NR_READ 0
#define LL_NR_WRITE 1
#define LL_NR_READV 19
#define LL_NR_WRITEV 20
#define LL_NR_SENDTO 44
#define LL_NR_RECVFROM 45
#define LL_NR_SENDMSG 46
#define LL_NR_RECVMSG 47
#elif defined(__TARGET_ARCH_arm64)
/* include/uapi/asm-generic/unistd.h (arm64 has no read/write of its own numbering) */
#define LL_SYSCALL_REGS 1
#define LL_NR_READ 63
#define LL_NR_WRITE 64
#define LL_NR_READV 65
#define LL_NR_WRITEV 66
#define LL_NR_SENDTO 206
#define LL_NR_RECVFROM 207
#define LL_NR_SENDMSG 211
#define LL_NR_RECVMSG 212
#elif defined(__TARGET_ARCH_powerpc)
/* arch/powerpc/kernel/syscalls/syscall.tbl (ppc64's own numbering) */
#define LL_SYSCALL_REGS 1
#define LL_NR_READ 3
#define LL_NR_WRITE 4
#define LL_NR_READV 145
#define LL_NR_WRITEV 146
#define LL_NR_SENDTO 335
#define LL_NR_RECVFROM 337
#define LL_NR_SENDMSG 341
#define LL_NR_RECVMSG 342
#else
#define LL_SYSCALL_REGS 0
#define LL_NR_READ (-1)
#define LL_NR_WRITE (-1)
#define LL_NR_READV (-1)
#define LL_NR_WRITEV (-1)
#define LL_NR_SENDTO (-1)
#define LL_NR_RECVFROM (-1)
#define LL_NR_SENDMSG (-1)
#define LL_NR_RECVMSG (-1)
#endif

struct ll_syscall {
	long nr;
	__u64 arg2, arg3;
};

static __always_inline bool ll_syscall(struct ll_syscall *c)
{
#if LL_SYSCALL_REGS
	struct pt_regs *regs = LL_USER_REGS();

	if (!regs && targ_stack_size) {
		__u64 r = ll_stack_regs();

		if (!r)
			return false;
#if defined(__TARGET_ARCH_x86)
		c->nr = (long)ll_kread64(r + bpf_core_field_offset(struct pt_regs, orig_ax));
		c->arg2 = ll_kread64(r + bpf_core_field_offset(struct pt_regs, si));
		c->arg3 = ll_kread64(r + bpf_core_field_offset(struct pt_regs, dx));
#elif defined(__TARGET_ARCH_arm64)
		c->nr = (__s32)ll_kread64(r + bpf_core_field_offset(struct pt_regs, syscallno));
		c->arg2 = ll_kread64(r + bpf_core_field_offset(struct pt_regs, regs[1]));
		c->arg3 = ll_kread64(r + bpf_core_field_offset(struct pt_regs, regs[2]));
#endif
		return true;
	}
	if (!regs)
		return false;
#if defined(__TARGET_ARCH_x86)
	c->nr = regs->orig_ax;
	c->arg2 = regs->si;
	c->arg3 = regs->dx;
#elif defined(__TARGET_ARCH_powerpc)
	/* the number in r0, the arguments from r3 (with ARCH_HAS_SYSCALL_WRAPPER, 6.1, the
	 * wrapper reads them from these same saved registers) */
	c->nr = regs->gpr[0];
	c->arg2 = regs->gpr[4];
	c->arg3 = regs->gpr[5];
#else
	c->nr = regs->syscallno;
	c->arg2 = regs->regs[1];
	c->arg3 = regs->regs[2];
#endif
	return true;
#else
	return false;
#endif
}

/*
 * The first user buffer of the current read (read, recvfrom, readv, recvmsg) or, with write, of
 * the current write (write, sendto, writev, sendmsg), and its length in *len (~0: up to what the
 * call returns); 0 for another call (io_uring, splice, a kernel reader or writer).
 */
static __always_inline __u64 ll_sys_buf(bool write, __u64 *len)
{
	struct ll_syscall sc;
	__u64 iov[2], msg_iov;

	if (!ll_syscall(&sc))
		return 0;
	*len = ~0ULL;
	if (sc.nr == (write ? LL_NR_WRITE : LL_NR_READ) ||
	    sc.nr == (write ? LL_NR_SENDTO : LL_NR_RECVFROM))
		return sc.arg2;
	if (sc.nr == (write ? LL_NR_SENDMSG : LL_NR_RECVMSG)) {
		/* struct user_msghdr: msg_iov at 16 */
		if (bpf_probe_read_user(&msg_iov, sizeof(msg_iov), (void *)(sc.arg2 + 16)))
			return 0;
	} else if (sc.nr == (write ? LL_NR_WRITEV : LL_NR_READV)) {
		msg_iov = sc.arg2;
	} else {
		return 0;
	}
	/* the first struct iovec: the bytes begin there */
	if (bpf_probe_read_user(iov, sizeof(iov), (void *)msg_iov))
		return 0;
	*len = iov[1];
	return iov[0];
}

/*
 * The type of the TLS record the kernel's TLS (kTLS) read into the current recvmsg(): the control
 * message it puts in the caller's buffer (SOL_TLS, TLS_GET_RECORD_TYPE: 23 for application data,
 * 21 an alert, 22 a handshake message), written before the call returns; 0 where the call is no
 * recvmsg() with room for one (a read() of a kTLS socket takes application data only).
 */
#define LL_SOL_TLS 282
#define LL_TLS_GET_RECORD_TYPE 2
static __always_inline __u8 ll_sys_tls_record_type(void)
{
	struct {
		__u64 len;
		__s32 level, type;
		__u8 data;
	} cm = {};
	struct ll_syscall sc;
	__u64 ctl[2];

	if (!ll_syscall(&sc) || sc.nr != LL_NR_RECVMSG)
		return 0;
	/* struct user_msghdr: msg_control at 32, msg_controllen at 40 (the buffer's size until
	 * the call returns) */
	if (bpf_probe_read_user(ctl, sizeof(ctl), (void *)(sc.arg2 + 32)) || !ctl[0] ||
	    ctl[1] < 17 || bpf_probe_read_user(&cm, 17, (void *)ctl[0]))
		return 0;
	return cm.level == LL_SOL_TLS && cm.type == LL_TLS_GET_RECORD_TYPE ? cm.data : 0;
}

/* A field of an object reached from the current task: a direct load from a BTF pointer
 * (targ_task_btf), else a helper read of a plain address. */
#define LL_TASK_READ(type, ptr, field)                                                             \
	(targ_task_btf ? ((const type *)(ptr))->field : BPF_CORE_READ((const type *)(ptr), field))

#define AF_INET 2
#define AF_INET6 10
#define E2BIG 7
#define EMFILE 24
#define ENFILE 23
#define EADDRINUSE 98
#define EADDRNOTAVAIL 99

/* Target ports as a bitmap (bit p = port p), set before load. targ_nports == 0: every port. */
const volatile __u64 targ_port_bits[OBS_PORT_WORDS] = {};
const volatile __u32 targ_nports = 0;
const volatile __u32 targ_netns = 0;
const volatile __u32 targ_by_pid = 0;
const volatile __u32 targ_cgroup_level = 0;
const volatile __u64 targ_cgroup_id = 0;

/* tgid -> struct obs_target: the processes named by --pid (and, with --children, theirs). */
LL_MAP(targets, BPF_MAP_TYPE_HASH, OBS_MAX_TARGETS, __u32, struct obs_target);

/* tgid -> failures of that process; LRU: the oldest quiet process goes first. */
LL_MAP(errprocs, BPF_MAP_TYPE_LRU_HASH, OBS_MAX_ERRPROCS, __u32, struct obs_errproc);

static __always_inline bool port_wanted(__u16 port)
{
	if (!targ_nports)
		return true;
	return targ_port_bits[port >> 6] & (1ULL << (port & 63));
}

/* The current process is a target (no helper call when neither --pid nor --cgroup is given). */
static __always_inline bool proc_wanted(void)
{
	__u32 tgid;

	if (targ_cgroup_id &&
	    bpf_get_current_ancestor_cgroup_id(targ_cgroup_level) != targ_cgroup_id)
		return false;
	if (targ_by_pid) {
		tgid = bpf_get_current_pid_tgid() >> 32;
		return bpf_map_lookup_elem(&targets, &tgid) != NULL;
	}
	return true;
}

/*
 * The target netns' struct net, learned from the first socket found in it. A netns' inode number
 * shares a cache line with its reference count, which every socket's creation and release
 * writes: on a host opening connections on two CPUs, reading it is a cache miss a socket event.
 * The address is a load from the socket, and stays the namespace's: the observer holds the
 * namespace open (its own, or the target's fd) for as long as these programs are loaded.
 */
__u64 ll_target_net = 0;

static __always_inline bool ll_net_is_target(const struct net *net, bool btf)
{
	__u32 inum;

	if (!targ_netns || (__u64)net == ll_target_net)
		return true;
	inum = btf ? net->ns.inum : BPF_CORE_READ(net, ns.inum);
	if (inum != targ_netns)
		return false;
	ll_target_net = (__u64)net;
	return true;
}

static __always_inline bool netns_wanted(const struct sock *sk)
{
	if (!targ_netns)
		return true;
	return ll_net_is_target(BPF_CORE_READ(sk, __sk_common.skc_net.net), false);
}

/* A socket is a target if it is in the target netns and its local or remote port is wanted. */
static __always_inline bool sock_wanted(const struct sock *sk)
{
	if (targ_nports && !port_wanted(BPF_CORE_READ(sk, __sk_common.skc_num)) &&
	    !port_wanted(bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport))))
		return false;
	return netns_wanted(sk);
}

/* errno (positive) -> enum obs_fail_class, or -1 for a failure we do not count. */
static __always_inline int fail_class(long err)
{
	switch (err) {
	case EMFILE:
		return OBS_FAIL_EMFILE;
	case ENFILE:
		return OBS_FAIL_ENFILE;
	case EADDRNOTAVAIL:
		return OBS_FAIL_EADDRNOTAVAIL;
	case EADDRINUSE:
		return OBS_FAIL_EADDRINUSE;
	}
	return -1;
}

/* Name the current process as one that failed with class f in syscall sys. False if not stored. */
static __always_inline bool errproc_note(__u32 sys, int f)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct obs_errproc *e, init = {};

	if (f < 0 || f >= OBS_FAIL_MAX)
		return true;
	e = bpf_map_lookup_elem(&errprocs, &tgid);
	if (!e) {
		bpf_get_current_comm(init.comm, sizeof(init.comm));
		bpf_map_update_elem(&errprocs, &tgid, &init, BPF_NOEXIST);
		e = bpf_map_lookup_elem(&errprocs, &tgid);
		if (!e)
			return false;
	}
	__sync_fetch_and_add(&e->fails[f], 1);
	e->last_ns = bpf_ktime_get_ns();
	e->last_sys = sys;
	e->last_fail = (__u32)f;
	return true;
}

#endif /* LOADLENS_OBSERVE_BPF_H */
