/* SPDX-License-Identifier: MIT */
/*
 * A framing a protocol brings (config/app.h's frame): where its replies end, for the response
 * rule it names (redis/, memcache/, dns/, ldap/). frame.c calls these for that rule and keeps the
 * protocol's per-connection state in struct drv_frame's app.ext, whose layout is the protocol's
 * own (it asserts it fits); udp:// calls its datagram hook (drv_frame_ext_for(), frame.h).
 */
#ifndef LOADLENS_DRV_FRAME_EXT_H
#define LOADLENS_DRV_FRAME_EXT_H

#include <stddef.h>
#include <stdint.h>
#include "config/config.h"
#include "framing/frame_app.h"

#define DRV_FRAME_EXT_WORDS 7 /* app.ext: 56 bytes, 8-aligned */

struct drv_frame;

struct drv_frame_ext {
	enum drv_resp_rule rule; /* the response rule it is (config.h) */
	/* Before each request: nothing answers yet (the protocol's engine then says what does). */
	void (*reset)(struct drv_frame *f);
	/* n bytes: the bytes used, *res and *verdict as the application framings (frame.c's). */
	size_t (*feed)(struct drv_frame *f, const uint8_t *p, size_t n, int *res,
		       enum drv_app_verdict *verdict);
	/* A connection slot's end: what its state holds goes; it can be used again (NULL: it holds
	 * nothing). */
	void (*free)(struct drv_frame *f);
	/* A reply over udp://: the datagram that is the whole message, or the first of a reply's
	 * datagrams after their frame header (memcached's). 0 with *verdict (and a DNS RCODE in
	 * *rcode), or DRV_E_MALFORMED. NULL: not over udp://. */
	int (*datagram)(const uint8_t *p, size_t n, enum drv_app_verdict *verdict, uint8_t *rcode);
};

#endif /* LOADLENS_DRV_FRAME_EXT_H */
