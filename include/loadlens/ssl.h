/* SPDX-License-Identifier: MIT */
/*
 * TLS plaintext through uprobes on OpenSSL's libssl (bpf/req_ssl.bpf.h): what the uprobe
 * programs keep per thread (an SSL call under way), per SSL object (its socket) and per
 * connection (the plaintext's walk), and the pure steps they take on the plaintext (the same
 * code runs in the unit tests, tests/unit/test_ssl.c). docs/observer/tls-http2.md, "TLS plaintext",
 * explains the figures.
 *
 * A TLS connection's first plaintext read decides its protocol: the HTTP/2 client preface makes
 * it HTTP/2 (each stream a request: the frame walk of include/loadlens/h2.h), anything else
 * HTTP/1.1 (a request is a turn of the plaintext: the reads up to the response's first write).
 */
#ifndef LOADLENS_SSL_H
#define LOADLENS_SSL_H

#include <linux/types.h>
#include "loadlens/h2.h"

/* The functions probed (enum order = the uprobe programs' kind) */
enum ll_ssl_kind {
	LL_SSL_READ = 1,  /* int SSL_read(SSL *, void *buf, int num): bytes, or <= 0 */
	LL_SSL_READ_EX,	  /* int SSL_read_ex(SSL *, void *buf, size_t num, size_t *readbytes) */
	LL_SSL_WRITE,	  /* int SSL_write(SSL *, const void *buf, int num) */
	LL_SSL_WRITE_EX,  /* int SSL_write_ex(SSL *, const void *buf, size_t num, size_t *written) */
	LL_SSL_HANDSHAKE, /* int SSL_do_handshake(SSL *): its reads tie the SSL to its socket */
};

/* SSL calls under way at once (an LRU hash keyed by thread: a thread that died in a call leaves
 * an entry the next ones push out), SSL objects tied to sockets (LRU: the oldest go), TLS
 * connections whose plaintext is walked (a hash, freed when the socket closes: one that finds it
 * full is counted, tls_plain_lost), processes whose SSL calls are looked at (direct-mapped by
 * tgid). Powers of two. */
#define RT_SSL_CALLS 16384
#define RT_SSL_SOCKS 65536
#define RT_SSL_CONNS 65536
#define RT_SSL_PROCS 1024

/* An SSL call under way on a thread (the "ssl_calls" map, keyed by pid_tgid). */
struct rt_ssl_call {
	__u64 ssl;	/* the SSL object */
	__u64 buf;	/* its buffer (user memory) */
	__u64 outlen;	/* _ex: where the call writes its byte count (user memory) */
	__u64 start_ns; /* a write: when it was called (the response's time, see req_ssl.bpf.h) */
	__u64 sk;	/* the target socket a read or write inside it used (0: none seen) */
	__u64 arrival;	/* the earliest arrival of the bytes those reads took (0: unknown) */
	__u64 read_ns;	/* the last of those reads (TCP's clock at the copy) */
	__u32 kind;	/* enum ll_ssl_kind */
	__u32 slot;	/* the socket's request-timing slot (with sk) */
};
_Static_assert(sizeof(struct rt_ssl_call) == 64, "rt_ssl_call layout");

/* An SSL object of a process (the "ssl_socks" map's key) and its socket (value). */
struct rt_ssl_key {
	__u64 ssl;
	__u32 tgid; /* the same address is another object in another process */
	__u32 pad;
};
struct rt_ssl_sock {
	__u64 sk;
	__u32 slot;
	__u32 pad;
};
_Static_assert(sizeof(struct rt_ssl_key) == 16, "rt_ssl_key layout");
_Static_assert(sizeof(struct rt_ssl_sock) == 16, "rt_ssl_sock layout");

/* A connection's protocol, decided at its first plaintext read */
#define LL_SSL_PROTO_NONE 0
#define LL_SSL_PROTO_H1 1
#define LL_SSL_PROTO_H2 2
/* (3: LL_SSL_PROTO_H2 + 1, the server's preface written first) */
#define LL_SSL_PROTO_KERNEL 4 /* kTLS: the socket hooks read its plaintext, not the uprobes */

/* HTTP/1.1 over TLS: the turns of the plaintext (enum rt_state: IDLE, READING, WRITING). */
struct ll_ssl_h1 {
	__u64 arrival_ns;    /* the current request's bytes queued (0: unknown) */
	__u64 read_ns;	     /* the socket read that took its first bytes (see req_ssl.bpf.h) */
	__u64 write_ns;	     /* the response's first write */
	__u64 last_write_ns; /* its last */
	__u8 state;
	__u8 multi; /* the response took more than one write */
	__u8 pad[6];
};

/* A TLS connection whose plaintext is walked (the "ssl_conns" map, keyed by its socket). */
struct rt_ssl_conn {
	struct rt_h2_conn h2; /* HTTP/2: the frame walk, as on a connection in the clear */
	struct ll_ssl_h1 h1;  /* HTTP/1.1 */
	__u64 arrival_ns;     /* the bytes of the last socket read inside an SSL call queued */
	__u64 read_ns;	      /* and that read (0: unknown) */
	__u8 proto;	      /* LL_SSL_PROTO_* */
	__u8 h2_state;	      /* HTTP/2: 0 walked, 2 closed (as rt_tcp_sock.h2; its 1, lost, is the
			       * clear's only: the plaintext's state needs no memory of its own) */
	__u8 pad[6];
};
_Static_assert(sizeof(struct rt_ssl_conn) == sizeof(struct rt_h2_conn) + 40 + 24, "rt_ssl_conn layout");

/* What a plaintext read or write did to an HTTP/1.1 connection (ll_ssl_h1_read/_write's
 * answer, or-ed): the caller records from *t or *done. */
#define LL_SSL_H1_RECORD 1	/* a response began: record *t (arrival, read, write_ns) */
#define LL_SSL_H1_UNANSWERED 2	/* the previous request was read and never answered */
#define LL_SSL_H1_MULTI_DONE 4	/* the previous response took several writes: *done holds it */
#define LL_SSL_H1_UNSOLICITED 8 /* a write with no request read before it */

/* The protocol of a connection from its first plaintext read of n bytes, whose first 24 are w
 * (zero-filled where n < 24). */
static __attribute__((always_inline)) inline __u8 ll_ssl_proto(const __u64 w[3], __u32 n)
{
	return n >= LL_H2_PREFACE_LEN && ll_h2_preface(w) ? LL_SSL_PROTO_H2 : LL_SSL_PROTO_H1;
}

/* A plaintext read (bytes > 0) at now; arrival: when its bytes were queued (0: unknown). A read
 * while a request is being read is more of it; otherwise it begins the next request, and the
 * previous one is closed out (*done: its copy, for a response in several writes). */
static __attribute__((always_inline)) inline int ll_ssl_h1_read(struct ll_ssl_h1 *t, __u64 now,
								 __u64 arrival,
								 struct ll_ssl_h1 *done)
{
	int ev = 0;

	if (t->state == 2 /* RT_READING */)
		return 0;
	if (t->state == 3 /* RT_WRITING */ && t->multi) {
		*done = *t;
		ev |= LL_SSL_H1_MULTI_DONE;
	}
	t->arrival_ns = arrival;
	t->read_ns = now;
	t->write_ns = 0;
	t->last_write_ns = 0;
	t->multi = 0;
	t->state = 2;
	return ev;
}

/* A plaintext write (bytes > 0) at now. */
static __attribute__((always_inline)) inline int ll_ssl_h1_write(struct ll_ssl_h1 *t, __u64 now)
{
	if (t->state == 2 /* RT_READING */) {
		t->write_ns = now;
		t->last_write_ns = now;
		t->state = 3;
		return LL_SSL_H1_RECORD;
	}
	if (t->state == 3) {
		t->last_write_ns = now;
		t->multi = 1;
		return 0;
	}
	return LL_SSL_H1_UNSOLICITED;
}

/* The connection closes: a request read and never answered, or a response in several writes,
 * is complete (*done). */
static __attribute__((always_inline)) inline int ll_ssl_h1_close(struct ll_ssl_h1 *t,
								  struct ll_ssl_h1 *done)
{
	int ev = 0;

	if (t->state == 2)
		ev = LL_SSL_H1_UNANSWERED;
	else if (t->state == 3 && t->multi) {
		*done = *t;
		ev = LL_SSL_H1_MULTI_DONE;
	}
	t->state = 0;
	return ev;
}

#endif /* LOADLENS_SSL_H */
