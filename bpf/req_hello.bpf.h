/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * A TCP connection's first bytes decide which protocol follows it: a TLS ClientHello
 * (req_tls.bpf.h, and its plaintext through libssl: req_ssl.bpf.h), the HTTP/2 client preface,
 * whole or in pieces (req_h2.bpf.h), or neither (turns: req_turns.bpf.h). Used by the request
 * path's first read (bpf/req.bpf.h) and the lean hooks' (req_lean.bpf.h).
 */
#ifndef LOADLENS_REQ_HELLO_BPF_H
#define LOADLENS_REQ_HELLO_BPF_H

#include "req_tls.bpf.h"
#include "req_ssl.bpf.h"

enum { RT_HELLO_NONE, RT_HELLO_TLS, RT_HELLO_H2, RT_HELLO_PART, RT_HELLO_BAD };

/* The preface from at against a read's first bytes w0..w2 (n of them; zeros past): kind | m << 8
 * (ll_h2_preface_step()). A global function of numbers, in both objects: its loops verified
 * once, on its own stack, and its caller's stack, which 6.1's fexit programs share with their
 * calls (512 bytes in all), grows by nothing. */
LL_GLOBAL_NUM __u32 h2_pre_step(__u64 w0, __u64 w1, __u64 w2, __u32 n, __u32 at)
{
	__u32 m = 0;
	int kind = ll_h2_preface_step(w0, w1, w2, n, at, &m);

	return (__u32)kind | m << 8;
}

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
	__u64 w[4] = {};
	__u32 k, step;

	if (ret <= 0)
		return RT_HELLO_NONE;
	*ubuf = tls_buf(ret, n);
	if (!*ubuf || !*n)
		return RT_HELLO_NONE;
	k = *n < LL_H2_PREFACE_LEN ? *n : LL_H2_PREFACE_LEN;
	/* the mask kept, and w room for its 31: 5.10's verifier may bound only a copy of k */
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
		ssl_watch_proc(); /* its SSL calls are looked at from now on */
		tls_hello(sk, s, slot, ubuf, n);
		if (targ_ssl) /* its records' own arrivals, for its plaintext's requests */
			arr_claim(sk, RT_ARR_TLS_GEN);
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

/*
 * A read of a TLS connection that its handshake has just ended, or later: if the kernel's TLS has
 * taken its records both ways (kTLS: req_tls.bpf.h's ktls_on()), the server reads and writes
 * its plaintext on the socket, and from this read on it is a connection in the clear, its first
 * plaintext bytes deciding which (conn_hello(): HTTP/2, or turns); its SSL calls walk nothing
 * more (ssl_to_kernel()). arrival: when this read's bytes were queued (0: unknown). Returns -1
 * where it stays TLS (one direction or none in the kernel: its plaintext is libssl's), 1 where
 * no request begins with this read, else 0.
 */
static __always_inline int ktls_hello(struct sock *sk, struct rt_tcp_sock *s, int slot, int ret,
				      __u64 arrival, bool kf)
{
	if (s->tls != RT_TLS_DONE || !ktls_on(sk, true, kf) || !ktls_on(sk, false, kf))
		return -1;
	s->flags = (s->flags & ~(RT_F_TLS | RT_F_PLAIN)) | RT_F_KTLS;
	s->tls = RT_TLS_NONE;
	s->tls_skip = 0;
	s->h2 = 0;
	s->pending_ns = 0;
	s->state = arrival ? RT_QUEUED : RT_IDLE;
	s->arrival_ns = arrival;
	REC_ADD(slot, ktls_conns, 1);
	ssl_to_kernel(sk);
	return conn_hello(sk, s, slot, ret);
}

#endif /* LOADLENS_REQ_HELLO_BPF_H */
