// SPDX-License-Identifier: MIT
/* --response resp's table (redis_app.h): its framing (redis_frame.c), nothing else of its own; its
 * error replies are counted in the resp_error class. */
#include "redis/redis_app.h"
#include "redis/redis_frame.h"

const struct drv_app drv_redis_app = {
	.name = "redis",
	.frame = &drv_redis_frame,
};
