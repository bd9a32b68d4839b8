// SPDX-License-Identifier: MIT
/* --response resp's table (redis_app.h): its framing (redis_frame.c) and its --requests-file
 * records (redis_request.c); its error replies are counted in the resp_error class. */
#include "redis/redis_app.h"
#include "redis/redis_frame.h"
#include "redis/redis_request.h"

const struct drv_app drv_redis_app = {
	.name = "redis",
	.record = drv_redis_record,
	.frame = &drv_redis_frame,
};
