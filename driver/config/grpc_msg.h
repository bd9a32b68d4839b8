/* SPDX-License-Identifier: MIT */
/*
 * A gRPC call's request message, as the HTTP/2 engine (protocols/proto_h2.c) asks for one per
 * call: the interface the protobuf message builder implements (--proto-file and --message with
 * templates, and a --requests-file mix of methods). The engine writes the 5-byte gRPC prefix
 * (compressed flag, big-endian length) itself; the builder gives the serialized message only.
 *
 * grpc_msg.c is the stand-in until the builder lands: no messages configured (cfg->grpc_msgs
 * NULL), every call sends the empty message, which is valid for every proto3 message type.
 */
#ifndef LOADLENS_DRV_GRPC_MSG_H
#define LOADLENS_DRV_GRPC_MSG_H

#include <stddef.h>
#include <stdint.h>

#define DRV_GRPC_NO_REC UINT32_MAX /* drv_grpc_msg_next(): the call is no record of a mix */
#define DRV_GRPC_MSG_FAILED SIZE_MAX /* drv_grpc_msg_next(): no message (count the call failed) */

struct drv_grpc_msgs; /* built at parse time, owned by struct drv_config (grpc_msgs) */
struct drv_mix_ctx;   /* config/reqmix.h: per thread, the next record and templates' state */

/* The longest message drv_grpc_msg_next() writes (0 for NULL: the empty message only). */
size_t drv_grpc_msg_max(const struct drv_grpc_msgs *m);
/*
 * The next call, on a worker thread: its serialized message into buf (cap >= drv_grpc_msg_max()),
 * its method path into *path ("/package.Service/Method", stable for the run; NULL: the target
 * URL's), and the --requests-file record it came from into *rec (DRV_GRPC_NO_REC: none, so no
 * per-record count). Returns the message's length (m NULL: the empty message, 0), or
 * DRV_GRPC_MSG_FAILED when it could not be made (the engine counts the call failed, -EINVAL).
 */
size_t drv_grpc_msg_next(const struct drv_grpc_msgs *m, struct drv_mix_ctx *ctx, char *buf,
			 size_t cap, const char **path, uint32_t *rec);
/* drv_grpc_msgs_free(NULL) is a no-op. */
void drv_grpc_msgs_free(struct drv_grpc_msgs *m);

#endif /* LOADLENS_DRV_GRPC_MSG_H */
