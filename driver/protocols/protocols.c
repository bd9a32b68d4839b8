// SPDX-License-Identifier: MIT
/* Which protocol drives a configuration. */
#include "config/config.h"
#include "config/engine.h"
#include "protocols/protocols.h"

const struct drv_proto *drv_proto_for(const struct drv_config *cfg)
{
	/* a registered engine's: --http2 on the native engine, grpc://, grpcs:// (h2/); udp://
	 * (udp/); https:// and --http-engine curl, libcurl's (http/) */
	const struct drv_engine *e = drv_config_engine(cfg);

	if (e)
		return e->proto;
	switch (cfg->url.scheme) {
	case LL_SCHEME_TCP:
		return &drv_proto_tcp;
	case LL_SCHEME_HTTP:
		return &drv_proto_http_native;
	default:
		return NULL;
	}
}
