/* SPDX-License-Identifier: MIT */
/* redis (RESP2/RESP3): where a response ends, and whether it is an error reply (redis_frame.c):
 * --response resp's framing (framing/frame_ext.h). */
#ifndef LOADLENS_DRV_REDIS_FRAME_H
#define LOADLENS_DRV_REDIS_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "framing/frame_app.h"
#include "framing/frame_ext.h"

#define DRV_REDIS_MAX_COUNT (1ULL << 32) /* values still expected, at most */

/* Reset f's state before a response; feed returns the bytes used (<= n). *res is 0 while the
 * response is incomplete, 1 once it is complete (then *verdict is set), or DRV_E_MALFORMED. */
void drv_resp_reset(struct drv_frame *f);
size_t drv_resp_feed(struct drv_frame *f, const uint8_t *p, size_t n, int *res,
		     enum drv_app_verdict *verdict);

/* --response resp (DRV_RESP_RESP): these two, over a frame's app.ext. */
extern const struct drv_frame_ext drv_redis_frame;

#endif /* LOADLENS_DRV_REDIS_FRAME_H */
