/* SPDX-License-Identifier: MIT */
/* memcached over UDP: a reply's datagrams (udp_memcache.c). */
#ifndef LOADLENS_DRV_UDP_MEMCACHE_H
#define LOADLENS_DRV_UDP_MEMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config/config.h"
#include "framing/frame_app.h"
#include "framing/frame_ext.h"

/*
 * memcached over UDP: every datagram starts with an 8-byte frame header (request id, sequence
 * number, datagram count, reserved; big-endian 16-bit each). A reply is complete once all its
 * datagrams are in, whatever their order.
 */
#define DRV_MCUDP_MAX 1024 /* datagrams of one reply, at most (~1.4 MB) */

struct drv_mcudp {
	uint16_t total; /* datagrams of the reply, 0 until the first is in */
	uint16_t got;
	uint8_t verdict; /* from the first datagram's first line */
	uint64_t seen[DRV_MCUDP_MAX / 64];
};

static inline void drv_mcudp_reset(struct drv_mcudp *m)
{
	m->total = 0;
	m->got = 0;
	m->verdict = DRV_APP_OK;
}
/* One datagram of the reply (id already matched): 1 complete, 0 more to come, 2 a datagram seen
 * before (a duplicate), DRV_E_MALFORMED (short, a count that changed, a sequence past it). The
 * first datagram's verdict is x's (memcached's framing, frame_ext.h's datagram). */
int drv_mcudp_add(struct drv_mcudp *m, const uint8_t *p, size_t n, const struct drv_frame_ext *x);

#endif /* LOADLENS_DRV_UDP_MEMCACHE_H */
