// SPDX-License-Identifier: MIT
/* memcached's table (memcache_app.h): its framing over tcp:// and its first line over udp://
 * (memcache_frame.c); the UDP frame header is the udp engine's (udp/udp_memcache.c). */
#include "memcache/memcache_app.h"
#include "memcache/memcache_frame.h"

const struct drv_app drv_memcache_app = {
	.name = "memcache",
	.frame = &drv_memcache_frame,
};
