// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * No-op tp_btf programs on the three socket tracepoints loadlens' request timing uses. Each body
 * is "return 0" (two instructions, the arguments are never read), so whatever an attached one
 * costs per event is the kernel's glue around it: the tracepoint call, bpf_trace_runN and the
 * RCU read-side section around the program. bench/event_cost.sh subtracts that from the
 * observer's cost per request to see how much is the observer's own work.
 *
 * attach.c picks which of them to load. The program names are short so the kernel (which keeps
 * 15 characters) and bpftool show them whole.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* only pointers are passed through: the header need not define struct sock */
struct sock;

SEC("tp_btf/sk_data_ready")
int BPF_PROG(noop_data_ready, const struct sock *sk)
{
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(noop_recv_len, struct sock *sk, int ret, int flags)
{
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(noop_send_len, struct sock *sk, int ret, int flags)
{
	return 0;
}

/* The other hooks on a request's path where the observer runs with its lean hooks
 * (bench/reqtime_overhead.sh's "floor" variant): the state changes of a connection (10 a
 * connection, both ends), the copy hook (the lean read) and drops. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(noop_set_state, const struct sock *sk, const int oldstate, const int newstate)
{
	return 0;
}

SEC("tp_btf/tcp_rcv_space_adjust")
int BPF_PROG(noop_copy, struct sock *sk)
{
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(noop_kfree_skb, void *skb, void *location, int reason)
{
	return 0;
}

/* No-op uprobes for the floor of the observer's TLS plaintext (bpf/req_ssl.bpf.h): attach.c
 * puts these on libssl's SSL_read and SSL_write, entry and return ("ssl_uprobes"). What they
 * cost per call is the kernel's uprobe machinery: the breakpoint trap, the instruction stepped
 * out of line, the return trampoline. */
SEC("uprobe")
int noop_ssl_in(void *ctx)
{
	return 0;
}

SEC("uretprobe")
int noop_ssl_out(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
