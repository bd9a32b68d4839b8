/* SPDX-License-Identifier: MIT */
/* The refserver's gRPC reply message, serialised by libprotobuf (grpc_reply.cc). */
#ifndef LOADLENS_GRPC_REPLY_H
#define LOADLENS_GRPC_REPLY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The protobuf message holding LEN bytes at BYTES as length-delimited field number 15, a field
 * no message of a caller's .proto declares, so every decoder skips it. *out is malloc'd (free it);
 * returns 0 or -ENOMEM.
 */
int rs_grpc_reply_encode(const char *bytes, size_t len, char **out, size_t *outlen);

#ifdef __cplusplus
}
#endif

#endif /* LOADLENS_GRPC_REPLY_H */
