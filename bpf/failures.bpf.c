// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * What goes wrong around the target's connections and fds, counted in the kernel:
 *
 *   syscalls:sys_exit_<fd-making call>   ret is EMFILE/ENFILE/EADDRNOTAVAIL/EADDRINUSE and the
 *                                        caller is a target: sysfail[call][class]++, and the
 *                                        process is named in errprocs (tgid -> counts, comm).
 *                                        The syscall tier: attached on demand (observer/
 *                                        systier.c); connect()'s EADDRNOTAVAIL from a failed
 *                                        port search is counted by sockets.bpf.c, always
 *   skb:kfree_skb                        drop_reasons[reason]++ (every drop on the host; the
 *                                        names come from the kernel's BTF at run time)
 *   tcp:tcp_retransmit_synack            on a target listener
 *   tcp:tcp_send_reset, tcp_receive_reset on a target socket or port
 *   sched:sched_process_exit / _fork     a target process exits; with --children a new child
 *                                        becomes a target. Rare: one ring buffer record each.
 *
 * accept()/accept4() failures are counted by sockets.bpf.c, which already attaches there.
 * "targets" and "errprocs" are sockets.bpf.c's maps, reused by userspace before load.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "maps.bpf.h"
#include "loadlens/observer.h"
#include "observe.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* --children: a target's new processes become targets */
const volatile __u32 targ_children = 0;

LL_MAP(failures_ctrs, BPF_MAP_TYPE_PERCPU_ARRAY, OBS_FAILURES_CTR_MAX, __u32, __u64);
LL_MAP(sysfail, BPF_MAP_TYPE_PERCPU_ARRAY, OBS_SYS_MAX * OBS_FAIL_MAX, __u32, __u64);
LL_MAP(drop_reasons, BPF_MAP_TYPE_PERCPU_ARRAY, OBS_DROP_REASON_SLOTS, __u32, __u64);

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OBS_RINGBUF_BYTES);
} events SEC(".maps");

static __always_inline void fx_add(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&failures_ctrs, &idx);

	if (c)
		*c += 1;
}

static __always_inline int on_sys_exit(__u32 sys, long ret)
{
	__u32 idx;
	__u64 *c;
	int f;

	/* cheapest rejection first: success, or an error we do not count */
	if (ret >= 0)
		return 0;
	f = fail_class(-ret);
	/* connect()'s port search failing is counted always, from inet_sock_set_state */
	if (f < 0 || (sys == OBS_SYS_CONNECT && f == OBS_FAIL_EADDRNOTAVAIL) || !proc_wanted())
		return 0;
	idx = sys * OBS_FAIL_MAX + (__u32)f;
	c = bpf_map_lookup_elem(&sysfail, &idx);
	if (c)
		*c += 1;
	if (!errproc_note(sys, f))
		fx_add(OBS_FAILURES_CTR_ERRPROC_FULL);
	return 0;
}

#define SYS_EXIT(name, idx)                                                                        \
	SEC("tracepoint/syscalls/sys_exit_" #name)                                                 \
	int handle_sys_exit_##name(struct syscall_trace_exit *ctx)                                 \
	{                                                                                          \
		return on_sys_exit(idx, ctx->ret);                                                 \
	}

SYS_EXIT(socket, OBS_SYS_SOCKET)
SYS_EXIT(connect, OBS_SYS_CONNECT)
SYS_EXIT(bind, OBS_SYS_BIND)
SYS_EXIT(openat, OBS_SYS_OPENAT)
SYS_EXIT(open, OBS_SYS_OPEN)
SYS_EXIT(pipe2, OBS_SYS_PIPE2)
SYS_EXIT(dup, OBS_SYS_DUP)
SYS_EXIT(dup2, OBS_SYS_DUP2)
SYS_EXIT(dup3, OBS_SYS_DUP3)
SYS_EXIT(socketpair, OBS_SYS_SOCKETPAIR)
SYS_EXIT(epoll_create1, OBS_SYS_EPOLL_CREATE1)
SYS_EXIT(eventfd2, OBS_SYS_EVENTFD2)

SEC("tp_btf/kfree_skb")
int BPF_PROG(handle_kfree_skb, struct sk_buff *skb, void *location, int reason)
{
	__u32 idx = (__u32)reason < OBS_DROP_REASON_SLOTS ? (__u32)reason
							  : OBS_DROP_REASON_SLOTS - 1;
	__u64 *c = bpf_map_lookup_elem(&drop_reasons, &idx);

	if (c)
		*c += 1;
	return 0;
}

SEC("tp_btf/tcp_retransmit_synack")
int BPF_PROG(handle_tcp_retransmit_synack, const struct sock *sk, const struct request_sock *req)
{
	if (sk && sock_wanted(sk))
		fx_add(OBS_FAILURES_CTR_SYNACK_RETRANS);
	return 0;
}

/* A reset sent for a packet that matched no socket: judge it by the packet's ports and device. */
static __always_inline bool skb_wanted(const struct sk_buff *skb)
{
	const struct tcphdr *th;
	unsigned char *head;
	__u16 thoff;

	if (targ_nports) {
		head = BPF_CORE_READ(skb, head);
		thoff = BPF_CORE_READ(skb, transport_header);
		th = (const struct tcphdr *)(head + thoff);
		if (!port_wanted(bpf_ntohs(BPF_CORE_READ(th, dest))) &&
		    !port_wanted(bpf_ntohs(BPF_CORE_READ(th, source))))
			return false;
	}
	if (targ_netns)
		return ll_net_is_target(BPF_CORE_READ(skb, dev, nd_net.net), false);
	return true;
}

SEC("tp_btf/tcp_send_reset")
int BPF_PROG(handle_tcp_send_reset, const struct sock *sk, const struct sk_buff *skb)
{
	if (sk ? sock_wanted(sk) : (skb && skb_wanted(skb)))
		fx_add(OBS_FAILURES_CTR_RST_SENT);
	return 0;
}

SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(handle_tcp_receive_reset, struct sock *sk)
{
	if (sk && sock_wanted(sk))
		fx_add(OBS_FAILURES_CTR_RST_RECV);
	return 0;
}

static __always_inline void emit(__u32 type, const struct task_struct *t, __u32 ppid)
{
	struct obs_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		fx_add(OBS_FAILURES_CTR_RB_LOST);
		return;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->type = type;
	e->pid = BPF_CORE_READ(t, tgid);
	e->ppid = ppid;
	e->exit_code = BPF_CORE_READ(t, exit_code);
	BPF_CORE_READ_STR_INTO(&e->comm, t, comm);
	bpf_ringbuf_submit(e, 0);
}

/* The thread group leader of a target exits. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_sched_process_exit, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (BPF_CORE_READ(p, pid) != (int)tgid || !bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	bpf_map_delete_elem(&targets, &tgid);
	emit(OBS_EV_EXIT, p, 0);
	return 0;
}

/* The first child left out because "targets" was full (0: none), for userspace to name. */
__u32 targets_full_pid;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	struct obs_target t = {.flags = OBS_TARGET_CHILD};
	__u32 ptgid, ctgid;
	long err;

	if (!targ_children)
		return 0;
	ctgid = BPF_CORE_READ(child, tgid);
	ptgid = BPF_CORE_READ(parent, tgid);
	if (BPF_CORE_READ(child, pid) != (int)ctgid || !bpf_map_lookup_elem(&targets, &ptgid))
		return 0; /* a new thread, or not a target's child */
	t.parent = ptgid;
	err = bpf_map_update_elem(&targets, &ctgid, &t, BPF_NOEXIST);
	if (err) {
		/* E2BIG: OBS_MAX_TARGETS processes watched already; this one is not */
		if (err == -E2BIG) {
			fx_add(OBS_FAILURES_CTR_TARGETS_FULL);
			if (!targets_full_pid)
				targets_full_pid = ctgid;
		}
		return 0;
	}
	emit(OBS_EV_CHILD, child, ptgid);
	return 0;
}
