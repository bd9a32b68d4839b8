/* SPDX-License-Identifier: MIT */
/*
 * A unary gRPC reply, checked as its pieces come (grpc/doc/PROTOCOL-HTTP2.md): the response
 * headers' content-type, the DATA walked as Length-Prefixed-Messages (a flag byte, 0 or 1, then a
 * 4-byte big-endian length and that many bytes), and the grpc-status of the header block that ends
 * the stream. At the end one verdict, the first rule broken in this order:
 *
 *   DRV_E_GRPC_CONTENT_TYPE  the response's content-type is missing, or not application/grpc
 *                            (application/grpc+proto and application/grpc;params are);
 *   DRV_E_GRPC_FRAMING       the DATA ends inside a prefix or short of a message's declared
 *                            length (a prefix of 100 with 3 bytes behind it), or a flag byte is
 *                            neither 0 nor 1;
 *   DRV_E_GRPC_COMPRESSED    a message flagged compressed: the driver offers no grpc-encoding,
 *                            so none was negotiated;
 *   DRV_E_GRPC_MESSAGES      two messages or more, or none with grpc-status OK (a unary call has
 *                            exactly one answer; an error status may come with none);
 *   DRV_E_GRPC_TRAILERS      the stream ended on DATA (no trailers), or its last header block had
 *                            no grpc-status, or one that is not a decimal number;
 *   DRV_E_GRPC               well formed, with a status other than OK;
 *   0                        well formed and OK.
 *
 * Pure: the HTTP/2 session (h2/h2_stream.c) feeds it; tests/unit/test_driver_frame_grpc.c.
 */
#ifndef LOADLENS_DRV_GRPC_FRAME_H
#define LOADLENS_DRV_GRPC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRV_GRPC_PREFIX 5 /* a message's flag byte and 4-byte length */

struct drv_grpc_reply {
	uint32_t left;	   /* bytes due of the message read (in its prefix: the length so far) */
	uint32_t messages; /* messages begun (their prefix read) */
	int16_t status;	   /* this header block's grpc-status index; -1 none, -2 not a number */
	uint8_t have;	   /* bytes of the next prefix read, 0..4 */
	uint8_t ctype;	   /* the response's content-type (grpc_frame.c) */
	bool broken;	   /* a flag byte other than 0 and 1: the rest is not walked */
	bool compressed;   /* a message was flagged compressed */
};

/* Before a call. */
void drv_grpc_reply_init(struct drv_grpc_reply *r);
/* A header block begins: its own grpc-status is the one that counts; response: the (final)
 * response headers, whose content-type counts (after a 1xx, the next block's). */
void drv_grpc_reply_block(struct drv_grpc_reply *r, bool response);
/* One header of the block; response: it is in the response headers (not the trailers). */
void drv_grpc_reply_header(struct drv_grpc_reply *r, bool response, const uint8_t *name,
			   size_t namelen, const uint8_t *value, size_t valuelen);
/* n bytes of the stream's DATA, in order, split anywhere. */
void drv_grpc_reply_data(struct drv_grpc_reply *r, const uint8_t *p, size_t n);
/*
 * The stream ended (END_STREAM) on a header block (by_headers) or on DATA: the verdict above.
 * *status: the grpc-status index to count (0 OK .. LL_GRPC_OTHER) when the reply is well formed
 * (0 or DRV_E_GRPC), else -1.
 */
int drv_grpc_reply_end(const struct drv_grpc_reply *r, bool by_headers, int *status);
/* A content-type value gRPC takes: application/grpc, alone or with +format or ;parameters. */
bool drv_grpc_content_type_ok(const uint8_t *v, size_t len);

#endif /* LOADLENS_DRV_GRPC_FRAME_H */
