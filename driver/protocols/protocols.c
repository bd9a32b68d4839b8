// SPDX-License-Identifier: MIT
/* Which protocol drives a configuration. */
#include "config/config.h"
#include "config/engine.h"
#include "protocols/protocols.h"

const struct drv_proto *drv_proto_for(const struct drv_config *cfg)
{
	const struct drv_engine *e = drv_config_engine(cfg); /* h2/, udp/ */

	if (e)
		return e->proto; /* --http2 on the native engine, grpc://, grpcs://; udp:// */
	switch (cfg->url.scheme) {
	case LL_SCHEME_TCP:
		return &drv_proto_tcp;
	case LL_SCHEME_HTTP:
		return cfg->http_engine == DRV_HTTP_CURL ? &drv_proto_http_curl
							  : &drv_proto_http_native;
	case LL_SCHEME_HTTPS:
		return &drv_proto_http_curl; /* HTTP/1.1 over TLS is libcurl's */
	default:
		return NULL;
	}
}
