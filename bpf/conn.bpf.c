// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * Connections on the target TCP ports: accepted, handshakes completed, accept() failures by errno,
 * how long each accepted connection waited in the accept queue and how long that queue was, and
 * the moves of target sockets between TCP states (the live socket census).
 *
 *   sys_enter_accept{,4}       listening fd -> port; a target port remembers the tid and the
 *                              listener (accepting)
 *   inet_sock_set_state        SYN_RECV -> ESTABLISHED: handshake; stamp the child (queued)
 *                              every move of a target socket: state_moves[new]++, [16 + old]++;
 *                              {FIN_WAIT2,CLOSING} -> CLOSE with no socket error: TIME_WAIT entry
 *   sys_exit_accept{,4}        ret >= 0: new fd -> struct sock -> local port; count, close the
 *                              child's stamp into the wait histogram, and read the listener's
 *                              queue length against its backlog
 *                              ret < 0: the tid's listening port (from enter) -> errno counter
 *
 * Everything is aggregated here, in per-CPU maps; userspace sums CPUs. There is no per-event
 * output. Each counter index is written by one program type only, so a softirq-context program
 * never interleaves a read-modify-write with a syscall-context one on the same counter.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "loadlens/hist.h"
#include "loadlens/observer.h"
#include "observe.bpf.h"

#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT 2
#define TCP_SYN_RECV 3
#define TCP_FIN_WAIT2 5
#define TCP_CLOSE 7
#define TCP_LISTEN 10
#define TCP_CLOSING 11
#define EAGAIN 11

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OBS_CTR_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OBS_ERRNO_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} accept_errnos SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LL_HIST_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} wait_hist SEC(".maps");

/* tid -> listening port, between sys_enter_accept* and sys_exit_accept*; target ports only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OBS_MAX_ACCEPTING);
	__type(key, __u32);
	__type(value, struct obs_accepting);
} accepting SEC(".maps");

/* struct sock * -> handshake time, from ESTABLISHED until accept() returns it; LRU: a child that
 * is never accepted (reset in the queue, listener closed) ages out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, OBS_MAX_QUEUED);
	__type(key, __u64);
	__type(value, struct obs_queued);
} queued SEC(".maps");

/* state_moves[s]: moves into TCP state s; [OBS_TCP_STATES + s]: moves out of it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OBS_STATE_MOVES);
	__type(key, __u32);
	__type(value, __u64);
} state_moves SEC(".maps");

/* struct sock * -> 1, for target sockets from birth to CLOSE, when the filter is by port: at
 * CLOSE the local port may already read 0, so a socket is judged once, at birth. LRU: a socket
 * whose CLOSE we miss ages out; OBS_CTR_DROP_SOCKS counts failed inserts. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, OBS_MAX_SOCKS);
	__type(key, __u64);
	__type(value, __u8);
} socks SEC(".maps");

static __always_inline void counter_add(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += n;
}

static __always_inline void counter_max(__u32 idx, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c && v > *c)
		*c = v;
}

static __always_inline bool inet_family(const struct sock *sk)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);

	return family == AF_INET || family == AF_INET6;
}

/* fd of the current task -> its struct sock, or NULL if fd is not a socket we can read. */
static __always_inline struct sock *fd_to_sock(long fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *file = NULL;
	struct socket *sock;

	if (!fdt || fd < 0 || (unsigned long)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return NULL;
	sock = BPF_CORE_READ(file, private_data);
	/* a socket's file and the socket point at each other; anything else is not a socket */
	if (!sock || BPF_CORE_READ(sock, file) != file)
		return NULL;
	return BPF_CORE_READ(sock, sk);
}

static __always_inline int enter_accept(long listen_fd)
{
	struct obs_accepting val = {};
	struct sock *sk = fd_to_sock(listen_fd);
	__u32 tid;
	__u16 port;

	if (!proc_wanted() || !sk || !inet_family(sk))
		return 0;
	port = BPF_CORE_READ(sk, __sk_common.skc_num);
	if (!port_wanted(port) || !netns_wanted(sk))
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	val.port = port;
	val.listener = (__u64)sk;
	if (bpf_map_update_elem(&accepting, &tid, &val, BPF_ANY))
		counter_add(OBS_CTR_DROP_ACCEPTING, 1);
	return 0;
}

static __always_inline void record_wait(struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct obs_queued *q = bpf_map_lookup_elem(&queued, &key);
	__u64 now, wait, *max, *bucket;
	__u32 idx;

	if (!q) {
		counter_add(OBS_CTR_WAIT_UNMATCHED, 1);
		return;
	}
	now = bpf_ktime_get_ns();
	wait = now > q->estab_ns ? now - q->estab_ns : 0;
	bpf_map_delete_elem(&queued, &key);

	idx = ll_hist_bucket(wait);
	bucket = bpf_map_lookup_elem(&wait_hist, &idx);
	if (bucket)
		*bucket += 1;
	counter_add(OBS_CTR_WAIT_SUM_NS, wait);
	idx = OBS_CTR_WAIT_MAX_NS;
	max = bpf_map_lookup_elem(&counters, &idx);
	if (max && wait > *max)
		*max = wait;
}

/* The listener's accept queue as this accept found it (the one just taken included). */
static __always_inline void record_qlen(const struct obs_accepting *a)
{
	const struct sock *l = (const struct sock *)a->listener;
	__u64 qlen, backlog;

	if (!l)
		return;
	qlen = (__u64)BPF_CORE_READ(l, sk_ack_backlog) + 1;
	backlog = BPF_CORE_READ(l, sk_max_ack_backlog);
	counter_add(OBS_CTR_QLEN_SUM, qlen);
	counter_max(OBS_CTR_QLEN_MAX, qlen);
	counter_max(OBS_CTR_BACKLOG_MAX, backlog);
	if (backlog && qlen >= backlog)
		counter_add(OBS_CTR_QLEN_FULL, 1);
}

static __always_inline int exit_accept(long ret, __u32 sys)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct obs_accepting *a;
	struct sock *sk;
	__u32 slot;
	__u64 *c;

	if (ret < 0) {
		/* the port is known only if we saw this call begin */
		a = bpf_map_lookup_elem(&accepting, &tid);
		if (!a)
			return 0;
		bpf_map_delete_elem(&accepting, &tid);
		slot = -ret < OBS_ERRNO_SLOTS ? -ret : OBS_ERRNO_SLOTS - 1;
		c = bpf_map_lookup_elem(&accept_errnos, &slot);
		if (c)
			*c += 1;
		counter_add(-ret == EAGAIN ? OBS_CTR_ACCEPT_EAGAIN : OBS_CTR_ACCEPT_ERRORS, 1);
		errproc_note(sys, fail_class(-ret));
		return 0;
	}

	/* resolve the new fd itself: a call that began before we attached still counts */
	sk = fd_to_sock(ret);
	if (!sk) {
		counter_add(OBS_CTR_DROP_UNRESOLVED, 1);
		return 0;
	}
	if (!inet_family(sk) || !port_wanted(BPF_CORE_READ(sk, __sk_common.skc_num)) ||
	    !netns_wanted(sk) || !proc_wanted())
		return 0;
	a = bpf_map_lookup_elem(&accepting, &tid);
	if (a) {
		record_qlen(a);
		bpf_map_delete_elem(&accepting, &tid);
	}
	counter_add(OBS_CTR_ACCEPTED, 1);
	record_wait(sk);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_accept4")
int handle_sys_enter_accept4(struct syscall_trace_enter *ctx)
{
	return enter_accept((long)ctx->args[0]);
}

SEC("tracepoint/syscalls/sys_exit_accept4")
int handle_sys_exit_accept4(struct syscall_trace_exit *ctx)
{
	return exit_accept(ctx->ret, OBS_SYS_ACCEPT4);
}

SEC("tracepoint/syscalls/sys_enter_accept")
int handle_sys_enter_accept(struct syscall_trace_enter *ctx)
{
	return enter_accept((long)ctx->args[0]);
}

SEC("tracepoint/syscalls/sys_exit_accept")
int handle_sys_exit_accept(struct syscall_trace_exit *ctx)
{
	return exit_accept(ctx->ret, OBS_SYS_ACCEPT);
}

static __always_inline void state_move(int oldstate, int newstate)
{
	__u32 idx = (__u32)newstate & (OBS_TCP_STATES - 1);
	__u64 *c = bpf_map_lookup_elem(&state_moves, &idx);

	if (c)
		*c += 1;
	idx = OBS_TCP_STATES + ((__u32)oldstate & (OBS_TCP_STATES - 1));
	c = bpf_map_lookup_elem(&state_moves, &idx);
	if (c)
		*c += 1;
}

/*
 * Is this socket a target? Without a port filter: its netns, read now (valid at every state).
 * With one: judged at birth (CLOSE -> SYN_SENT or LISTEN, the child's LISTEN -> SYN_RECV), when
 * the ports are there, and remembered by struct sock * until CLOSE.
 */
static __always_inline bool census_wanted(const struct sock *sk, int oldstate, int newstate)
{
	__u64 key = (__u64)sk;
	__u8 one = 1;

	if (!targ_nports)
		return netns_wanted(sk);
	if (oldstate == TCP_CLOSE || (oldstate == TCP_LISTEN && newstate == TCP_SYN_RECV)) {
		if (!sock_wanted(sk))
			return false;
		if (bpf_map_update_elem(&socks, &key, &one, BPF_ANY))
			counter_add(OBS_CTR_DROP_SOCKS, 1);
		return true;
	}
	if (!bpf_map_lookup_elem(&socks, &key))
		return false;
	if (newstate == TCP_CLOSE)
		bpf_map_delete_elem(&socks, &key);
	return true;
}

static __always_inline int on_set_state(const struct sock *sk, int oldstate, int newstate)
{
	struct obs_queued val;
	__u64 key;

	if (!census_wanted(sk, oldstate, newstate))
		return 0;
	state_move(oldstate, newstate);
	/* the full socket closes as its TIME_WAIT mini-socket takes over; a reset sets sk_err */
	if (newstate == TCP_CLOSE && (oldstate == TCP_FIN_WAIT2 || oldstate == TCP_CLOSING) &&
	    !BPF_CORE_READ(sk, sk_err))
		counter_add(OBS_CTR_TW_ENTRIES, 1);

	if (oldstate != TCP_SYN_RECV || newstate != TCP_ESTABLISHED)
		return 0;
	if (!port_wanted(BPF_CORE_READ(sk, __sk_common.skc_num)) || !inet_family(sk))
		return 0;
	counter_add(OBS_CTR_HANDSHAKES, 1);
	key = (__u64)sk;
	val.estab_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&queued, &key, &val, BPF_ANY))
		counter_add(OBS_CTR_DROP_QUEUED, 1);
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(handle_inet_sock_set_state, const struct sock *sk, const int oldstate,
	     const int newstate)
{
	return on_set_state(sk, oldstate, newstate);
}

/* Fallback where tp_btf is not available: same arguments, read through bpf_probe_read_kernel. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(handle_inet_sock_set_state_raw, const struct sock *sk, const int oldstate,
	     const int newstate)
{
	return on_set_state(sk, oldstate, newstate);
}
