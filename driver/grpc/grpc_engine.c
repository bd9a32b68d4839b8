// SPDX-License-Identifier: MIT
/* gRPC over the HTTP/2 engine (grpc_engine.h): the messages of grpc/grpc_msg.h, the replies of
 * grpc/grpc_frame.h over a stream's protocol state. */
#include <stdalign.h>
#include "config/config.h"
#include "grpc/grpc_msg.h"
#include "grpc/grpc_frame.h"
#include "grpc/grpc_engine.h"

_Static_assert(sizeof(struct drv_grpc_reply) <= DRV_H2_EXT_WORDS * sizeof(uint64_t) &&
		       alignof(struct drv_grpc_reply) <= alignof(uint64_t),
	       "struct drv_grpc_reply must fit a stream's protocol state (h2_ext.h)");

_Static_assert(LL_GRPC_NO_REC == DRV_H2_NO_REC && LL_GRPC_MSG_FAILED == DRV_H2_MSG_FAILED,
	       "grpc_msg.h's and h2_ext.h's return values are one");

static size_t msg_max(const struct drv_config *cfg)
{
	return drv_grpc_msg_max(cfg->grpc_msgs);
}

static size_t msg_next(const struct drv_config *cfg, struct drv_mix_ctx *ctx, char *buf,
		       size_t cap, const char **path, uint32_t *rec)
{
	return drv_grpc_msg_next(cfg->grpc_msgs, ctx, buf, cap, path, rec);
}

static void reply_init(void *state)
{
	drv_grpc_reply_init(state);
}

static void reply_block(void *state, bool response)
{
	drv_grpc_reply_block(state, response);
}

static void reply_header(void *state, bool response, const uint8_t *name, size_t namelen,
			 const uint8_t *value, size_t valuelen)
{
	drv_grpc_reply_header(state, response, name, namelen, value, valuelen);
}

static void reply_data(void *state, const uint8_t *p, size_t n)
{
	drv_grpc_reply_data(state, p, n);
}

static int reply_end(const void *state, bool by_headers, int *status)
{
	return drv_grpc_reply_end(state, by_headers, status);
}

const struct drv_h2_ext drv_grpc_h2 = {
	.msg_max = msg_max, .msg_next = msg_next, .reply_init = reply_init,
	.reply_block = reply_block, .reply_header = reply_header, .reply_data = reply_data,
	.reply_end = reply_end,
};
