/* SPDX-License-Identifier: MIT */
/*
 * A protocol's steps on the TCP slots (config/app.h's tcp: --proto ldap's bind and searches):
 * proto_tcp.c and proto_tcp_tls.c call these where the run is the protocol's (tt->app) and
 * never name it. A connection may first send a greeting (LDAP's bind) and counts as connected
 * once it is answered; each request is the protocol's to make; a complete reply's outcome is its
 * to read; with TLS, it may first ask in the clear for TLS to start (StartTLS).
 */
#ifndef LOADLENS_DRV_TCP_EXT_H
#define LOADLENS_DRV_TCP_EXT_H

#include <stddef.h>
#include <uv.h>

struct drv_frame;
struct drv_timing_reply;
struct drv_worker;
struct tcp_conn;
struct tcp_thread;

struct drv_tcp_ext {
	/* The thread's state (tt->app_data): 0 or -errno; and its end (after a failed init too). */
	int (*init)(struct tcp_thread *tt, struct drv_worker *w);
	void (*fini)(struct tcp_thread *tt);
	/* The longest request it makes: each slot's request buffer (c->mbuf). */
	size_t (*max_len)(const struct tcp_thread *tt);
	/* The connection is up: the greeting into *b (c->mbuf), the slot now greeting
	 * (c->binding). 0 or -errno. */
	int (*hello)(struct tcp_conn *c, uv_buf_t *b);
	/* Bytes of the greeting's answer: 0 (more to come), 1 (answered: the slot is connected, the
	 * first request goes) or a failure. */
	int (*hello_in)(struct tcp_conn *c, const char *p, size_t n);
	/* The next request into *b (c->mbuf), the framing told what answers it. 0 or -errno. */
	int (*request)(struct tcp_conn *c, uv_buf_t *b);
	/* A complete reply's outcome, from its framing, into r. */
	void (*outcome)(const struct drv_frame *f, struct drv_timing_reply *r);
	/* With TLS, the connection is up: the bytes of a request in the clear that asks for TLS
	 * into *req (the framing told what answers it) and their length, or 0: TLS from the
	 * connect. */
	size_t (*starttls)(struct tcp_conn *c, const char **req);
	/* That request's answer is complete: 0 (TLS starts), or DRV_E_TLS with why[0..len) said. */
	int (*starttls_done)(struct tcp_conn *c, char *why, size_t len);
};

#endif /* LOADLENS_DRV_TCP_EXT_H */
