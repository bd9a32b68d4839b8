/* SPDX-License-Identifier: MIT */
/*
 * A TCP connection slot and its thread's state, as proto_tcp.c (the connection's hooks on the
 * stream base, stream_conn.h: send, read, record) and proto_tcp_pipe.c (-P: several requests in
 * flight per connection) both see them. Private to the two. proto_tcp.c calls into
 * proto_tcp_pipe.c (proto_tcp_pipe.h), never the other way: the -P layer ends a connection
 * through drv_stream_close() and tt->drop.
 */
#ifndef LOADLENS_DRV_TCP_CONN_H
#define LOADLENS_DRV_TCP_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include "framing/response.h"
#include "config/reqmix.h"
#include "protocols/stream_conn.h"
#include "protocols/tcp_ext.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

struct tcp_thread;
struct tcp_conn;
struct tcp_tls;

/* -P: one request in flight on a pipelined connection. */
struct tcp_pend {
	struct drv_ticket ticket;
	uint64_t t_send;
	uint64_t deadline;
	uv_write_t wreq;
	struct tcp_conn *c;
	uint32_t rec;
	bool rec_live;
	bool writing;	 /* its bytes are in a uv_write not yet done */
	uint32_t wcount; /* the batch whose uv_write is wreq: this and the wcount - 1 before it */
	uint8_t lp[4];
};

struct tcp_conn {
	struct drv_stream sc; /* leads: the slot base and the socket's life (stream_conn.h) */
	struct tcp_thread *tt;
	bool in_flight;	 /* its bytes are (being) sent; awaiting the response */
	bool resume;	 /* a due request waits for the close to finish, then connects */
	uint8_t lp[4];	 /* refserver framing: this request's length prefix */
	uint64_t rx;	 /* bytes of the current response received */
	uint64_t on_conn; /* requests completed on this connection */
	struct drv_frame frame;
	char *mbuf;	  /* --requests-file: this request's bytes (reqmix.c) */
	uint32_t rec;	  /* its record */
	bool rec_live;	  /* a record's request is out, its outcome not yet counted */
	struct tcp_pend *q; /* -P: requests in flight, oldest first, a ring of tt->pipeline */
	uint32_t qhead, qlen;
	uv_buf_t *iov;	  /* -P: the bytes of requests taken in one go, written in one call */
	uint32_t niov, nbatch, batch_first;
	uint32_t depth;	  /* inside a send or read: the batch is written on the way out */
	bool finishing;	    /* -P: the pacer is done; close once the last response is in */
	int32_t msgid;	    /* a protocol's: the last message id sent (LDAP's messageID) */
	bool binding;	    /* a protocol's greeting (LDAP's bind) is out, not yet answered */
	struct tcp_tls *tl; /* ldaps, --starttls: its TLS (proto_tcp_tls.h), else NULL */
};

struct tcp_thread {
	struct drv_stream_thread th; /* leads: request bytes, read buffer, the engine's hooks */
	struct drv_frame_rule rule;
	uint64_t reconnect_every;
	const struct drv_reqmix *mix; /* --requests-file, or NULL */
	struct drv_mix_ctx mix_ctx;
	uint32_t pipeline; /* -P */
	const struct drv_tcp_ext *app;	 /* a protocol's steps (--proto ldap), or NULL */
	void *app_data;			 /* ...and its thread state (tcp_ext.h) */
	struct ssl_ctx_st *tls_ctx;	 /* ldaps, --starttls: the client context, else NULL */
	char *plain;			 /* ...and the plaintext read buffer */
	size_t plain_len;
	/* proto_tcp.c's, after a failure is counted: nothing in flight any more, close the
	 * connection (drv_stream_close: its close callback starts the slot's next attempt), or if
	 * it is not open, start the slot's next attempt now */
	void (*drop)(struct tcp_conn *c);
};

/*
 * The next request's bytes into b[] (one or two buffers, from stable memory): a request-mix
 * record expanded into mbuf (its record index into *rec), or a refserver length prefix in lp with
 * the sized payload, or the fixed request. Returns how many buffers it filled.
 */
static inline unsigned int drv__tcp_request(struct tcp_thread *tt, char *mbuf, uint8_t lp[4],
					    uint32_t *rec, bool *rec_live, uv_buf_t *b)
{
	unsigned int nb = 0;
	size_t size;

	if (tt->mix) {
		size = drv_reqmix_next(tt->mix, &tt->mix_ctx, mbuf, rec);
		*rec_live = true;
		b[nb++] = uv_buf_init(mbuf, (unsigned int)size);
	} else if (tt->th.io.rq.sized) {
		size = drv_request_size(&tt->th.io.rq);
		lp[0] = (uint8_t)(size >> 24);
		lp[1] = (uint8_t)(size >> 16);
		lp[2] = (uint8_t)(size >> 8);
		lp[3] = (uint8_t)size;
		b[nb++] = uv_buf_init((char *)lp, 4);
		if (size)
			b[nb++] = uv_buf_init(tt->th.io.rq.buf, (unsigned int)size);
	} else {
		b[nb++] = uv_buf_init(tt->th.io.rq.buf, (unsigned int)tt->th.io.rq.len);
	}
	return nb;
}

static inline struct tcp_conn *tcp_conn_of(struct drv_slot *s)
{
	return container_of(s, struct tcp_conn, sc.base);
}

static inline struct drv_stats *tcp_conn_stats(struct tcp_conn *c)
{
	return drv_stream_stats(&c->sc);
}

/*
 * A complete response's outcome from its framing into r: HTTP status and version (a status
 * outside 2xx is an error), a protocol's (an LDAP search's resultCode and entries: tcp_ext.h), or
 * the verdict of the other rules (and a DNS RCODE).
 */
static inline void drv__tcp_outcome(const struct tcp_thread *tt, const struct drv_frame *f,
				    struct drv_timing_reply *r)
{
	if (tt->rule.rule == DRV_RESP_HTTP) {
		r->status = f->status;
		r->httpv = f->hp.http_minor ? DRV_HTTPV_1_1 : DRV_HTTPV_1_0;
		r->err = f->status < 200 || f->status > 299 ? DRV_E_HTTP_STATUS : 0;
	} else if (tt->app) {
		tt->app->outcome(f, r);
	} else {
		r->err = drv_frame_outcome(&tt->rule, f, &r->rcode);
	}
}

#endif /* LOADLENS_DRV_TCP_CONN_H */
