// SPDX-License-Identifier: MIT
/* What the running libcurl can do, for a run on the libcurl engine (http_config.h). */
#include <curl/curl.h>
#include "config/option.h"
#include "http/http_config.h"

int drv__config_check_curl(const struct drv_config *cfg, char *err, size_t errlen)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

	if (cfg->url.scheme == LL_SCHEME_HTTPS && !(v->features & CURL_VERSION_SSL))
		return drv__config_fail(err, errlen, "https://: this libcurl (%s) was built without TLS",
			       v->version);
	if (cfg->http2 && !(v->features & CURL_VERSION_HTTP2))
		return drv__config_fail(err, errlen, "--http2: this libcurl (%s) was built without HTTP/2",
			       v->version);
	/* before 8.0.0 the second request on an h2c connection fails (curl/curl GitHub 10634) */
	if (cfg->http2 && cfg->url.scheme == LL_SCHEME_HTTP && v->version_num < 0x080000 &&
	    cfg->conn_model != DRV_CONN_NEW)
		return drv__config_fail(err, errlen,
			       "--http2 over http:// (h2c) cannot reuse connections with "
			       "libcurl %s (fixed in 8.0.0): use https://, or --new-conn",
			       v->version);
	return 0;
}
