// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * Connections on the target TCP ports: accepted, handshakes completed, accept() failures by errno,
 * and how long each accepted connection waited in the accept queue.
 *
 *   sys_enter_accept{,4}       listening fd -> port; a target port remembers the tid (accepting)
 *   inet_sock_set_state        SYN_RECV -> ESTABLISHED: handshake; stamp the child (queued)
 *   sys_exit_accept{,4}        ret >= 0: new fd -> struct sock -> local port; count, and close the
 *                              child's stamp into the wait histogram
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
#include "loadlens/hist.h"
#include "loadlens/observer.h"

#define AF_INET 2
#define AF_INET6 10
#define TCP_ESTABLISHED 1
#define TCP_SYN_RECV 3
#define EAGAIN 11

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Target ports as a bitmap (bit p = port p), set before load. targ_nports == 0: every port. */
const volatile __u64 targ_port_bits[OBS_PORT_WORDS] = {};
const volatile __u32 targ_nports = 0;

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

static __always_inline void counter_add(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += n;
}

static __always_inline bool port_wanted(__u16 port)
{
	if (!targ_nports)
		return true;
	return targ_port_bits[port >> 6] & (1ULL << (port & 63));
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

	if (!sk || !inet_family(sk))
		return 0;
	port = BPF_CORE_READ(sk, __sk_common.skc_num);
	if (!port_wanted(port))
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	val.port = port;
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

static __always_inline int exit_accept(long ret)
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
		return 0;
	}

	/* resolve the new fd itself: a call that began before we attached still counts */
	sk = fd_to_sock(ret);
	if (!sk) {
		counter_add(OBS_CTR_DROP_UNRESOLVED, 1);
		return 0;
	}
	if (!inet_family(sk) || !port_wanted(BPF_CORE_READ(sk, __sk_common.skc_num)))
		return 0;
	bpf_map_delete_elem(&accepting, &tid);
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
	return exit_accept(ctx->ret);
}

SEC("tracepoint/syscalls/sys_enter_accept")
int handle_sys_enter_accept(struct syscall_trace_enter *ctx)
{
	return enter_accept((long)ctx->args[0]);
}

SEC("tracepoint/syscalls/sys_exit_accept")
int handle_sys_exit_accept(struct syscall_trace_exit *ctx)
{
	return exit_accept(ctx->ret);
}

static __always_inline int on_set_state(const struct sock *sk, int oldstate, int newstate)
{
	struct obs_queued val;
	__u64 key;

	/* cheapest rejection first: arguments only, no helper call */
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
