/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * TLS plaintext on a target TCP port, through uprobes on OpenSSL's libssl: a TLS connection's
 * requests counted and timed from the bytes the server's SSL_read returns and hands to SSL_write,
 * as a connection in the clear is (HTTP/2: each stream, with req_h2.bpf.h's frame walk; else
 * HTTP/1.1 turns of the plaintext). Part of request timing (bpf/req.bpf.h), built on
 * req_h2.bpf.h. The uprobe programs are bpf/sockets.bpf.c's handle_ssl_*; userspace
 * attaches them to the libssl its target processes map (observer/kernel/ssl_probes.c).
 *
 * An SSL object is tied to its socket by the kernel: the uprobe at a call's entry notes the call
 * (ssl_calls, by thread), and a read or write of a target TLS socket inside it, in the same
 * thread (sock_recv_length, sock_send_length: the request path calls ssl_stamp()), names the
 * socket and hands over when the bytes it read arrived. The call's return ties the SSL object to
 * the socket (ssl_socks) for later calls that find their bytes in OpenSSL's buffer, with no read
 * of the socket. SSL_do_handshake is probed for that alone: its reads are the first of a
 * connection, and with read-ahead they may take the first request too.
 *
 *   SSL_read[_ex] returns n > 0     the plaintext: its first read decides the protocol (the
 *                                   client preface: HTTP/2); a request's service begins at the
 *                                   socket read that took its bytes (HTTP/2: those holding its
 *                                   END_STREAM) inside an SSL call: the last such read of the
 *                                   connection for plaintext OpenSSL returns from its buffer
 *                                   (read-ahead: a TLS 1.3 request read with the client's
 *                                   Finished in SSL_do_handshake). The same boundary as in the
 *                                   clear: socket-queue wait is the kernel's (arrival -> that
 *                                   read), and what the server does after it (the decryption, the
 *                                   rest of the handshake, other connections) is service
 *   SSL_write[_ex] returns n > 0    the response's bytes, timed at the call's entry: when the
 *                                   server handed them over; what follows (the encryption, the
 *                                   socket write, on loopback the peer's receive path run in the
 *                                   writer's context, 10-30 us) is the TLS library's and the
 *                                   kernel's. Walked at the return, for the bytes it wrote: a
 *                                   call that fails (WANT_WRITE) is made again with the same
 *                                   bytes, and is walked once
 *   the socket closes               HTTP/1.1 request read and never answered, HTTP/2 streams
 *                                   still open: unanswered
 *
 * The handshake stays on the record path (req_tls.bpf.h), which counts
 * no request of a TLS connection: without its plaintext (no uprobe on its server's TLS library)
 * a connection counts as a connection and a handshake only (tls_unseen).
 *
 * Cost: a process that is not a target pays the uprobes' trap on each SSL call (the kernel's,
 * about 1-3 us a call on x86-64: BENCHMARKS.md) and one load and compare in the programs
 * (ssl_procs, direct-mapped by tgid); a target's call, a hash update at the entry, a lookup and
 * a delete at the return, the connection's entry, and the walk of the plaintext's frame headers.
 * A target TLS socket's read or write, one more hash lookup.
 */
#ifndef LOADLENS_REQ_SSL_BPF_H
#define LOADLENS_REQ_SSL_BPF_H

#include "req_h2.bpf.h"
#include "loadlens/ssl.h"

/* The uprobes are planned: the socket programs tie SSL calls to sockets (0: off). */
const volatile __u8 targ_ssl = 0;

/* tgid -> itself, direct-mapped: processes that read a ClientHello on a target socket (or that
 * userspace found serving with a libssl), whose SSL calls are looked at; a second process on a
 * taken slot is not (counted: RT_G_SSL_PROCS_FULL). A plain load and a compare for any other
 * process's call. */
__u64 ssl_procs[RT_SSL_PROCS]; /* u64: clang 14 has 64-bit compare-and-swap only */

LL_MAP(ssl_calls, BPF_MAP_TYPE_LRU_HASH, RT_SSL_CALLS, __u64, struct rt_ssl_call);
LL_MAP(ssl_socks, BPF_MAP_TYPE_LRU_HASH, RT_SSL_SOCKS, struct rt_ssl_key,
       struct rt_ssl_sock);

/* keyed by the socket; freed when it moves to CLOSE (a socket with its state in its own storage
 * leaves it to the LRU) */
LL_MAP(ssl_conns, BPF_MAP_TYPE_LRU_HASH, RT_SSL_CONNS, __u64, struct rt_ssl_conn);

/* A zeroed connection entry to insert (never written: the stack has no room for one) */
LL_MAP(ssl_zero, BPF_MAP_TYPE_PERCPU_ARRAY, 1, __u32, struct rt_ssl_conn);

/* The connection entry of socket key, inserted zeroed (NULL: the LRU had no room for it). */
static __always_inline struct rt_ssl_conn *ssl_conn_new(__u64 key)
{
	struct rt_ssl_conn *zero;
	__u32 z = 0;

	zero = bpf_map_lookup_elem(&ssl_zero, &z);
	if (zero)
		bpf_map_update_elem(&ssl_conns, &key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&ssl_conns, &key);
}

/* The current process reads a ClientHello on a target socket (tls_hello): its SSL calls count. */
static __always_inline void ssl_watch_proc(void)
{
	__u64 tgid = bpf_get_current_pid_tgid() >> 32, *w = &ssl_procs[tgid % RT_SSL_PROCS];

	if (!targ_ssl || *w == tgid)
		return;
	if (*w || LL_CMPXCHG(w, 0, tgid))
		global_add(RT_G_SSL_PROCS_FULL, 1);
}

static __always_inline bool ssl_proc(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;

	return ssl_procs[tgid % RT_SSL_PROCS] == tgid && tgid;
}

/*
 * A target TLS socket is read (ret bytes) or written (ret 0) inside an SSL call of this thread:
 * the call is the socket's, and the socket's requests are the plaintext's (RT_F_PLAIN). A read
 * hands over when its bytes arrived (the first byte's own segment, else queued since the last
 * read; bytes that came while the handshake was answered: pending).
 */
static __always_inline void ssl_stamp(struct sock *sk, struct rt_tcp_sock *s, int slot, int ret,
				      bool kf)
{
	struct h2_arr_in in = {.sk = LL_PTR_NUM(sk), .gen = RT_ARR_TLS_GEN};
	__u64 id, arrival, own;
	struct rt_ssl_call *c;

	if (!targ_ssl)
		return;
	id = bpf_get_current_pid_tgid();
	if (!ssl_proc(id))
		return;
	c = bpf_map_lookup_elem(&ssl_calls, &id);
	if (!c)
		return;
	c->sk = (__u64)sk;
	c->slot = slot;
	s->flags |= RT_F_PLAIN;
	if (ret <= 0)
		return;
	arrival = s->state == RT_QUEUED ? s->arrival_ns : s->state != RT_IDLE ? s->pending_ns : 0;
	/* the read's first byte's own arrival, where the connection's table holds it: libssl
	 * reads a record at a time, so a record queued behind others keeps its own stamp, not the
	 * earliest unread bytes' (req_h2_arrivals.bpf.h) */
	in.end = LL_READ_KF(kf, struct tcp_sock, sk, copied_seq) - (__u32)ret;
	own = h2_arr_stamp_of(&in);
	if (own)
		arrival = own;
	if (arrival && (!c->arrival || arrival < c->arrival))
		c->arrival = arrival;
	/* the read: TCP's clock, refreshed as it copied the bytes (as req_tcp.bpf.h's reads) */
	c->read_ns = tcp_clock(sk, arrival > c->read_ns ? arrival : c->read_ns, kf);
}

/* An SSL call begins (the uprobe at its entry): note it for its thread. */
static __always_inline int ssl_enter(__u64 ssl, __u64 buf, __u64 outlen, __u32 kind)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct rt_ssl_call c = {};

	if (!ssl_proc(id)) {
		global_add(RT_G_SSL_OTHER, 1);
		return 0;
	}
	global_add(RT_G_SSL_CALLS, 1);
	c.ssl = ssl;
	c.buf = buf;
	c.outlen = outlen;
	c.kind = kind;
	if (kind == LL_SSL_WRITE || kind == LL_SSL_WRITE_EX)
		c.start_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&ssl_calls, &id, &c, BPF_ANY);
	return 0;
}

static __always_inline void ssl_h2_init(struct rt_ssl_conn *c, __u32 slot, __u64 now)
{
	__builtin_memset(&c->h2, 0, sizeof(c->h2));
	c->h2.gen = now;
	c->h2.slot = slot;
	c->proto = LL_SSL_PROTO_H2;
	c->h2_state = 0;
}

/* The plaintext's frames (an HTTP/2 connection): the walk of a connection in the clear, with its
 * gaps (a read or write of more frames than the walk takes). */
static __always_inline void ssl_h2_io(struct rt_ssl_conn *c, __u64 sk, __u32 slot, __u64 buf,
				      __u32 n, bool write, __u64 now)
{
	struct h2_walk ws = {}, *w;

	if (c->h2_state)
		return; /* closed */
	w = h2_walk_new(&ws);
	if (!w)
		return;
	w->sk = sk;
	w->slot = slot;
	w->write = write;
	w->now = now;
	w->arrival = write ? 0 : c->arrival_ns;
	h2_walk_gaps(&c->h2, w, 0, buf, 1, n);
}

/* A response in several writes is complete (HTTP/1.1): its first and last writes. */
static __always_inline void ssl_h1_multi(const struct ll_ssl_h1 *t, __u32 slot)
{
	struct rt_rec *r = rec_of(slot);

	if (!r)
		return;
	hist_add(r, RT_MULTI_FIRST, sub0(t->write_ns, t->read_ns));
	hist_add(r, RT_MULTI_LAST, sub0(t->last_write_ns, t->read_ns));
	barrier();
	r->c.multi_write++;
}

/* n bytes of plaintext read into buf (user memory) at now. */
static __always_inline void ssl_plain_read(struct rt_ssl_conn *c, __u64 sk, __u32 slot,
					   __u64 buf, __u32 n, __u64 now)
{
	struct ll_ssl_h1 done;
	__u64 w[3] = {};
	int ev;

	if (c->proto == LL_SSL_PROTO_NONE || c->proto == LL_SSL_PROTO_H2 + 1) {
		/* the first read: the client preface? (PROTO_H2 + 1: a server preface written) */
		if (n >= LL_H2_PREFACE_LEN)
			bpf_probe_read_user(w, sizeof(w), (void *)buf);
		if (ll_ssl_proto(w, n) == LL_SSL_PROTO_H2) {
			if (c->proto == LL_SSL_PROTO_NONE)
				ssl_h2_init(c, slot, now);
			c->proto = LL_SSL_PROTO_H2;
			c->h2.rd.skip = LL_H2_PREFACE_LEN;
			REC_ADD(slot, h2_conns, 1);
		} else {
			c->proto = LL_SSL_PROTO_H1;
		}
	}
	if (c->proto == LL_SSL_PROTO_H2) {
		ssl_h2_io(c, sk, slot, buf, n, false, now);
		return;
	}
	ev = ll_ssl_h1_read(&c->h1, now, c->arrival_ns, &done);
	if (ev & LL_SSL_H1_MULTI_DONE)
		ssl_h1_multi(&done, slot);
}

/* n bytes of plaintext written from buf, handed over at now. */
static __always_inline void ssl_plain_write(struct rt_ssl_conn *c, __u64 sk, __u32 slot,
					    __u64 buf, __u32 n, __u64 now)
{
	__u8 h[LL_H2_HDR];
	__u32 sid, tf;
	int ev;

	if (c->proto == LL_SSL_PROTO_NONE) {
		/* the server writes first: an HTTP/2 server's SETTINGS (its preface) is walked,
		 * so that its writes are in step when the client's preface makes it HTTP/2 */
		if (n < LL_H2_HDR || bpf_probe_read_user(h, sizeof(h), (void *)buf) ||
		    ll_h2_frame(h, &sid, &tf) < 0 || (tf & 0xff) != 4 || sid) {
			unsolicited(slot);
			return;
		}
		ssl_h2_init(c, slot, now);
		c->proto = LL_SSL_PROTO_H2 + 1;
	}
	if (c->proto != LL_SSL_PROTO_H1) {
		ssl_h2_io(c, sk, slot, buf, n, true, now);
		return;
	}
	ev = ll_ssl_h1_write(&c->h1, now);
	if (ev & LL_SSL_H1_RECORD)
		record_ctrs(slot, c->h1.arrival_ns, 0, c->h1.read_ns, now);
	else if (ev & LL_SSL_H1_UNSOLICITED)
		unsolicited(slot);
}

/* The plaintext an SSL call returned or took: the connection (its socket), the bytes and when. */
struct ssl_plain {
	__u64 sk;
	__u64 buf;
	__u64 now;
	__u32 n; /* | SSL_IO_WRITE for a write */
	__u32 pad;
};
#define SSL_IO_WRITE (1u << 31)

/* ssl_exit()'s answer: the caller's (SSL_OUT, SSL_OA(q)), or before 5.12, where a global
 * function takes numbers only, each CPU's entry of ssl_outs (ssl_plain_new()): bpf/observe.bpf.h's
 * LL_STATE_*, as the frame walk's. */
LL_MAP(ssl_outs, BPF_MAP_TYPE_PERCPU_ARRAY, 1, __u32, struct ssl_plain); /* (both objects) */

#define SSL_OUT LL_STATE_PARAM(struct ssl_plain, out)
#define SSL_OA(q) LL_STATE_ARG(q)
#define SSL_OUT_GET() LL_STATE_GET(struct ssl_plain, out, ssl_outs)

/* A new answer, zeroed: *stack (the caller's), or before 5.12 this CPU's entry (NULL: none). */
#define ssl_plain_new(stack) LL_STATE_NEW(ssl_outs, stack)

/* The plaintext of an SSL call: n bytes at buf (user memory) read at now, or written (handed
 * over at now) with SSL_IO_WRITE in n, on the connection of socket sk. A global function: the
 * verifier checks it, and the frame walk in it, once per program, on its own stack, and the
 * program calls it after ssl_exit() has returned, not from inside it: the walk's frames and
 * ssl_exit()'s do not add up (together they passed the 512 bytes of stack 6.1 allows). */
LL_GLOBAL_NUM int ssl_io(__u64 sk, __u64 buf, __u32 n, __u64 now)
{
	struct rt_ssl_conn *c = bpf_map_lookup_elem(&ssl_conns, &sk);
	__u32 slot;

	if (!c)
		return 0;
	slot = c->h2.slot;
	if (slot >= RT_MAX_SLOTS)
		return 0;
	if (n & SSL_IO_WRITE)
		ssl_plain_write(c, sk, slot, buf, n & ~SSL_IO_WRITE, now);
	else
		ssl_plain_read(c, sk, slot, buf, n, now);
	return 0;
}

/*
 * An SSL call returns ret (the uretprobe; which call it was, its entry noted). A global
 * function: the verifier checks it apart from the program's state. The call's bytes: ret for SSL_read and
 * SSL_write, *outlen for the _ex forms (which return 1 on success). Returns 1 with *out set
 * where there is plaintext for ssl_io(), else 0.
 */
LL_GLOBAL_NUM int ssl_exit(SSL_OUT int ret)
{
	__u64 id = bpf_get_current_pid_tgid(), sk, n64 = 0, buf, outlen, start, arrival, read_ns;
	struct rt_ssl_key key = {};
	struct rt_ssl_sock m = {}, *mp;
	struct rt_ssl_conn *c;
	struct rt_ssl_call *cp;
	__u32 n = 0, slot, kind;
	struct rt_rec *r;
	bool write, seen;
	SSL_OUT_GET();

	if (!out || !ssl_proc(id))
		return 0;
	cp = bpf_map_lookup_elem(&ssl_calls, &id);
	if (!cp)
		return 0;
	kind = cp->kind;
	key.ssl = cp->ssl;
	key.tgid = id >> 32;
	buf = cp->buf;
	outlen = cp->outlen;
	start = cp->start_ns;
	sk = cp->sk;
	slot = cp->slot;
	arrival = cp->arrival;
	read_ns = cp->read_ns;
	bpf_map_delete_elem(&ssl_calls, &id);
	write = kind == LL_SSL_WRITE || kind == LL_SSL_WRITE_EX;
	if (kind == LL_SSL_READ || kind == LL_SSL_WRITE) {
		n = ret > 0 && ret < (1 << 30) ? (__u32)ret : 0;
	} else if (kind != LL_SSL_HANDSHAKE && ret == 1 && outlen &&
		   !bpf_probe_read_user(&n64, sizeof(n64), (void *)outlen)) {
		n = n64 < (1u << 30) ? (__u32)n64 : 0; /* (below SSL_IO_WRITE) */
	}
	seen = sk != 0;
	if (seen) {
		/* a read or write of the socket inside this call: the SSL object is its */
		mp = bpf_map_lookup_elem(&ssl_socks, &key);
		if (!mp || mp->sk != sk || mp->slot != slot) {
			m.sk = sk;
			m.slot = slot;
			bpf_map_update_elem(&ssl_socks, &key, &m, BPF_ANY);
		}
	} else {
		if (!n)
			return 0;
		mp = bpf_map_lookup_elem(&ssl_socks, &key);
		if (!mp) {
			global_add(RT_G_SSL_UNMAPPED, 1);
			return 0;
		}
		sk = mp->sk;
		slot = mp->slot;
	}
	if (slot >= RT_MAX_SLOTS)
		return 0;
	c = bpf_map_lookup_elem(&ssl_conns, &sk);
	if (!c) {
		c = ssl_conn_new(sk);
		r = rec_of(slot);
		if (r) {
			if (c)
				r->c.tls_plain_conns++;
			else
				r->c.tls_plain_lost++;
		}
		if (!c)
			return 0;
		c->h2.slot = slot;
	}
	if (c->proto == LL_SSL_PROTO_KERNEL)
		return 0; /* kTLS: the socket hooks walk its plaintext */
	/* a read of the socket in this call: the plaintext it returns (now, or later, from
	 * OpenSSL's buffer) arrived then */
	if (seen && !write) {
		c->arrival_ns = arrival;
		c->read_ns = read_ns;
	}
	if (!n)
		return 0;
	out->sk = sk;
	out->buf = buf;
	out->n = write ? n | SSL_IO_WRITE : n;
	out->now = write ? start : c->read_ns ? c->read_ns : bpf_ktime_get_ns();
	return 1;
}

/* A TLS connection the kernel's TLS took over both ways (kTLS, req_hello.bpf.h's ktls_hello()):
 * the socket hooks read its plaintext from here, and its SSL calls, still probed, walk nothing
 * (the same bytes): its entry says so, and its count as a plaintext connection is taken back. */
static __always_inline void ssl_to_kernel(const struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct rt_ssl_conn *c;

	if (!targ_ssl)
		return;
	c = bpf_map_lookup_elem(&ssl_conns, &key);
	if (!c) {
		c = ssl_conn_new(key);
		if (!c)
			return;
		c->h2.slot = RT_MAX_SLOTS; /* (counted nowhere) */
	} else if (c->proto != LL_SSL_PROTO_KERNEL && c->h2.slot < RT_MAX_SLOTS) {
		REC_ADD(c->h2.slot, tls_plain_conns, (__u64)-1);
	}
	c->proto = LL_SSL_PROTO_KERNEL;
}

/* A kTLS connection's socket moves to CLOSE: its entry (ssl_to_kernel()) goes. */
static __always_inline void ssl_kernel_forget(const struct sock *sk)
{
	__u64 key = (__u64)sk;

	if (targ_ssl)
		bpf_map_delete_elem(&ssl_conns, &key);
}

/* The connection closes (the server's close; forget: it moves to CLOSE, its entry goes). */
static __always_inline void ssl_close(const struct sock *sk, bool forget)
{
	__u64 key = (__u64)sk;
	struct rt_ssl_conn *c = bpf_map_lookup_elem(&ssl_conns, &key);
	struct ll_ssl_h1 done;
	int ev;

	if (!c)
		return;
	if (c->proto == LL_SSL_PROTO_H2 || c->proto == LL_SSL_PROTO_H2 + 1) {
		if (!c->h2_state)
			h2_conn_close(key, &c->h2);
		c->h2_state = 2;
	} else if (c->proto == LL_SSL_PROTO_H1) {
		ev = ll_ssl_h1_close(&c->h1, &done);
		if (ev & LL_SSL_H1_MULTI_DONE)
			ssl_h1_multi(&done, c->h2.slot);
		if (ev & LL_SSL_H1_UNANSWERED)
			REC_ADD(c->h2.slot, unanswered, 1);
	}
	if (forget)
		bpf_map_delete_elem(&ssl_conns, &key);
}

#endif /* LOADLENS_REQ_SSL_BPF_H */
