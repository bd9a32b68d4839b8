// SPDX-License-Identifier: MIT
/* memcached's UDP frame: reassembly of a multi-datagram reply by sequence number and count. */
#include <string.h>
#include "config/config.h"
#include "udp/udp_memcache.h"
#include "framing/frame_ext.h"
#include "base/errors.h"

int drv_mcudp_add(struct drv_mcudp *m, const uint8_t *p, size_t n, const struct drv_frame_ext *x)
{
	enum drv_app_verdict v = DRV_APP_OK;
	unsigned seq, total;
	uint8_t rcode;

	if (n < DRV_MCUDP_HDR)
		return DRV_E_MALFORMED;
	seq = (unsigned)p[2] << 8 | p[3];
	total = (unsigned)p[4] << 8 | p[5];
	if (!total || total > DRV_MCUDP_MAX || seq >= total || (m->total && total != m->total))
		return DRV_E_MALFORMED;
	if (!m->total) {
		m->total = (uint16_t)total;
		memset(m->seen, 0, (total + 63) / 64 * sizeof(m->seen[0]));
	}
	if (m->seen[seq / 64] & 1ULL << (seq % 64))
		return 2;
	m->seen[seq / 64] |= 1ULL << (seq % 64);
	m->got++;
	if (seq == 0 && x && !x->datagram(p + DRV_MCUDP_HDR, n - DRV_MCUDP_HDR, &v, &rcode))
		m->verdict = (uint8_t)v; /* memcached's first line (memcache/memcache_frame.c) */
	return m->got == m->total;
}
