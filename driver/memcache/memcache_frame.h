/* SPDX-License-Identifier: MIT */
/* memcached's text protocol: where a response ends, and its verdict (memcache_frame.c):
 * --response memcache's framing, and --proto memcache-udp's first line (framing/frame_ext.h). */
#ifndef LOADLENS_DRV_MEMCACHE_FRAME_H
#define LOADLENS_DRV_MEMCACHE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "framing/frame_app.h"
#include "framing/frame_ext.h"

#define DRV_MC_MAX_LINE 4096 /* bytes of one response line, at most */

/* Reset f's state before a response; feed returns the bytes used (<= n). *res is 0 while the
 * response is incomplete, 1 once it is complete (then *verdict is set), or DRV_E_MALFORMED. */
void drv_mc_reset(struct drv_frame *f);
size_t drv_mc_feed(struct drv_frame *f, const uint8_t *p, size_t n, int *res,
		   enum drv_app_verdict *verdict);

/* The first line of a memcached reply (a UDP reply's first datagram, after its frame header). */
enum drv_app_verdict drv_mc_first_line(const uint8_t *p, size_t n);

/* --response memcache (DRV_RESP_MEMCACHE): these, over a frame's app.ext; over udp:// the first
 * line of a reply's first datagram. */
extern const struct drv_frame_ext drv_memcache_frame;

#endif /* LOADLENS_DRV_MEMCACHE_FRAME_H */
