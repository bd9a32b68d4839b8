/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * TLS on a target TCP port: the handshake told apart from requests, and timed on its own.
 * Part of request timing (bpf/req.bpf.h), built on req_tcp.bpf.h (bpf/observe.bpf.h's
 * ll_sys_buf() finds the bytes a read filled).
 *
 * A connection is TLS when the first bytes the server reads are a handshake record header (type
 * 22, version 3.x): a ClientHello. From then on the server's reads are walked record header by
 * record header (5 bytes each: type, version, length; nothing encrypted is looked at) until the
 * handshake is over, and the server's writes move it along:
 *
 *   ClientHello read -> server's first flight            every version
 *   TLS 1.2, full:     handshake records (key exchange) -> the server's Finished -> data
 *   TLS 1.2, resumed:  ChangeCipherSpec, then a handshake record (the client's Finished) -> data
 *   TLS 1.3:           [ChangeCipherSpec], then the first application-data record is the
 *                      client's (encrypted) Finished; the server may write session tickets
 *                      after it; the next application-data record is the first request
 *
 * Handshake time runs from the ClientHello's first byte queued to the end of the server's last
 * handshake write (its Finished: in TLS 1.3 the end of its first flight, in TLS 1.2 full the
 * flight after the client's Finished); the server's work is, per server flight, the read of the
 * client's flight to the flight's last write. Neither is a request: the exchanges of the
 * handshake never reach record().
 *
 * When the handshake is over the record path is done with the connection: its requests are
 * counted from the plaintext, through uprobes on libssl (req_ssl.bpf.h), or, where that is not
 * seen (no uprobes, TLS linked into the server), not at all: read/write turns of ciphertext are
 * never taken for requests (tls_unseen counts such connections, once each).
 *
 * Cost: a plaintext connection pays one look at its first 5 bytes (at its first read); a TLS
 * connection a walk of its record headers at each read of the handshake (up to TLS_SCAN_RECS
 * records a read), and after it no look at its bytes.
 * Limits (docs/observer/tls-http2.md, "TLS"): a HelloRetryRequest (a second ClientHello) reads as
 * a TLS 1.2 full handshake; client certificates in TLS 1.3 (more encrypted records before the
 * Finished) would make the first request's record read as the Finished (the handshake's end then
 * taken at it); 0-RTT early data is read as part of the handshake.
 */
#ifndef LOADLENS_REQ_TLS_BPF_H
#define LOADLENS_REQ_TLS_BPF_H

#include "req_tcp.bpf.h"
#include "loadlens/tls.h"

#define TLS_CCS LL_TLS_CCS
#define TLS_ALERT LL_TLS_ALERT
#define TLS_HANDSHAKE LL_TLS_HANDSHAKE
#define TLS_APP LL_TLS_APP
/* A record's largest length (TLS 1.2 ciphertext: 2^14 + 2048) */
#define TLS_MAX_LEN 18432

/* Record headers walked in one read. A read of more (a client's whole flight and several
 * requests) loses track: the handshake is counted lost and the connection's reads are
 * requests from there. */
#define TLS_SCAN_RECS 8

/* tls_scan()'s answer: the records' types in order, 2 bits each (type - 20), from bit 0; their
 * number at bit 16; the bytes of the last record beyond the read at bit 20 (16 bits); the first
 * record's length at bit 36; TLS_SCAN_BAD if a header was not a TLS record's. */
#define TLS_SCAN_N(v) (((v) >> 16) & 0xf)
#define TLS_SCAN_SKIP(v) (((v) >> 20) & 0xffff)
#define TLS_SCAN_LEN0(v) (((v) >> 36) & 0xffff)
#define TLS_SCAN_BAD (1ULL << 62)

LL_MAP(tls_hs, BPF_MAP_TYPE_LRU_HASH, RT_TLS_HS_SLOTS, __u64, struct rt_tls_hs);

/* The record headers in the n bytes at ubuf (user memory), the first at skip. A global function:
 * the verifier walks its loop once. */
LL_GLOBAL_NUM __u64 tls_scan(__u64 ubuf, __u32 n, __u32 skip)
{
	__u8 h[5];
	__u64 out = 0, off = skip;
	__u32 i, len;

	if (!ubuf || n > (1u << 20))
		return TLS_SCAN_BAD;
	for (i = 0; i < TLS_SCAN_RECS; i++) {
		if (off + 5 > n)
			break;
		if (bpf_probe_read_user(h, sizeof(h), (void *)(ubuf + off)))
			return TLS_SCAN_BAD;
		len = ((__u32)h[3] << 8) | h[4];
		if (h[0] < TLS_CCS || h[0] > TLS_APP || h[1] != 3 || len > TLS_MAX_LEN)
			return TLS_SCAN_BAD;
		out |= (__u64)(h[0] - TLS_CCS) << (2 * i);
		if (!i)
			out |= (__u64)len << 36;
		off += 5 + len;
	}
	if (off < n && i == TLS_SCAN_RECS)
		return TLS_SCAN_BAD; /* more records than walked: track lost */
	/* a header cut by the end of the read is not expected (OpenSSL reads a header whole) */
	out |= (__u64)i << 16;
	if (off > n)
		out |= ((off - n) & 0xffff) << 20;
	return out;
}

/*
 * TLS in the kernel (kTLS): past the handshake OpenSSL (3.0, `Options KTLS`) may hand a
 * connection's records to the kernel's tls module, one direction or both, which then encrypts
 * the server's writes and decrypts its reads: the server reads and writes plaintext on the
 * socket. Told by the socket's protocol: the module installs itself as an upper-layer protocol
 * (icsk_ulp_ops, one load for any other TLS socket) and puts its own operations in place of
 * TCP's for each direction it takes (tls_prots): recvmsg, sendmsg no longer tcp_recvmsg,
 * tcp_sendmsg (their addresses from kallsyms; none: no kTLS told). rx: the reads'.
 */
extern const void tcp_recvmsg __ksym __weak;
extern const void tcp_sendmsg __ksym __weak;

static __always_inline bool ktls_on(const struct sock *sk, bool rx, bool kf)
{
	__u64 tcp = rx ? (__u64)&tcp_recvmsg : (__u64)&tcp_sendmsg, fn;
	const struct proto *p;

	if (!tcp || !LL_READ_KF(kf, struct inet_connection_sock, sk, icsk_ulp_ops))
		return false;
	p = BPF_CORE_READ(sk, __sk_common.skc_prot);
	fn = rx ? (__u64)BPF_CORE_READ(p, recvmsg) : (__u64)BPF_CORE_READ(p, sendmsg);
	return fn && fn != tcp;
}

/* The bytes the current read filled (up to ret), or 0. */
static __always_inline __u64 tls_buf(int ret, __u32 *n)
{
	__u64 ulen = 0, ubuf = ll_sys_buf(false, &ulen);

	*n = ulen < (__u64)ret ? (__u32)ulen : (__u32)ret;
	return ubuf;
}

/* The user buffer the current write() / sendto() / writev() / sendmsg() sent first, or 0. A
 * global function: checked once, and its loads of the registers and the stack kept apart. */
LL_GLOBAL_NUM __u64 tls_wbuf(void)
{
	__u64 len;

	return ll_sys_buf(true, &len);
}

/* Is this write of ret bytes the server's alert alone (its close_notify), no part of a response?
 * Looked at only for a write small enough to be one (TLS 1.2: an alert record; TLS 1.3: an
 * application-data record of 19 or 11 bytes). */
static __always_inline bool tls_alert_write(int ret)
{
	__u64 ubuf;
	__u32 len;
	__u8 h[5];

	if (ret < 7 || ret > 64)
		return false;
	ubuf = tls_wbuf();
	if (!ubuf || bpf_probe_read_user(h, sizeof(h), (void *)ubuf))
		return false;
	len = ((__u32)h[3] << 8) | h[4];
	if (h[1] != 3 || len + 5 != (__u32)ret)
		return false;
	return ll_tls_alert(h[0], len);
}

/* Extensions looked at in a ClientHello, and ALPN protocol names in its list */
#define TLS_HELLO_EXTS 32
#define TLS_ALPN_NAMES 8
#define TLS_EXT_ALPN 16

/* Does the ClientHello in the n bytes at ubuf (its record header first) offer HTTP/2 (ALPN
 * "h2")? Inside TLS the observer sees turns, not streams: such connections are counted, and the
 * output says their requests are turns. Only the ClientHello's lengths and the ALPN list are
 * read (plaintext by design). A global function: the verifier walks its loops once. */
LL_GLOBAL_NUM int tls_offers_h2(__u64 ubuf, __u32 n)
{
	__u32 off = 43, end, i, len, p;
	__u8 b[4], names[40];

	if (!ubuf || n > (1u << 20))
		return 0;
	/* record (5), handshake type and length (4), version (2), random (32); then the session
	 * id, the cipher suites, the compression methods, each after its length */
	if (off + 1 > n || bpf_probe_read_user(b, 1, (void *)(ubuf + off)))
		return 0;
	off += 1 + b[0];
	if (off + 2 > n || bpf_probe_read_user(b, 2, (void *)(ubuf + off)))
		return 0;
	off += 2 + (((__u32)b[0] << 8) | b[1]);
	if (off + 1 > n || bpf_probe_read_user(b, 1, (void *)(ubuf + off)))
		return 0;
	off += 1 + b[0];
	if (off + 2 > n || bpf_probe_read_user(b, 2, (void *)(ubuf + off)))
		return 0;
	end = off + 2 + (((__u32)b[0] << 8) | b[1]);
	off += 2;
	if (end > n)
		end = n;
	for (i = 0; i < TLS_HELLO_EXTS; i++) {
		if (off + 4 > end || bpf_probe_read_user(b, 4, (void *)(ubuf + off)))
			return 0;
		len = ((__u32)b[2] << 8) | b[3];
		if ((((__u32)b[0] << 8) | b[1]) == TLS_EXT_ALPN)
			break;
		off += 4 + len;
	}
	if (i == TLS_HELLO_EXTS)
		return 0;
	/* the list: its 2-byte length, then names, each after a 1-byte length */
	len = len > sizeof(names) ? sizeof(names) : len;
	if (len < 5 || off + 4 + len > n)
		return 0;
	barrier_var(len); /* (the mask stays: 5.10's verifier bounds only the register passed) */
	if (bpf_probe_read_user(names, len & 63, (void *)(ubuf + off + 4)))
		return 0;
	p = 2;
	for (i = 0; i < TLS_ALPN_NAMES; i++) {
		if (p + 3 > len || p + 3 > sizeof(names))
			return 0;
		if (names[p & 63] == 2 && names[(p + 1) & 63] == 'h' && names[(p + 2) & 63] == '2')
			return 1;
		p += 1 + names[p & 63];
	}
	return 0;
}

/* The connection's first read was a ClientHello record (conn_hello()): a TLS connection, and its
 * handshake begins (start: the bytes' arrival, else now). ubuf, n: the read's bytes. */
static __always_inline void tls_hello(const struct sock *sk, struct rt_tcp_sock *s, int slot,
				      __u64 ubuf, __u32 n)
{
	struct rt_tls_hs hs = {};
	__u64 key = (__u64)sk;

	s->flags |= RT_F_TLS;
	s->tls = RT_TLS_HELLO;
	s->tls_skip = 0;
	hs.start_ns = s->state == RT_QUEUED && s->arrival_ns ? s->arrival_ns : bpf_ktime_get_ns();
	if (bpf_map_update_elem(&tls_hs, &key, &hs, BPF_ANY))
		REC_ADD(slot, tls_lost, 1);
	if (tls_offers_h2(ubuf, n))
		REC_ADD(slot, tls_alpn_h2, 1);
}

/* The ClientHello waited to be accepted, not a request: the handshake keeps the accept time
 * (recorded as the connection's accept-queue share with it). */
static __always_inline void tls_accepted(const struct sock *sk, struct rt_tcp_sock *s)
{
	__u64 key = (__u64)sk;
	struct rt_tls_hs *hs = bpf_map_lookup_elem(&tls_hs, &key);

	if (hs)
		hs->accept_ns = s->accept_ns;
	s->accept_ns = 0;
}

/* The handshake is over: its end is the server's last handshake write (last_write_ns). */
static __always_inline void tls_record_hs(const struct sock *sk, struct rt_tcp_sock *s, int slot,
					  bool v13, bool resumed)
{
	__u64 key = (__u64)sk;
	struct rt_tls_hs *hs = bpf_map_lookup_elem(&tls_hs, &key);
	struct rt_rec *r = rec_of(slot);

	if (!r)
		return;
	if (!hs || !s->last_write_ns) {
		r->c.tls_lost++;
		if (hs)
			bpf_map_delete_elem(&tls_hs, &key);
		return;
	}
	hist_add(r, RT_TLS_HS, sub0(s->last_write_ns, hs->start_ns));
	hist_add(r, RT_TLS_WORK, hs->work_ns);
	if (hs->accept_ns) {
		/* the ClientHello is what waited to be accepted: the connection's accept share */
		hist_add(r, RT_ACCEPT, sub0(hs->accept_ns, hs->start_ns));
		barrier();
		r->c.accept_n++;
	}
	barrier();
	r->c.tls_handshakes++;
	if (v13)
		r->c.tls13++;
	if (resumed)
		r->c.tls_resumed++;
	bpf_map_delete_elem(&tls_hs, &key);
}

/* The socket moves to CLOSE (req_forget): a handshake under way frees its entry. */
static __always_inline void tls_forget(const struct sock *sk, struct rt_tcp_sock *s)
{
	__u64 key = (__u64)sk;

	if (s->tls < RT_TLS_DONE)
		bpf_map_delete_elem(&tls_hs, &key);
}

/*
 * A read of a TLS connection (RT_F_TLS) while its handshake is under way: its records move the
 * handshake along. When it is over (its end was the server's last write), the record path is
 * done with the connection: what follows is application data, whose requests are counted from
 * the plaintext (bpf/req_ssl.bpf.h) or not at all, never as read/write turns of ciphertext.
 * now: the read's time.
 */
static __always_inline void tls_read(struct sock *sk, struct rt_tcp_sock *s, int slot, int ret,
				     __u64 now, bool kf)
{
	__u8 ph = s->tls;
	__u64 v, ubuf, key = (__u64)sk, arrival;
	struct rt_tls_hs *hs;
	__u32 ev = 0;
	__u32 n, i;
	__u8 t;

	ubuf = tls_buf(ret, &n);
	v = tls_scan(ubuf, n, s->tls_skip);
	/* no record but the content of one: the kernel decrypts this connection's reads now
	 * (kTLS, from the client's ChangeCipherSpec or its Finished on): one record, of the type
	 * the kernel says (the client's Finished, then application data) */
	if ((v & TLS_SCAN_BAD) && ktls_on(sk, true, kf)) {
		t = ll_sys_tls_record_type();
		t = t >= TLS_CCS && t <= TLS_APP ? t : TLS_APP;
		v = (__u64)(t - TLS_CCS) | 1 << 16;
	}
	if (v & TLS_SCAN_BAD) {
		/* lost track of the records: the handshake untimed */
		REC_ADD(slot, tls_lost, 1);
		bpf_map_delete_elem(&tls_hs, &key);
		s->tls = RT_TLS_DONE;
		s->state = RT_IDLE;
		return;
	}
	s->tls_skip = TLS_SCAN_SKIP(v);
	/* the server's flight before this read is over: its work */
	if (s->state == RT_WRITING && (ph == RT_TLS_HELLO_ANS || ph == RT_TLS_KEX_ANS)) {
		hs = bpf_map_lookup_elem(&tls_hs, &key);
		if (hs)
			hs->work_ns += sub0(s->last_write_ns, s->read_ns);
	}
	for (i = 0; i < TLS_SCAN_RECS && i < TLS_SCAN_N(v) && !(ev & LL_TLS_EV_HS_OVER); i++) {
		ph = ll_tls_step(ph, ((v >> (2 * i)) & 3) + TLS_CCS, &ev);
		if (ph == RT_TLS_CLOSING)
			break;
	}
	if (ph == RT_TLS_CLOSING) {
		REC_ADD(slot, tls_alerts, 1);
		if (!(ev & LL_TLS_EV_HS_OVER))
			bpf_map_delete_elem(&tls_hs, &key); /* a handshake that failed: not timed */
	}
	if (ev & LL_TLS_EV_HS_OVER)
		tls_record_hs(sk, s, slot, ev & LL_TLS_EV_V13, ev & LL_TLS_EV_RESUMED);
	if (ph == RT_TLS_CLOSING || (ev & LL_TLS_EV_HS_OVER)) {
		s->tls = ph == RT_TLS_CLOSING ? RT_TLS_CLOSING : RT_TLS_DONE;
		s->state = RT_IDLE;
		s->pending_ns = 0;
		return;
	}
	s->tls = ph;
	/* the next exchange of the handshake: the bytes' arrival, queued since the last read, else
	 * with the previous records */
	arrival = s->state == RT_QUEUED ? s->arrival_ns : s->pending_ns;
	if (s->state == RT_READING && !arrival)
		arrival = s->arrival_ns;
	if (s->state != RT_READING)
		tcp_begin(s, arrival, now);
	else
		s->pending_ns = 0;
}

/* A write of a TLS connection still in its handshake: it moves the handshake along (the server's
 * flights; their last write is the handshake's end). */
static __always_inline void tls_write(struct sock *sk, struct rt_tcp_sock *s, bool kf)
{
	if (s->state == RT_READING) {
		s->write_ns = tcp_sent_clock(sk, s->read_ns, kf);
		s->last_write_ns = s->write_ns;
		s->state = RT_WRITING;
		s->tls = ll_tls_wrote(s->tls);
	} else if (s->state == RT_WRITING) {
		s->last_write_ns = bpf_ktime_get_ns();
	}
}

/*
 * A read of a TLS connection whose handshake is over (RT_TLS_DONE and after). Its plaintext
 * seen (RT_F_PLAIN): what the kernel knows of the bytes, their arrival, went to the SSL call
 * they were read in (ssl_stamp()); the bytes still queued keep theirs. Not seen: counted once
 * (tls_unseen), and nothing of it is a request.
 */
static __always_inline void tls_app_read(struct sock *sk, struct rt_tcp_sock *s, int slot, bool kf)
{
	if (!(s->flags & RT_F_PLAIN)) {
		if (s->tls == RT_TLS_DONE) {
			REC_ADD(slot, tls_unseen, 1);
			s->tls = RT_TLS_UNSEEN;
		}
		s->state = RT_IDLE;
		return;
	}
	if (LL_READ_KF(kf, struct tcp_sock, sk, rcv_nxt) ==
	    LL_READ_KF(kf, struct tcp_sock, sk, copied_seq)) {
		s->state = RT_IDLE;
	} else if (s->state != RT_QUEUED) {
		s->arrival_ns = s->pending_ns;
		s->state = RT_QUEUED;
	}
	s->pending_ns = 0;
}

#endif /* LOADLENS_REQ_TLS_BPF_H */
