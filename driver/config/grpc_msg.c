// SPDX-License-Identifier: MIT
/*
 * The stand-in for the protobuf message builder (grpc_msg.h): no message is configured, so every
 * gRPC call sends the empty message (0 bytes: every field at its default), which any proto3
 * request type accepts.
 */
#include <stddef.h>
#include "config/grpc_msg.h"

size_t drv_grpc_msg_max(const struct drv_grpc_msgs *m)
{
	(void)m;
	return 0;
}

size_t drv_grpc_msg_next(const struct drv_grpc_msgs *m, struct drv_mix_ctx *ctx, char *buf,
			 size_t cap, const char **path, uint32_t *rec)
{
	(void)m;
	(void)ctx;
	(void)buf;
	(void)cap;
	*path = NULL;
	*rec = DRV_GRPC_NO_REC;
	return 0;
}

void drv_grpc_msgs_free(struct drv_grpc_msgs *m)
{
	(void)m;
}
