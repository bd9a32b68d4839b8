// SPDX-License-Identifier: MIT
/* The udp:// options: --id OFFSET:WIDTH (a per-request id stamped into --payload), --rcvbuf, and
 * their checks (udp_app.c's engine table: config/engine.h's opt and check). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/option.h"
#include "udp/udp_config.h"

#define DRV_MAX_RCVBUF (1ULL << 30)

int drv__config_id(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	const char *colon = strchr(s, ':');
	char off[24];
	uint64_t o, w;
	size_t n = colon ? (size_t)(colon - s) : 0;

	if (!colon || !n || n >= sizeof(off))
		return drv__config_fail(err, errlen, "--id %.40s: expected OFFSET:WIDTH, e.g. 0:2", s);
	memcpy(off, s, n);
	off[n] = '\0';
	if (ll_parse_u64(off, 0, DRV_MAX_UDP_SIZE, &o) || ll_parse_u64(colon + 1, 1, 8, &w))
		return drv__config_fail(err, errlen,
					"--id %.40s: OFFSET is a byte offset, WIDTH 1 to 8 bytes", s);
	cfg->id_offset = (unsigned)o;
	cfg->id_width = (unsigned)w;
	return 0;
}

int drv__config_rcvbuf(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	return drv__config_num("--rcvbuf", s, 1024, DRV_MAX_RCVBUF, &cfg->rcvbuf, err, errlen);
}

int drv__config_check_udp(const struct drv_config *cfg, char *err, size_t errlen)
{
	bool udp = cfg->url.scheme == LL_SCHEME_UDP;

	if (cfg->rcvbuf && !udp)
		return drv__config_fail(err, errlen, "--rcvbuf is for udp://");
	if (!cfg->id_width)
		return 0;
	if (!udp || (!cfg->payload && !cfg->mix))
		return drv__config_fail(err, errlen,
					"--id goes with udp:// and --payload FILE (without a "
					"payload file the driver's own tag is the id)");
	if (cfg->payload && (uint64_t)cfg->id_offset + cfg->id_width > cfg->payload_len)
		return drv__config_fail(err, errlen,
					"--id %u:%u: the payload has only %zu bytes", cfg->id_offset,
					cfg->id_width, cfg->payload_len);
	return 0;
}
