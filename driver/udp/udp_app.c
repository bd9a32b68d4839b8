// SPDX-License-Identifier: MIT
/*
 * udp://'s table (udp_app.h): its options and checks (udp_config.c), its summary lines
 * (udp_report.c) and its slots (udp_engine.c, with udp_id.c and udp_memcache.c).
 */
#include <string.h>
#include "config/config.h"
#include "udp/udp_app.h"
#include "udp/udp_config.h"
#include "udp/udp_engine.h"
#include "udp/udp_report.h"

static int opt(struct drv_config *cfg, const char *name, const char *v, char *err, size_t errlen)
{
	if (!strcmp(name, "id"))
		return drv__config_id(cfg, v, err, errlen);
	return drv__config_rcvbuf(cfg, v, err, errlen); /* "rcvbuf" */
}

static bool on(const struct drv_config *cfg)
{
	return cfg->url.scheme == LL_SCHEME_UDP;
}

const struct drv_engine drv_udp_engine = {
	.name = "udp", .on = on, .opt = opt, .check = drv__config_check_udp,
	.text = drv_report_udp, .proto = &drv_proto_udp,
};
