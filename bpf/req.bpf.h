/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Request timing for bpf/sockets.bpf.c: where each request's time goes, on the target TCP and UDP
 * ports: socket-queue wait, service time, residence, the accept-queue share of a connection's
 * first request, and the run-queue wait of the serving processes' threads. Request boundaries come from a per-socket state
 * machine; nothing is parsed (docs/observer/request-timing.md, "Request timing").
 *
 * This file holds the entry points that sockets.bpf.c's programs call; each part is a header of
 * its own, included below: req_rec (counters, histograms, --trace records), req_scope (which
 * sockets are timed, in which slot), req_runq (--runq), req_tcp and req_udp (request state),
 * req_tls (TLS handshakes) and req_h2 (HTTP/2 streams).
 *
 *   sock:sk_data_ready       bytes queued to a socket (softirq, or the sender's context)
 *   sock:sock_recv_length    the application read (its own context)
 *   sock:sock_send_length    the application wrote
 *   sock:inet_sock_set_state the server closes (FIN_WAIT1, LAST_ACK): close out the last request
 *   tcp:tcp_rcv_space_adjust the lean hooks' read, instead of the first two (req_lean.bpf.h)
 *   (accept time of a new connection, for its first request: conn.bpf.h's queued table holds it
 *   when the syscall tier saw the accept())
 *   sched:sched_wakeup{,_new}, sched:sched_switch   run-queue wait of the serving processes
 *
 * Cost rules (BENCHMARKS.md, "Observer: request timing overhead"): every socket program first
 * does one byte load (the port's slot in rodata) on the struct sock it was handed, so a foreign
 * socket (the client's end, another port) costs no helper call; then the socket's state: for TCP
 * an entry of a direct-mapped table (an inlined lookup and a compare; its own sk_storage only when
 * another live socket holds the entry), for UDP its sk_storage; no loops. TCP's events take the
 * clock TCP itself keeps (tcp_clock_cache at an arrival and a read, the stamp of the last
 * transmit at a first write), so a keep-alive TCP request reads the clock only where those are
 * not newer than the previous event.
 * A slot's counters and histograms are one record per CPU (one lookup per request); userspace
 * sums CPUs and diffs snapshots.
 * Run-queue wait (--runq) is off unless asked for: it runs on every context switch of the host.
 * For another process's switch it costs two loads (a tgid, and its slot in a bss array).
 */
#ifndef LOADLENS_REQ_BPF_H
#define LOADLENS_REQ_BPF_H

#include "loadlens/reqtime.h"
#include "loadlens/hist_fast.h"

#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define TCP_FIN_WAIT1 4
#define TCP_LAST_ACK 9
#define TCP_CLOSE_WAIT 8
#define MSG_PEEK 2
#define TASK_RUNNING 0

/*
 * A socket's own state (tcp_socks, udp_socks, h2_conns): its sk_storage, which tracing programs may
 * use from Linux 5.11. Before that (ll_sk_hash, set before load where the verifier does not know
 * bpf_sk_storage_get in a tp_btf program) a hash keyed by the socket's address stands in, bounded
 * (userspace sizes it: 1 entry where it is not used), its entries deleted as the socket is
 * destroyed (handle_inet_sock_destruct), so that an address used again starts empty. A socket
 * that finds it full goes without, counted as the storage's failures are. The branch not taken is
 * dead code to the verifier (read-only data), which removes it with its helper call.
 */
const volatile __u8 ll_sk_hash = 0;

/* name: a vtype in each socket's own storage (created on first use, freed with the socket), and
 * name##_hash, its stand-in */
#define LL_SK_STORAGE(name, vtype)                                                                 \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_SK_STORAGE);                                             \
		__uint(map_flags, BPF_F_NO_PREALLOC);                                              \
		__type(key, int);                                                                  \
		__type(value, vtype);                                                              \
	} name SEC(".maps");                                                                       \
	LL_MAP(name##_hash, BPF_MAP_TYPE_HASH, 1, __u64, vtype)

/* the zero value a hash entry starts from (as a new sk_storage does): the largest value's size */
static const __u8 ll_sk_zero[sizeof(struct rt_udp_sock)];
_Static_assert(sizeof(struct rt_tcp_sock) <= sizeof(ll_sk_zero), "ll_sk_zero");

/* bpf_sk_storage_get(&stor, sk, 0, flags), or the same from its stand-in hash */
#define LL_SK_GET(stor, hash, sk, flags)                                                           \
	({                                                                                         \
		void *v_;                                                                          \
		if (ll_sk_hash) {                                                                  \
			__u64 k_ = (__u64)(sk);                                                    \
			v_ = bpf_map_lookup_elem(&hash, &k_);                                      \
			if (!v_ && ((flags) & BPF_SK_STORAGE_GET_F_CREATE)) {                      \
				bpf_map_update_elem(&hash, &k_, ll_sk_zero, BPF_NOEXIST);          \
				v_ = bpf_map_lookup_elem(&hash, &k_);                              \
			}                                                                          \
		} else {                                                                           \
			v_ = bpf_sk_storage_get(&stor, (void *)(sk), 0, (flags));                  \
		}                                                                                  \
		v_;                                                                                \
	})

#include "req_rec.bpf.h"
#include "req_scope.bpf.h"
#include "req_runq.bpf.h"
#include "req_tcp.bpf.h"
#include "req_udp.bpf.h"

/* kf: bpf_rdonly_cast may be used (a constant in the tracepoint programs: see LL_READ_KF) */
static __always_inline void req_data_ready(const struct sock *sk, bool kf)
{
	bool udp;

	if (!sk || sock_slot(sk, &udp) < 0)
		return;
	if (udp)
		udp_arrival(sk, kf);
	else if (sk->__sk_common.skc_state != TCP_LISTEN) /* a new connection, not bytes */
		tcp_arrival(sk, kf);
}

/* payload sampling (pipelining in one write): uses req_tcp's tcp_state() */
#include "payload.bpf.h"
/* TLS: the handshake apart from requests (its bytes: observe.bpf.h's ll_sys_buf()) */
#include "req_tls.bpf.h"
/* HTTP/2: streams apart from turns (uses req_tls's tls_buf()) */
#include "req_h2.bpf.h"
/* TLS plaintext through uprobes on libssl (uses req_h2's walk) */
#include "req_ssl.bpf.h"

enum { RT_HELLO_NONE, RT_HELLO_TLS, RT_HELLO_H2, RT_HELLO_PART, RT_HELLO_BAD };

#ifndef LL_PRE_5_12
/* The preface from at against a read's first bytes w0..w2 (n of them; zeros past): kind | m << 8
 * (ll_h2_preface_step()). A global function, its loop verified once, on its own stack; scalars
 * in and out, so that its caller's stack, which 6.1's fexit programs share with their calls
 * (512 bytes in all), grows by nothing. */
LL_GLOBAL __u32 h2_pre_step(__u64 w0, __u64 w1, __u64 w2, __u32 n, __u32 at)
{
	__u64 w[3] = {w0, w1, w2};
	__u32 m = 0;
	int kind = ll_h2_preface_step((const __u8 *)w, n, at, &m);

	return (__u32)kind | m << 8;
}
#else
/* (before 5.12, the compat object: every function inlined, and the byte walk past the stack's
 * bound; its kernels have no user registers for first_bytes() to read a buffer with either) */
#define h2_pre_step(w0, w1, w2, n, at) ((__u32)LL_H2_PRE_NONE)
#endif

/*
 * What a connection's read of ret bytes begins with, after its first reads matched `at` bytes of
 * the HTTP/2 client preface (0: this is its first read): a TLS ClientHello, the preface (whole,
 * or its last LL_H2_PREFACE_LEN - at bytes), a piece of it (every byte; *m: matched so far), the
 * preface broken (ll_h2_preface_step()), or neither; *ubuf and *n: the user's buffer and the
 * bytes in it. One read of the buffer answers all (a first read is every request's on a load of
 * new connections: a second read of the buffer and of the task's registers cost 60-100 ns
 * there).
 */
static __always_inline int first_bytes(int ret, __u32 at, __u64 *ubuf, __u32 *n, __u32 *m)
{
	__u64 w[3] = {};
	__u32 k, step;

	if (ret <= 0)
		return RT_HELLO_NONE;
	*ubuf = tls_buf(ret, n);
	if (!*ubuf || !*n)
		return RT_HELLO_NONE;
	k = *n < LL_H2_PREFACE_LEN ? *n : LL_H2_PREFACE_LEN;
	barrier_var(k);
	if (bpf_probe_read_user(w, k & 31, (void *)*ubuf))
		return RT_HELLO_NONE;
	if (!at) {
		if (k >= 5 && ll_tls_hello((const __u8 *)w))
			return RT_HELLO_TLS;
		if (k == LL_H2_PREFACE_LEN && ll_h2_preface(w)) {
			*m = LL_H2_PREFACE_LEN;
			return RT_HELLO_H2;
		}
		if ((__u8)w[0] != 'P')
			return RT_HELLO_NONE; /* (most first reads: no byte-by-byte walk) */
	}
	step = h2_pre_step(w[0], w[1], w[2], k, at);
	*m = step >> 8;
	switch (step & 0xff) {
	case LL_H2_PRE_WHOLE:
		return RT_HELLO_H2;
	case LL_H2_PRE_PART:
		return RT_HELLO_PART;
	case LL_H2_PRE_BAD:
		return RT_HELLO_BAD;
	}
	return RT_HELLO_NONE;
}

/* A connection's first read (the full hooks'): a TLS or HTTP/2 connection is followed as one; a
 * piece of the HTTP/2 preface waits for the rest (its bytes matched so far in s->h2, unused
 * before the connection is HTTP/2); a preface broken after "PRI " is counted apart and not
 * followed (no request of it counted). 1: no request begins with this read. */
static __always_inline int conn_hello(const struct sock *sk, struct rt_tcp_sock *s, int slot,
				      int ret)
{
	__u32 at = s->flags & (RT_F_H2 | RT_F_TLS) ? 0 : s->h2, n = 0, m = 0;
	__u64 ubuf = 0;
	int kind = first_bytes(ret, at, &ubuf, &n, &m);

	if (kind == RT_HELLO_TLS) {
		tls_hello(sk, s, slot, ubuf, n);
	} else if (kind == RT_HELLO_H2) {
		h2_hello(sk, s, slot, LL_H2_PREFACE_LEN - at);
	} else if (kind == RT_HELLO_PART) {
		s->h2 = (__u8)m;
		return 1;
	} else if (kind == RT_HELLO_BAD) {
		s->flags |= RT_F_FOREIGN;
		REC_ADD(slot, h2_bad_preface, 1);
		return 1;
	}
	s->h2 = 0;
	return 0;
}

/* the lean hooks' read (uses all of the above) */
#include "req_lean.bpf.h"

static __always_inline void req_recv(struct sock *sk, int ret, int flags, bool kf)
{
	bool udp = false;
	int slot;

	/* arguments first: EAGAIN, EOF and peeks are not reads of a request */
	if (ret <= 0 || (flags & MSG_PEEK) || !sk)
		return;
	slot = sock_slot(sk, &udp);
	if (slot < 0)
		return;
	if (udp) {
		udp_read(sk, slot);
		return;
	}
	payload_recv(sk, slot, ret, kf); /* first: it asks whether this read begins a request */
	tcp_read(sk, slot, ret, kf);
}

static __always_inline void req_send(struct sock *sk, int ret, bool kf)
{
	bool udp = false;
	int slot;

	if (ret <= 0 || !sk)
		return;
	slot = sock_slot(sk, &udp);
	if (slot < 0)
		return;
	if (udp)
		udp_write(sk, slot);
	else
		tcp_write(sk, slot, ret, kf);
}

#endif /* LOADLENS_REQ_BPF_H */
