// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * The observer's socket programs: exactly one program per tracepoint. Each attached program costs
 * the kernel's tracepoint-to-BPF glue on every event of the host, whether it does anything or not
 * (about 60-90 ns on the 2-core test machine, bench/event_cost.sh), so connection tracking and
 * request timing share each tracepoint instead of attaching one program each.
 *
 *   tracepoint                 connection tracking (conn.bpf.h)     request timing (req.bpf.h)
 *   sock:inet_sock_set_state   census, handshakes, TIME_WAIT,       server close: last response;
 *                              discarded children, connect() with   CLOSE: free the socket's
 *                              no port                              request-state entry
 *   sock:sk_data_ready                                              arrival
 *   sock:sock_recv_length                                           read: service begins
 *   sock:sock_send_length                                           write: response begins
 *   (before Linux 6.3: fentry sock_def_readable, fexit inet{,6}_recvmsg and inet{,6}_sendmsg)
 *   syscalls:sys_exit_accept4  accept-queue wait, queue length,     (accept time, via conn's
 *   syscalls:sys_exit_accept   errno; the syscall tier: attached     queued table)
 *                              on demand, see observer/kernel/systier.c
 *   sched:sched_wakeup{,_new}, sched:sched_switch                   run-queue wait (--runq)
 *
 * Userspace leaves out (autoload off) what a run does not need: request timing with
 * --no-requests, the sched programs without --runq, the raw_tp fallback where tp_btf works, the
 * fentry/fexit request programs where the tracepoints exist.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "maps.bpf.h"
#include "loadlens/hist.h"
#include "loadlens/observer.h"
#include "observe.bpf.h"
#include "conn.bpf.h"
#include "req.bpf.h"
#include "iter.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Request timing is on: the shared programs do its part too. */
const volatile __u8 targ_requests = 0;

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(handle_inet_sock_set_state, const struct sock *sk, const int oldstate,
	     const int newstate)
{
	on_set_state(sk, oldstate, newstate, true);
	if (!targ_requests)
		return 0;
	if (newstate == TCP_CLOSE) {
		if (!req_freed_by_close(sk))
			req_forget(sk);
	} else if (newstate == TCP_FIN_WAIT1 || newstate == TCP_LAST_ACK ||
		   (newstate == oldstate && (newstate == TCP_FIN_WAIT2 || newstate == TCP_CLOSING))) {
		req_server_closes(sk, sk_shut_both(sk));
	} else if (newstate == TCP_CLOSE_WAIT && lean_solo) {
		req_peer_closes(sk);
	}
	return 0;
}

/* Fallback where tp_btf is not available (no request timing there): arguments read through
 * bpf_probe_read_kernel. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(handle_inet_sock_set_state_raw, const struct sock *sk, const int oldstate,
	     const int newstate)
{
	on_set_state(sk, oldstate, newstate, false);
	/* request timing's table entries are freed here too (a struct sock address reused by a
	 * newer socket must not find the old one's state) */
	if (targ_requests && newstate == TCP_CLOSE)
		req_forget_raw(sk);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_accept4")
int handle_sys_exit_accept4(struct syscall_trace_exit *ctx)
{
	return exit_accept(ctx->ret, OBS_SYS_ACCEPT4);
}

SEC("tracepoint/syscalls/sys_exit_accept")
int handle_sys_exit_accept(struct syscall_trace_exit *ctx)
{
	return exit_accept(ctx->ret, OBS_SYS_ACCEPT);
}

SEC("tp_btf/sk_data_ready")
int BPF_PROG(handle_sk_data_ready, const struct sock *sk)
{
	req_data_ready(sk, true); /* 6.3+: the kfunc (6.2) is there */
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(handle_sock_recv_length, struct sock *sk, int ret, int flags)
{
	req_recv(sk, ret, flags, true);
	return 0;
}

SEC("tp_btf/tcp_rcv_space_adjust")
int BPF_PROG(handle_tcp_rcv_space_adjust, struct sock *sk)
{
	tcp_copied(sk, true);
	return 0;
}

/* The lean hooks' passes over the target's sockets (observer/kernel/lean.c; req_lean.bpf.h). */
struct bpf_iter__tcp___ll {
	struct bpf_iter_meta___ll *meta;
	struct sock_common *sk_common;
} __attribute__((preserve_access_index));

struct bpf_iter__udp___ll {
	struct bpf_iter_meta___ll *meta;
	struct sock *udp_sk;
} __attribute__((preserve_access_index));

SEC("iter/tcp")
int lean_sweep(struct bpf_iter__tcp___ll *ctx)
{
	const struct sock *sk = (const struct sock *)ctx->sk_common;
	__u8 state;

	if (!sk || !lean_solo)
		return 0;
	/* (TIME_WAIT, request and listening sockets hold no request: the cheap exit of most on a
	 * load of short connections) */
	state = sk->__sk_common.skc_state;
	if (state == TCP_ESTABLISHED || state == TCP_CLOSE_WAIT)
		solo_sweep(sk, sk->__sk_common.skc_num, lean_solo > 1);
	return 0;
}

SEC("iter/udp")
int lean_udp(struct bpf_iter__udp___ll *ctx)
{
	const struct sock *sk = ctx->udp_sk;

	if (sk && targ_slot[BPF_CORE_READ(sk, __sk_common.skc_num)])
		lean_udp_socks++;
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(handle_sock_send_length, struct sock *sk, int ret, int flags)
{
	req_send(sk, ret, true);
	return 0;
}

/*
 * Request timing where the kernel lacks those three tracepoints (before 6.3): the same events from
 * BPF trampolines on the functions they sit in. sk_data_ready fires in each socket type's
 * data-ready callback, which for TCP and UDP is sock_def_readable; sock_recv_length and
 * sock_send_length fire in sock_recvmsg/sock_sendmsg right after the protocol family's handler
 * returns, which for IPv4 and IPv6 sockets is inet{,6}_recvmsg and inet{,6}_sendmsg: the exits of
 * those see the same return value and flags, in the same (the application's) context.
 * Userspace loads these only where the tracepoints are missing (observer/kernel/reqtime_mech.c).
 */
/* Before 5.11 (ll_sk_hash): a destroyed socket's stand-ins for its storage go with it (an
 * inet socket's sk_destruct; TCP's and UDP's call it). Loaded only then. */
SEC("fentry/inet_sock_destruct")
int BPF_PROG(handle_inet_sock_destruct, struct sock *sk)
{
	__u64 k = (__u64)sk;

	bpf_map_delete_elem(&tcp_socks_hash, &k);
	bpf_map_delete_elem(&udp_socks_hash, &k);
	bpf_map_delete_elem(&h2_conns_hash, &k);
	return 0;
}

SEC("fentry/sock_def_readable")
int BPF_PROG(handle_sock_def_readable, struct sock *sk)
{
	req_data_ready(sk, targ_rdonly_cast);
	return 0;
}

SEC("fexit/inet_recvmsg")
int BPF_PROG(handle_inet_recvmsg_exit, struct socket *sock, struct msghdr *msg, size_t size,
	     int flags, int ret)
{
	req_recv(sock->sk, ret, flags, targ_rdonly_cast);
	return 0;
}

SEC("fexit/inet6_recvmsg")
int BPF_PROG(handle_inet6_recvmsg_exit, struct socket *sock, struct msghdr *msg, size_t size,
	     int flags, int ret)
{
	req_recv(sock->sk, ret, flags, targ_rdonly_cast);
	return 0;
}

SEC("fexit/inet_sendmsg")
int BPF_PROG(handle_inet_sendmsg_exit, struct socket *sock, struct msghdr *msg, size_t size,
	     int ret)
{
	req_send(sock->sk, ret, targ_rdonly_cast);
	return 0;
}

SEC("fexit/inet6_sendmsg")
int BPF_PROG(handle_inet6_sendmsg_exit, struct socket *sock, struct msghdr *msg, size_t size,
	     int ret)
{
	req_send(sock->sk, ret, targ_rdonly_cast);
	return 0;
}

/*
 * TLS plaintext (bpf/req_ssl.bpf.h): uprobes on OpenSSL's libssl, attached by userspace to the
 * library its target processes map (observer/kernel/ssl_probes.c), one attach per library file
 * for every process that maps it; only the SSL calls of processes that serve target TLS
 * connections go further than a load and a compare. On x86-64, arm64 and ppc64 (the calling
 * conventions below; elsewhere userspace says TLS plaintext is off).
 */
#if defined(__TARGET_ARCH_x86) || defined(__TARGET_ARCH_arm64) || defined(__TARGET_ARCH_powerpc)
/* the first, second and fourth integer arguments and the return value of a call (bpf/vmlinux.h
 * names struct pt_regs' fields as the kernel does) */
#if defined(__TARGET_ARCH_x86)
#define SSL_ARG1(ctx) ((ctx)->di)
#define SSL_ARG2(ctx) ((ctx)->si)
#define SSL_ARG4(ctx) ((ctx)->cx)
#define SSL_RET(ctx) ((int)(ctx)->ax)
#elif defined(__TARGET_ARCH_powerpc)
/* the ELFv2 ABI: arguments from r3, the return value in r3 */
#define SSL_ARG1(ctx) ((ctx)->gpr[3])
#define SSL_ARG2(ctx) ((ctx)->gpr[4])
#define SSL_ARG4(ctx) ((ctx)->gpr[6])
#define SSL_RET(ctx) ((int)(ctx)->gpr[3])
#else
#define SSL_ARG1(ctx) ((ctx)->regs[0])
#define SSL_ARG2(ctx) ((ctx)->regs[1])
#define SSL_ARG4(ctx) ((ctx)->regs[3])
#define SSL_RET(ctx) ((int)(ctx)->regs[0])
#endif

SEC("uprobe")
int handle_ssl_read(struct pt_regs *ctx)
{
	return ssl_enter(SSL_ARG1(ctx), SSL_ARG2(ctx), 0, LL_SSL_READ);
}

SEC("uprobe")
int handle_ssl_read_ex(struct pt_regs *ctx)
{
	return ssl_enter(SSL_ARG1(ctx), SSL_ARG2(ctx), SSL_ARG4(ctx), LL_SSL_READ_EX);
}

SEC("uprobe")
int handle_ssl_write(struct pt_regs *ctx)
{
	return ssl_enter(SSL_ARG1(ctx), SSL_ARG2(ctx), 0, LL_SSL_WRITE);
}

SEC("uprobe")
int handle_ssl_write_ex(struct pt_regs *ctx)
{
	return ssl_enter(SSL_ARG1(ctx), SSL_ARG2(ctx), SSL_ARG4(ctx), LL_SSL_WRITE_EX);
}

SEC("uprobe")
int handle_ssl_do_handshake(struct pt_regs *ctx)
{
	return ssl_enter(SSL_ARG1(ctx), 0, 0, LL_SSL_HANDSHAKE);
}

/* The return of any of them: which one it was, the call's entry says (one program to load and
 * verify for the five: the frame walk in it is the object's largest) */
SEC("uretprobe")
int handle_ssl_ret(struct pt_regs *ctx)
{
	struct ssl_plain qs = {}, *q = ssl_plain_new(&qs);

	if (q && ssl_exit(SSL_OA(q) SSL_RET(ctx)))
		ssl_io(q->sk, q->buf, q->n, q->now);
	return 0;
}
#endif

SEC("tp_btf/sched_wakeup")
int BPF_PROG(handle_sched_wakeup, struct task_struct *p)
{
	req_wakeup(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(handle_sched_wakeup_new, struct task_struct *p)
{
	req_wakeup(p);
	return 0;
}

/* (bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state):
 * the fourth from 5.18 only (targ_switch_state); before it, the task's own state */
SEC("tp_btf/sched_switch")
int handle_sched_switch(__u64 *ctx)
{
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];

	req_switch(prev, next, targ_switch_state ? (unsigned int)ctx[3] : task_state(prev));
	return 0;
}
