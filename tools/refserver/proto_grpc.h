/* SPDX-License-Identifier: MIT */
/* gRPC on the refserver's HTTP/2 streams (proto_grpc.c), called by proto_h2.c's session. */
#ifndef LOADLENS_PROTO_GRPC_H
#define LOADLENS_PROTO_GRPC_H

#include "h2_stream.h"

/*
 * A complete request: a gRPC call is counted under its method and true returned; anything else
 * is answered at once (415, or grpc-status UNIMPLEMENTED or INTERNAL), counted, and false.
 */
bool rs_grpc_admit(struct rs_h2_conn *h, struct rs_h2_stream *st);
/* Answer the call: the reply message, then trailers with grpc-status (--grpc-status by seq). */
int rs_grpc_respond(struct rs_h2_conn *h, struct rs_h2_stream *st, uint64_t seq);
void rs_grpc_release(void);

#endif /* LOADLENS_PROTO_GRPC_H */
