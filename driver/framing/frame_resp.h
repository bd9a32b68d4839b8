/* SPDX-License-Identifier: MIT */
/* redis (RESP2/RESP3): where a response ends, and whether it is an error reply (frame_resp.c). */
#ifndef LOADLENS_DRV_FRAME_RESP_H
#define LOADLENS_DRV_FRAME_RESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "framing/frame_app.h"

struct drv_resp_state {
	uint64_t need; /* values still to complete the response */
	uint64_t num;  /* the number on a length line */
	uint64_t left; /* bulk bytes still to skip */
	uint8_t st;
	uint8_t type;
	uint8_t ndig;
	bool neg;
	bool started;
};

/* Reset before a response; feed returns the bytes used (<= n). *res is 0 while the response
 * is incomplete, 1 once it is complete (then *verdict is set), or
 * DRV_E_MALFORMED. */
void drv_resp_reset(struct drv_resp_state *s);
size_t drv_resp_feed(struct drv_resp_state *s, const uint8_t *p, size_t n, int *res,
		     enum drv_app_verdict *verdict);

#endif /* LOADLENS_DRV_FRAME_RESP_H */
