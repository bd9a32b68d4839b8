/* SPDX-License-Identifier: MIT */
/*
 * HTTP/2 (h2c by prior knowledge) on a refserver connection: its streams and the response writer
 * (h2_stream.c), under proto_h2.c (the nghttp2 session, the misbehaviour switches) and
 * proto_grpc.c (gRPC on those streams).
 */
#ifndef LOADLENS_H2_STREAM_H
#define LOADLENS_H2_STREAM_H

#include <nghttp2/nghttp2.h>
#include "refserver.h"

/* a header of constant name and value, which nghttp2 need not copy */
#define RS_NV(n, v)                                                                        \
	{                                                                                  \
		(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1,              \
			NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE       \
	}

/* One request stream; hangs on its stream id (nghttp2_session_set_stream_user_data). */
struct rs_h2_stream {
	struct rs_h2_stream *prev, *next;   /* the connection's open streams */
	struct rs_h2_stream *qprev, *qnext; /* its complete requests waiting, in END_STREAM order */
	int32_t id;
	bool queued;
	bool head; /* :method HEAD */
	bool post; /* :method POST */
	bool grpc_type; /* content-type application/grpc[+fmt][;params] */
	/* the response body on its way out, and the trailers that follow it */
	const char *body;
	size_t body_len, body_off;
	const nghttp2_nv *trailers;
	size_t ntrailers;
	/* grpc: the request's messages and method path (path_len > RS_GRPC_PATH_MAX - 1: cut) */
	struct rs_grpc_scan scan;
	size_t path_len;
	char path[RS_GRPC_PATH_MAX];
};

/* The connection's HTTP/2 state (struct rs_conn's h2). */
struct rs_h2_conn {
	struct rs_conn *c;
	nghttp2_session *session;
	struct rs_h2_stream *streams;	  /* open streams */
	struct rs_h2_stream *qhead, *qtail; /* complete requests to serve, oldest first */
	struct rs_buf out;		  /* session output not yet handed to rs_conn_send */
	uint64_t opened;		  /* request streams the peer opened */
	bool goaway_submitted; /* --goaway-after reached */
	bool goaway_pause;     /* pause the input at the next header until the GOAWAY is out */
	bool goaway_sent;
	bool broken; /* a connection error: counted once in protocol_errors */
};

/*
 * Submit the response of stream st: :status STATUS and the NV headers, then BODY (constant,
 * outliving the stream) unless it is empty, then the TRAILERS if any (the last frame carries
 * END_STREAM). Counts the status. 0 or a negative nghttp2 error.
 */
/* Submit stream st's response: :status, the nv headers, the body, then the trailers if any. */
int rs_h2_respond(struct rs_h2_conn *h, struct rs_h2_stream *st, int status,
		  const nghttp2_nv *nv, size_t nvlen, const char *body, size_t len,
		  const nghttp2_nv *trailers, size_t ntrailers);

#endif /* LOADLENS_H2_STREAM_H */
