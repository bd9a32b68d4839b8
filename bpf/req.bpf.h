/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * BPF-only helpers of bpf/req.bpf.c that read kernel state: TCP's own clock for a socket, and the
 * struct sock behind a file descriptor of the current task.
 */
#ifndef LOADLENS_REQ_BPF_H
#define LOADLENS_REQ_BPF_H

/* kfunc: a typed, read-only view of a kernel pointer; the verifier turns it into a register move. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

static __always_inline __u64 sub0(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/*
 * TCP's own clock for this socket: tcp_clock_cache is tcp_clock_ns() (CLOCK_MONOTONIC, the clock
 * of bpf_ktime_get_ns()) as last refreshed by TCP, which it does on each segment received (before
 * the data is queued and sk_data_ready fires) and on each transmit. Measured against
 * bpf_ktime_get_ns() at sk_data_ready: 98% within 2 us, 0.04% beyond 10 us. A value not newer than
 * `after` (an event of this socket already seen) was not refreshed for this event, and a socket
 * never read may hold the handshake's stamp: read the clock for both.
 */
static __always_inline __u64 tcp_clock(const struct sock *sk, __u64 after)
{
	const struct tcp_sock *tp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));
	__u64 t = tp->tcp_clock_cache;

	return t > after && after ? t : bpf_ktime_get_ns();
}

/* fd of the current task -> its struct sock, or NULL if fd is not a socket. */
static __always_inline struct sock *fd_sock(long fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file *file = NULL, **fds;
	struct socket *sock;

	if (!fdt || fd < 0 || (unsigned long)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return NULL;
	sock = BPF_CORE_READ(file, private_data);
	if (!sock || BPF_CORE_READ(sock, file) != file)
		return NULL;
	return BPF_CORE_READ(sock, sk);
}

#endif /* LOADLENS_REQ_BPF_H */
