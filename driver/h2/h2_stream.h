/* SPDX-License-Identifier: MIT */
/*
 * The libnghttp2 client session of an HTTP/2 connection (h2_conn.h): the request headers built
 * once per thread, streams opened with the slot's ticket, frames fed in and their outcomes timed
 * and counted (HTTP status, grpc-status, RST_STREAM by code, GOAWAY, malformed frames), and the
 * streams that never got an answer failed by cause. h2_engine.c drives it from the socket.
 */
#ifndef LOADLENS_DRV_H2_STREAM_H
#define LOADLENS_DRV_H2_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "h2/h2_conn.h"

struct drv_config;

/* Per thread: session callbacks and options, the request headers. 0 or -ENOMEM. */
int h2__thread_init(struct h2_thread *ht, const struct drv_config *cfg);
/* The request's headers into ht (nva, nnv, path_nv, authority), once: h2_headers.c. */
int h2__headers(struct h2_thread *ht, const struct drv_config *cfg);
void h2__thread_fini(struct h2_thread *ht);

/* The connection is up (TLS: its handshake over): a client session, its SETTINGS queued. */
int h2__session_new(struct h2_conn *c);
void h2__session_free(struct h2_conn *c);
/* Another stream may open now: the session is up, the connection not draining, fewer streams
 * in flight than --streams and the server's SETTINGS_MAX_CONCURRENT_STREAMS allow. */
bool h2__room(const struct h2_conn *c);
/* Open a stream for the slot's ticket (h2__room() said yes). False when its gRPC message could
 * not be made: the ticket is counted failed, and the slot's next one should wait for the loop. */
bool h2__stream_start(struct h2_conn *c);
/* Bytes from the server: 0, or the error that ends the connection (DRV_E_*). */
int h2__recv(struct h2_conn *c, const uint8_t *p, size_t n);
/* After a send: request bodies waiting for the server's flow-control window, counted once. */
void h2__stall_check(struct h2_conn *c);
/* A new session: the streams a GOAWAY refused on the last one, sent again (each once). */
void h2__streams_resubmit(struct h2_conn *c);
/* Fail every stream in flight, each counted by its cause (err when no better one). */
void h2__streams_fail(struct h2_conn *c, int err);
/* Streams past their deadline at now: reset (CANCEL) and counted ETIMEDOUT. */
void h2__streams_expire(struct h2_conn *c, uint64_t now);
/* The run stops: streams in flight are counted cancelled. */
void h2__streams_cancel(struct h2_conn *c);

#endif /* LOADLENS_DRV_H2_STREAM_H */
