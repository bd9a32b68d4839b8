/* SPDX-License-Identifier: MIT */
/*
 * Payload sampling: what bpf/payload.bpf.h (in bpf/sockets.bpf.c) and its userspace
 * (observer/features/payload_sampling.c) share. Now and then, on a TCP target port, the observer looks at
 * the bytes a server just read and counts the requests in them, so that pipelining written in one
 * write() (redis-benchmark -P, HTTP/1.1 pipelining) is named: then one read holds several
 * requests, and the observer's requests are reads (docs/observer/forensics.md, "Pipelining").
 *
 * How requests are counted (ll_pl_count(), the same code in the kernel and in unit tests): a read
 * begins with a request, so its first 4 bytes are a request's start ("*3\r\n" in RESP, "GET " in
 * HTTP/1, "get " in memcached's text protocol). Every line that starts with the same 4 bytes
 * (digits match any digit: "*2\r\n" and "*3\r\n" are both RESP commands) is one more request.
 * Limits, by design:
 *   - a read whose first 4 bytes are not printable text (HTTP/2, TLS, any binary protocol) is not
 *     counted (LL_PL_BINARY): the protocol is not one of lines;
 *   - requests that begin otherwise than the first (GET then POST; memcached get then set) are
 *     not counted: the figure is a lower bound;
 *   - a request whose body holds a line beginning like a request counts twice;
 *   - only the first LL_PL_SCAN bytes are looked at: a longer read holding 2 or more requests
 *     in them is extrapolated by its length (LL_PL_EXTRAPOLATED counts those reads).
 */
#ifndef LOADLENS_PAYLOAD_H
#define LOADLENS_PAYLOAD_H

#include <linux/types.h>

/* Bytes of a sampled read that are looked at (a power of two). */
#define LL_PL_SCAN 1024
/* At most one sampled read per CPU in this time (ns): 125 a second at most, each under a
 * microsecond or two, so that the cost per read stays under a nanosecond at any rate. */
#define LL_PL_PERIOD_NS (8ULL * 1000 * 1000)

/* Per slot, per CPU (the "pl_ctrs" per-CPU array, keyed by request-timing slot). */
struct rt_pl_ctrs {
	__u64 samples;	    /* reads sampled whose requests were counted */
	__u64 multi;	    /* of which holding two or more requests */
	__u64 requests;	    /* requests counted in them (extrapolated where longer than scanned) */
	__u64 max;	    /* most requests in one read (a max over CPUs) */
	__u64 extrapolated; /* reads longer than LL_PL_SCAN, 2+ requests in the part looked at */
	__u64 binary;	    /* reads whose first bytes are not text: not counted */
	__u64 unreadable;   /* reads whose buffer could not be found or read (another syscall than
			     * read/recvfrom/readv/recvmsg, io_uring, a page not present) */
};
_Static_assert(sizeof(struct rt_pl_ctrs) == 7 * 8, "rt_pl_ctrs layout");

/* ll_pl_count() of a read that is not text. */
#define LL_PL_BINARY 0

/* Printable ASCII, or tab, CR, LF. */
static __attribute__((always_inline)) inline int ll_pl_text(__u8 c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\r' || c == '\n';
}

/* 4 bytes at p, in the host's order (unaligned loads are fine on x86-64, in BPF too). */
static __attribute__((always_inline)) inline __u32 ll_pl_load4(const __u8 *p)
{
#ifdef __bpf__
	return *(const __u32 *)p;
#else
	__u32 w;

	__builtin_memcpy(&w, p, sizeof(w));
	return w;
#endif
}

/* The bits of a signature compared: all but the low nibble of a digit ("*2\r\n" and "*3\r\n"
 * are both RESP commands; '0'-'9' share their high nibble with ':' to '?'). */
static __attribute__((always_inline)) inline __u32 ll_pl_mask(__u32 sig)
{
	__u32 mask = 0, c;
	int k;

	for (k = 0; k < 4; k++) {
		c = (sig >> (8 * k)) & 0xff;
		mask |= (c >= '0' && c <= '9' ? 0xf0u : 0xffu) << (8 * k);
	}
	return mask;
}

/* Requests that begin in b[0..n) (n <= LL_PL_SCAN; b holds LL_PL_SCAN + 4 bytes at least): 1 +
 * the lines beginning with the read's first 4 bytes (digits as any digit); 0 (LL_PL_BINARY) if
 * those are not text, or n < 4. The same code runs in the kernel (bpf/payload.bpf.h, a global
 * function the verifier walks once: one pass per position) and in the unit tests. */
static __attribute__((always_inline)) inline __u32 ll_pl_count(const __u8 *b, __u32 n)
{
	__u32 sig, mask, want, starts = 1, i;

	if (n < 4 || n > LL_PL_SCAN || !ll_pl_text(b[0]) || !ll_pl_text(b[1]) ||
	    !ll_pl_text(b[2]) || !ll_pl_text(b[3]))
		return LL_PL_BINARY;
	sig = ll_pl_load4(b);
	mask = ll_pl_mask(sig);
	want = sig & mask;
	for (i = 1; i + 4 <= n && i < LL_PL_SCAN; i++) {
		/* i opaque to the compiler: else it reads b[0] before the loop and enters the loop
		 * after that read, whose next pass then falls through into the loop's entry, and
		 * the verifier before Linux 6.4 refuses a loop closed by a fall-through
		 * ("back-edge from insn N to N+1", seen on 6.1) */
		__asm__ __volatile__("" : "+r"(i));
		if (b[i - 1] != '\n')
			continue;
		if ((ll_pl_load4(b + i) & mask) == want)
			starts++;
	}
	return starts;
}

/* Requests in a read of `len` bytes of which the first n were counted (`count`): a read longer
 * than scanned, with 2+ requests in the scanned part, is taken as more of the same. */
static __attribute__((always_inline)) inline __u64 ll_pl_extrapolate(__u32 count, __u32 n,
								      __u64 len)
{
	if (count < 2 || len <= n || !n)
		return count;
	return ((__u64)count * len + n / 2) / n;
}

#endif /* LOADLENS_PAYLOAD_H */
