// SPDX-License-Identifier: MIT
/* memcached's UDP frame: reassembly of a multi-datagram reply by sequence number and count. */
#include <string.h>
#include "config/config.h"
#include "udp/udp_memcache.h"
#include "framing/frame_memcache.h"
#include "base/errors.h"

int drv_mcudp_add(struct drv_mcudp *m, const uint8_t *p, size_t n)
{
	unsigned seq, total;

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
	if (seq == 0)
		m->verdict = (uint8_t)drv_mc_first_line(p + DRV_MCUDP_HDR, n - DRV_MCUDP_HDR);
	return m->got == m->total;
}
