// SPDX-License-Identifier: MIT
/*
 * The libcurl engine's table (http_app.h): http:// with --http-engine curl and https:// (but
 * --http2 on the native engine, h2/'s): what this libcurl can do (http_config.c) and its slots
 * (http_engine.c, with http_curl_codes.c). The HTTP options, the native HTTP/1.1 engine and the
 * HTTP lines of the report are shared, below (config/config_http.c, protocols/proto_tcp.c).
 */
#include "config/config.h"
#include "http/http_app.h"
#include "http/http_config.h"
#include "http/http_engine.h"

static bool on(const struct drv_config *cfg)
{
	/* https:// is libcurl's unless it is the native HTTP/2 engine's (the parse makes its
	 * http_engine DRV_HTTP_CURL) */
	if (cfg->url.scheme == LL_SCHEME_HTTPS)
		return !drv_config_h2(cfg);
	return cfg->url.scheme == LL_SCHEME_HTTP && cfg->http_engine == DRV_HTTP_CURL;
}

const struct drv_engine drv_curl_engine = {
	.name = "curl", .on = on, .check_run = drv__config_check_curl, .proto = &drv_proto_http_curl,
};
