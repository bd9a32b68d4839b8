/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Connection tracking on the target TCP ports, for bpf/sockets.bpf.c: handshakes completed,
 * children discarded with their listener, connect() failures for want of a port, accept()
 * results, how long each accepted connection waited in the accept queue, and the moves of target
 * sockets between TCP states (the live socket census).
 *
 *   inet_sock_set_state        every move of a target socket: moves[new]++, [16 + old]++;
 *                              SYN_RECV -> ESTABLISHED: handshake; stamp the child (queued);
 *                              {FIN_WAIT2,CLOSING} -> CLOSE with no socket error: TIME_WAIT entry;
 *                              LISTEN -> CLOSE: the children still queued are discarded;
 *                              SYN_SENT -> CLOSE with no local port: connect() got EADDRNOTAVAIL
 *   sys_exit_accept{,4}        (the syscall tier, attached on demand: observer/kernel/systier.c)
 *                              ret >= 0: new fd -> struct sock -> local port; count, close the
 *                              child's stamp into the wait histogram, and read the listener's
 *                              queue length against its backlog
 *                              ret < 0: the listening fd (the syscall's first argument, from the
 *                              task's saved registers) -> port -> errno counter
 *
 * Accepted connections are counted without the accept() tracepoints, which would put every
 * syscall of the host on the slow path: userspace derives them as handshakes completed, plus the
 * children queued at start, minus those queued now (sock_diag), minus those discarded.
 *
 * Cost (this is on the connection-churn hot path; see BENCHMARKS.md):
 *   - no program at sys_enter_accept*: the exit reads the listening fd from the saved registers;
 *   - a socket is judged by its ports at every move (bytes loaded straight from the tp_btf
 *     struct sock, no helper call), so a foreign socket costs a few loads and no map at all;
 *   - every counter and state move lives in one per-CPU block: one map lookup per run.
 *
 * Everything is aggregated here, in per-CPU maps; userspace sums CPUs. There is no per-event
 * output.
 */
#ifndef LOADLENS_CONN_BPF_H
#define LOADLENS_CONN_BPF_H

#include "observe.bpf.h"
#include "loadlens/hist.h"

#define EAGAIN 11

LL_MAP(block, BPF_MAP_TYPE_PERCPU_ARRAY, 1, __u32, struct obs_conn_block);
LL_MAP(accept_errnos, BPF_MAP_TYPE_PERCPU_ARRAY, OBS_ERRNO_SLOTS, __u32, __u64);
LL_MAP(wait_hist, BPF_MAP_TYPE_PERCPU_ARRAY, LL_HIST_BUCKETS, __u32, __u64);

/* Handshake times, from ESTABLISHED until accept() returns the socket: a direct-mapped table
 * indexed by the socket's 4-tuple hash, so that both ends cost an inlined array lookup and a few
 * stores, where a hash map costs a locked insert and a locked delete per connection. A slot
 * taken over by a newer socket before the older one is accepted loses the older one's wait
 * (counted as unmatched); a child that is never accepted is simply overwritten later. */
LL_MAP(queued, BPF_MAP_TYPE_ARRAY, OBS_QUEUED_SLOTS, __u32, struct obs_queued);

/* Set by userspace while the stamps have a reader: the syscall tier's accept exits are attached,
 * or will be within an interval, or were until the last one (observer/kernel/systier.h). At other
 * times a handshake stores nothing: a slot of the 3 MiB table is a cache miss where the handshake
 * runs (on loopback, the client's CPU) and another where the first read looks it up. */
volatile __u8 handshake_stamps;

/* A socket's identity in the table: its 4-tuple hash and its two ports (never 0 while
 * connected), read with direct loads. The hash, set when the child is hashed at its birth, picks
 * the slot. */
static __always_inline __u64 queued_tag(const struct sock *sk, bool btf)
{
	if (!btf)
		return (__u64)BPF_CORE_READ(sk, __sk_common.skc_hash) << 32 |
		       (__u32)BPF_CORE_READ(sk, __sk_common.skc_dport) << 16 |
		       BPF_CORE_READ(sk, __sk_common.skc_num);
	return (__u64)sk->__sk_common.skc_hash << 32 |
	       (__u32)sk->__sk_common.skc_dport << 16 | sk->__sk_common.skc_num;
}

static __always_inline struct obs_conn_block *block_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&block, &zero);
}

/* fd of the current task -> its struct sock, or NULL if fd is not a socket. One helper call: the
 * fd array slot; the rest are direct (fault-safe) loads where bpf_rdonly_cast exists (the socket
 * is then a BTF pointer), else helper reads (a plain address: read it with LL_READ). */
static __always_inline struct sock *fd_to_sock(struct fdtable *fdt, long fd)
{
	struct file **fds, *file = NULL;
	struct socket *sock;

	if (!fdt || fd < 0 || (unsigned long)fd >= LL_TASK_READ(struct fdtable, fdt, max_fds))
		return NULL;
	fds = LL_TASK_READ(struct fdtable, fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return NULL;
	sock = LL_READ(struct file, file, private_data);
	/* a socket's file and the socket point at each other; anything else is not a socket */
	if (!sock || LL_READ(struct socket, sock, file) != file)
		return NULL;
	return LL_READ(struct socket, sock, sk);
}

/* The accept's listening fd: its first argument, in the registers saved at syscall entry
 * (libbpf's PT_REGS_PARM1_SYSCALL names the register per architecture: rdi on x86-64, orig_x0 on
 * arm64, whose x0 the return value overwrites; libbpf 1.1 reads gpr[3] on powerpc, which holds
 * the return value at syscall exit, so orig_gpr3 here). */
#if defined(__TARGET_ARCH_powerpc)
#define LL_SYSCALL_ARG1(regs) ((regs)->orig_gpr3)
#else
#define LL_SYSCALL_ARG1(regs) PT_REGS_PARM1_SYSCALL(regs)
#endif
static __always_inline long listen_fd(struct task_struct *task)
{
	struct pt_regs *regs = targ_pt_regs ? (struct pt_regs *)bpf_task_pt_regs(task) : NULL;

	return regs ? (long)LL_SYSCALL_ARG1(regs) : -1;
}

/* The next three take a socket from fd_to_sock(). */
static __always_inline bool inet_family(const struct sock *sk)
{
	__u16 family = LL_READ(struct sock, sk, __sk_common.skc_family);

	return family == AF_INET || family == AF_INET6;
}

static __always_inline bool netns_is_target(const struct sock *sk)
{
	if (!targ_netns)
		return true;
	if (targ_rdonly_cast)
		return ll_net_is_target(LL_CAST(struct sock, sk)->__sk_common.skc_net.net, true);
	return ll_net_is_target(BPF_CORE_READ(sk, __sk_common.skc_net.net), false);
}

/* An inet socket on a target port in the target netns (a listener or an accepted child). */
static __always_inline bool local_is_target(const struct sock *sk)
{
	return inet_family(sk) && port_wanted(LL_READ(struct sock, sk, __sk_common.skc_num)) &&
	       netns_is_target(sk);
}

/* sk: from fd_to_sock() */
static __always_inline void record_wait(struct obs_conn_block *b, struct sock *sk)
{
	__u64 tag = queued_tag(sk, targ_rdonly_cast), now, wait, *bucket;
	__u32 idx = (__u32)(tag >> 32) & (OBS_QUEUED_SLOTS - 1);
	struct obs_queued *q = bpf_map_lookup_elem(&queued, &idx);

	/* the stamp was stored before accept() could return the socket: the handshake's softirq
	 * holds the child's lock, which the accept path takes before returning */
	if (!q || q->tag != tag || q->accept_ns) {
		b->ctr[OBS_CTR_WAIT_UNMATCHED] += 1;
		return;
	}
	now = bpf_ktime_get_ns();
	wait = now > q->estab_ns ? now - q->estab_ns : 0;
	/* the slot stays the socket's until a newer one takes it: its first read (request
	 * timing) looks up the accept time here */
	q->accept_ns = now;

	idx = ll_hist_bucket(wait);
	bucket = bpf_map_lookup_elem(&wait_hist, &idx);
	if (bucket)
		*bucket += 1;
	b->ctr[OBS_CTR_WAIT_SUM_NS] += wait;
	if (wait > b->ctr[OBS_CTR_WAIT_MAX_NS])
		b->ctr[OBS_CTR_WAIT_MAX_NS] = wait;
}

/* When accept() returned this socket, if the syscall tier saw it (0: unknown). */
static __always_inline __u64 accept_time(const struct sock *sk)
{
	__u64 tag;
	__u32 idx;
	struct obs_queued *q;

	if (!handshake_stamps) /* then no accept was timed either */
		return 0;
	tag = queued_tag(sk, true);
	idx = (__u32)(tag >> 32) & (OBS_QUEUED_SLOTS - 1);
	q = bpf_map_lookup_elem(&queued, &idx);
	return q && q->tag == tag ? q->accept_ns : 0;
}

/* The listener's accept queue as this accept found it (the one just taken included). */
static __always_inline void record_qlen(struct obs_conn_block *b, const struct sock *l)
{
	__u64 qlen = (__u64)LL_READ(struct sock, l, sk_ack_backlog) + 1;
	__u64 backlog = LL_READ(struct sock, l, sk_max_ack_backlog);

	b->ctr[OBS_CTR_QLEN_SUM] += qlen;
	if (qlen > b->ctr[OBS_CTR_QLEN_MAX])
		b->ctr[OBS_CTR_QLEN_MAX] = qlen;
	if (backlog > b->ctr[OBS_CTR_BACKLOG_MAX])
		b->ctr[OBS_CTR_BACKLOG_MAX] = backlog;
	if (backlog && qlen >= backlog)
		b->ctr[OBS_CTR_QLEN_FULL] += 1;
}

static __always_inline int exit_accept(long ret, __u32 sys)
{
	struct task_struct *task;
	struct obs_conn_block *b;
	struct fdtable *fdt;
	struct sock *sk, *l;
	__u32 slot;
	__u64 *c;

	if (!proc_wanted())
		return 0;
	if (targ_task_btf) {
		task = bpf_get_current_task_btf();
		fdt = task->files->fdt;
	} else {
		task = (struct task_struct *)bpf_get_current_task();
		fdt = BPF_CORE_READ(task, files, fdt);
	}
	if (ret < 0) {
		/* the port is the listener's: its fd is still open, as the call failed */
		l = fd_to_sock(fdt, listen_fd(task));
		if (!l || !local_is_target(l))
			return 0;
		b = block_get();
		if (!b)
			return 0;
		slot = -ret < OBS_ERRNO_SLOTS ? -ret : OBS_ERRNO_SLOTS - 1;
		c = bpf_map_lookup_elem(&accept_errnos, &slot);
		if (c)
			*c += 1;
		b->ctr[-ret == EAGAIN ? OBS_CTR_ACCEPT_EAGAIN : OBS_CTR_ACCEPT_ERRORS] += 1;
		errproc_note(sys, fail_class(-ret));
		return 0;
	}

	/* resolve the new fd itself: a call that began before we attached still counts */
	b = block_get();
	if (!b)
		return 0;
	sk = fd_to_sock(fdt, ret);
	if (!sk) {
		b->ctr[OBS_CTR_DROP_UNRESOLVED] += 1;
		return 0;
	}
	if (!local_is_target(sk))
		return 0;
	b->ctr[OBS_CTR_ACCEPT_CALLS] += 1;
	record_wait(b, sk);
	l = fd_to_sock(fdt, listen_fd(task));
	if (l)
		record_qlen(b, l);
	return 0;
}

/*
 * One move of a socket between TCP states. `btf`: sk is a tp_btf pointer, read with direct loads;
 * otherwise (raw_tp fallback) with bpf_probe_read_kernel.
 *
 * A socket is a target if its local or remote port is a target port, judged at every move. The
 * local port is read twice over: skc_num is set from bind() on (so at CLOSE -> LISTEN) but reads 0
 * at CLOSE, because inet_put_port() clears it before the state is stored; inet_sport is set only
 * once the port is hashed (not yet at CLOSE -> LISTEN) and stays until the socket is freed. So
 * skc_num where it is set (inet_sport is then the same port, or not yet set), else inet_sport.
 */
static __always_inline int on_set_state(const struct sock *sk, int oldstate, int newstate,
					bool btf)
{
	const struct inet_sock *inet = (const struct inet_sock *)sk;
	struct obs_conn_block *b;
	struct obs_queued *q;
	__u16 num, sport, dport;
	__u32 idx;
	__u64 tag;
	int err;

	if (btf) {
		/* inet_sport is on a line of its own (a cache miss): read only where skc_num is 0 */
		num = sk->__sk_common.skc_num;
		sport = num ? num : bpf_ntohs(LL_READ(struct inet_sock, sk, inet_sport));
		dport = bpf_ntohs(sk->__sk_common.skc_dport);
	} else {
		num = BPF_CORE_READ(sk, __sk_common.skc_num);
		sport = bpf_ntohs(BPF_CORE_READ(inet, inet_sport));
		dport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	}
	if (!port_wanted(num) && !port_wanted(sport) && !port_wanted(dport))
		return 0;
	/* connect() failed in its port search: the socket never got a local port. The caller is
	 * the connecting process (this runs in its connect()), so it can be judged and named. */
	if (oldstate == TCP_SYN_SENT && newstate == TCP_CLOSE && !sport && !proc_wanted())
		return 0;
	if (!ll_net_is_target(btf ? sk->__sk_common.skc_net.net
				  : BPF_CORE_READ(sk, __sk_common.skc_net.net), btf))
		return 0;
	b = block_get();
	if (!b)
		return 0;
	b->moves[(__u32)newstate & (OBS_TCP_STATES - 1)] += 1;
	b->moves[OBS_TCP_STATES + ((__u32)oldstate & (OBS_TCP_STATES - 1))] += 1;

	/* the full socket closes as its TIME_WAIT mini-socket takes over; a reset sets sk_err */
	if (newstate == TCP_CLOSE && (oldstate == TCP_FIN_WAIT2 || oldstate == TCP_CLOSING)) {
		err = btf ? sk->sk_err : BPF_CORE_READ(sk, sk_err);
		if (!err)
			b->ctr[OBS_CTR_TW_ENTRIES] += 1;
	}

	if (newstate == TCP_CLOSE && !sport && oldstate == TCP_SYN_SENT) {
		b->ctr[OBS_CTR_CONNECT_NOPORT] += 1;
		errproc_note(OBS_SYS_CONNECT, OBS_FAIL_EADDRNOTAVAIL);
		return 0;
	}
	/* a target listener closes: the children in its queue are freed, never accepted */
	if (oldstate == TCP_LISTEN && newstate == TCP_CLOSE) {
		b->ctr[OBS_CTR_LISTEN_DISCARD] += btf ? sk->sk_ack_backlog
						      : BPF_CORE_READ(sk, sk_ack_backlog);
		return 0;
	}

	/* a passive open on a target port completed: the child waits in the accept queue */
	if (oldstate != TCP_SYN_RECV || newstate != TCP_ESTABLISHED || !port_wanted(num))
		return 0;
	b->ctr[OBS_CTR_HANDSHAKES] += 1;
	if (!handshake_stamps)
		return 0;
	tag = queued_tag(sk, btf);
	idx = (__u32)(tag >> 32) & (OBS_QUEUED_SLOTS - 1);
	q = bpf_map_lookup_elem(&queued, &idx);
	if (!q)
		return 0;
	/* the child's TCP clock: refreshed as this ACK's processing began (no clock read) */
	q->estab_ns = btf && bpf_core_field_exists(struct tcp_sock, tcp_clock_cache)
			      ? LL_READ(struct tcp_sock, sk, tcp_clock_cache)
			      : bpf_ktime_get_ns();
	q->accept_ns = 0;
	q->tag = tag;
	return 0;
}

#endif /* LOADLENS_CONN_BPF_H */
