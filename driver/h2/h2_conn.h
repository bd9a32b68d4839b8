/* SPDX-License-Identifier: MIT */
/*
 * An HTTP/2 connection slot and its thread's state, as h2_engine.c (the connection's hooks on the
 * stream base, stream_conn.h: TLS, bytes in and out, close) and h2_stream.c (the libnghttp2
 * session: streams out, frames in) both see them. Private to the two; its connecting
 * (stream_conn.h) lasts from the connect to the session (TLS: the handshake's end). h2_engine.c
 * calls into h2_stream.c (h2_stream.h), and the session reaches the connection only through
 * h2__conn_fail() and the flags it sets.
 *
 * Streams work like -P's pipelined requests (proto_tcp_pipe.c): each is its own ticket from the
 * pacer (-n and --rate count requests), with its own send time and deadline; the slot takes the
 * next ticket as soon as the connection has room for another stream. They complete in any
 * order; those in flight are kept in send order too, so the oldest one's deadline is the slot's.
 */
#ifndef LOADLENS_DRV_H2_CONN_H
#define LOADLENS_DRV_H2_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <uv.h>
#include "base/drv.h"
#include "config/reqmix.h"
#include "h2/h2_ext.h"
#include "protocols/stream_conn.h"
#include "protocols/tls_conn.h"
#include "scheduling/slot.h"
#include "scheduling/worker.h"

#define H2_NONE UINT32_MAX /* no stream (list ends) */
#define H2_NV_MAX (DRV_MAX_HEADERS + 8) /* the request's headers: ours and -H's */

/* One request in flight: an HTTP/2 stream. */
struct h2_stream {
	struct drv_ticket ticket;
	uint64_t t_send;
	uint64_t deadline; /* 0: no --timeout */
	int32_t id;	   /* the stream id; 0: free */
	uint32_t prev, next; /* in flight, in send order */
	uint32_t rec;	     /* --requests-file record (grpc: the method's), when rec_live */
	bool rec_live;
	bool rst;	     /* the server sent RST_STREAM: rst_code */
	bool parked;	     /* refused by a GOAWAY: waits, in flight, for the next connection */
	bool retried;	     /* sent again after a GOAWAY refused it (once only) */
	const char *path;    /* grpc: its method's :path (NULL: the target's) */
	bool stalled;	     /* its body waited for a WINDOW_UPDATE (counted once) */
	int status;	     /* :status, 0 until it comes */
	uint64_t app[DRV_H2_EXT_WORDS]; /* grpc: the reply as it comes, checked (h2_ext.h) */
	uint32_t rst_code;
	const uint8_t *body; /* the request body (grpc: prefix and message), body_len bytes */
	size_t body_len, body_off;
};


struct h2_thread;

struct h2_conn {
	struct drv_stream sc;  /* leads: the slot base and the socket's life (stream_conn.h) */
	struct h2_thread *ht;
	nghttp2_session *sess; /* from the connect (h2c) or the handshake (TLS) to the close */
	struct drv_tls tls;    /* https://, grpcs:// */
	struct drv_stream_out o; /* the session's bytes for the socket (stream_conn.h) */
	struct h2_stream *st;  /* ht->streams of them */
	uint8_t *msgs;	       /* grpc: each stream's body, ht->msg_cap bytes apart */
	uint32_t *free_ids;    /* free entries of st */
	uint32_t nfree;
	uint32_t head, tail;   /* in flight, oldest first */
	uint32_t inflight;     /* in the list: sent, or parked */
	uint32_t parked;       /* of them, refused by a GOAWAY, waiting for the next connection */
	uint32_t body_waiting; /* streams whose body nghttp2 has not yet taken in full */
	uint64_t on_conn;      /* streams opened on this connection */
	uint64_t rx;	       /* bytes read on this connection */
	const char *not_h2;    /* not_h2: what the server's first bytes were instead (static) */
	int32_t goaway_last;   /* a GOAWAY's last stream id */
	uint32_t depth;	       /* inside a send or read: written on the way out */
	bool held;	       /* the slot's ticket waits here for room or a connection */
	bool settings;	       /* the server's SETTINGS came: it speaks HTTP/2 */
	bool goaway;	       /* the server sent GOAWAY: no new streams, close once drained */
	bool proto_err;	       /* a connection-level protocol error */
	bool finishing;	       /* the pacer is done: close once the last stream is in */
	bool pumping;	       /* inside pump() (h2_engine.c) */
};

struct h2_thread {
	struct drv_stream_thread th; /* leads: the read buffer, the engine's hooks */
	nghttp2_session_callbacks *cbs;
	nghttp2_option *opt;
	SSL_CTX *tls;		     /* https://, grpcs://; NULL: h2c */
	nghttp2_nv *nva;	     /* the request's headers, built once */
	size_t nnv;
	size_t path_nv;		     /* the index of :path in nva */
	char **owned;		     /* header strings made here (lower-cased names) */
	size_t nowned;
	char authority[LL_HOST_MAX + 16];
	char grpc_timeout[16];
	char content_length[24];
	char *plain;		     /* TLS: plaintext read buffer */
	size_t plain_len;
	uint64_t reconnect_every;    /* streams per connection; 0: unlimited */
	uint32_t streams;	     /* --streams */
	size_t msg_cap;		     /* grpc: 5 + the longest message */
	bool grpc;
	const struct drv_h2_ext *app; /* grpc: its messages and replies (h2_ext.h), else NULL */
	struct drv_mix_ctx mix_ctx;  /* grpc: the message builder's per-thread state */
};

static inline struct h2_conn *h2_conn_of(struct drv_slot *s)
{
	return container_of(s, struct h2_conn, sc.base);
}

static inline struct drv_stats *h2_conn_stats(struct h2_conn *c)
{
	return drv_stream_stats(&c->sc);
}

/* h2_engine.c: fail every stream in flight and the connection (counted), then drop it. */
void h2__conn_fail(struct h2_conn *c, int err);

#endif /* LOADLENS_DRV_H2_CONN_H */
