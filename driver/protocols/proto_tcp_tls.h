/* SPDX-License-Identifier: MIT */
/*
 * LDAP over TLS on the TCP slots (proto_tcp_tls.c): ldaps:// (TLS from the connect) and
 * --starttls (RFC 4511's StartTLS ExtendedRequest, messageID 1, in the clear; on success the
 * handshake, then the bind as usual). The records go through tls_conn.h's memory BIOs; this layer
 * owns the connection's cipher bytes (two buffers: one being written by uv_write, one filling
 * meanwhile) and tells proto_tcp.c when TLS is up and what plaintext came. It never ends a
 * connection itself: a failure is returned, and its reason left for the worker (failfast.h).
 */
#ifndef LOADLENS_DRV_PROTO_TCP_TLS_H
#define LOADLENS_DRV_PROTO_TCP_TLS_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>
#include "protocols/stream_conn.h"
#include "protocols/tcp_conn.h"
#include "protocols/tls_conn.h"
#include "scheduling/worker.h"

/* Where a TLS connection is, before its plaintext flows. */
enum tcp_tls_step {
	TCP_TLS_UP = 0,	       /* the handshake is over (or not begun: the connection is down) */
	TCP_TLS_STARTTLS,      /* the StartTLS request is out, its ExtendedResponse not yet in */
	TCP_TLS_HANDSHAKE,     /* the handshake is under way */
};

/* A slot's TLS (c->tl; NULL without TLS), allocated once with the slot. */
struct tcp_tls {
	struct drv_tls tls;
	struct drv_stream_out o; /* records for the socket (stream_conn.h) */
	uint8_t step;		 /* enum tcp_tls_step */
};

/* The thread's context (--insecure, --cacert) and plaintext buffer: 0, or -EINVAL with one
 * line on stderr, or -ENOMEM. Nothing when the run is not LDAP over TLS. */
int drv__tcp_tls_init(struct tcp_thread *tt, struct drv_worker *w);
void drv__tcp_tls_fini(struct tcp_thread *tt);
/* The slot's part (c->tl), when the thread's run is TLS: 0 or -ENOMEM; and its release. */
int drv__tcp_tls_slot_init(struct tcp_conn *c);
void drv__tcp_tls_slot_release(struct tcp_conn *c);
/* The connection is up: the ClientHello (ldaps) or the StartTLS request goes out. 0 or -errno. */
int drv__tcp_tls_connected(struct tcp_conn *c);
/*
 * n bytes from the socket: 0 (more to come; plaintext, if any, through drv__tcp_tls_plain), 1
 * (the handshake is over just now: bind), or the failure to count (DRV_E_TLS, its reason told to
 * the worker; DRV_E_MALFORMED).
 */
int drv__tcp_tls_in(struct tcp_conn *c, const char *p, size_t n);
/* Plaintext into tt->plain: > 0 bytes, 0 none yet, DRV_E_SHORT (close_notify), DRV_E_TLS. */
int drv__tcp_tls_plain(struct tcp_conn *c);
/* Plaintext b[0..nb) to send, as records: 0 or -errno (DRV_E_TLS). */
int drv__tcp_tls_send(struct tcp_conn *c, const uv_buf_t *b, unsigned nb);
/* The records made, to the socket (after a uv_write is done, c->sc.writing false): 0 or -errno. */
int drv__tcp_tls_flush(struct tcp_conn *c);
/* The connection closes: its TLS state goes, the slot's buffers stay. */
void drv__tcp_tls_close(struct tcp_conn *c);
/* Why a connection of c failed err during TLS, for the worker (failfast.h). */
void drv__tcp_tls_why(struct tcp_conn *c, int err);

#endif /* LOADLENS_DRV_PROTO_TCP_TLS_H */
