/* SPDX-License-Identifier: MIT */
/*
 * A protocol's part of the HTTP/2 engine (config/app.h's h2: gRPC's messages and replies):
 * h2_stream.c calls these where the run is the protocol's (ht->app) and never names it. A
 * request's body is the protocol's next message; a reply is fed to it as it comes, header block by
 * header block and DATA in order, and its end says what the reply came to. Its per-stream state
 * is kept opaque in struct h2_stream (h2_conn.h's app), whose layout is the protocol's own.
 */
#ifndef LOADLENS_DRV_H2_EXT_H
#define LOADLENS_DRV_H2_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRV_H2_EXT_WORDS 2 /* a stream's protocol state: 16 bytes, 8-aligned */
#define DRV_H2_NO_REC UINT32_MAX     /* msg_next(): the call is no record of a mix */
#define DRV_H2_MSG_FAILED SIZE_MAX   /* msg_next(): no message (count the call failed) */

struct drv_config;
struct drv_mix_ctx;

struct drv_h2_ext {
	/* The longest message it makes for cfg (0: none). */
	size_t (*msg_max)(const struct drv_config *cfg);
	/* The next message into buf (at most cap bytes), its method path into *path (NULL: the
	 * target's) and its record into *rec (DRV_H2_NO_REC: none): its length, or
	 * DRV_H2_MSG_FAILED. */
	size_t (*msg_next)(const struct drv_config *cfg, struct drv_mix_ctx *ctx, char *buf,
			   size_t cap, const char **path, uint32_t *rec);
	/* A stream's reply, fed as it comes (state: the stream's app): before the request; a
	 * header block begins (response: the response headers, else trailers); one header of it;
	 * n bytes of DATA; the stream ended (on a header block: by_headers): 0 or a DRV_E_* code,
	 * and *status the protocol's status to count (-1: none). */
	void (*reply_init)(void *state);
	void (*reply_block)(void *state, bool response);
	void (*reply_header)(void *state, bool response, const uint8_t *name, size_t namelen,
			     const uint8_t *value, size_t valuelen);
	void (*reply_data)(void *state, const uint8_t *p, size_t n);
	int (*reply_end)(const void *state, bool by_headers, int *status);
};

#endif /* LOADLENS_DRV_H2_EXT_H */
