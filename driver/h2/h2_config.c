// SPDX-License-Identifier: MIT
/* --streams and the grpc:// and grpcs:// targets (h2_config.h). */
#include <errno.h>
#include <string.h>
#include "config/config.h"
#include "h2/h2_config.h"
#include "config/option.h"

int drv_config_grpc_path(const char *path)
{
	const char *svc = path + 1, *slash;
	size_t i;

	if (path[0] != '/')
		return -EINVAL;
	slash = strchr(svc, '/');
	if (!slash || slash == svc || !slash[1] || strchr(slash + 1, '/'))
		return -EINVAL;
	for (i = 0; path[i]; i++)
		if (path[i] == '?' || path[i] == '#' || path[i] == '%')
			return -EINVAL;
	return 0;
}

static int config_grpc(struct drv_config *cfg, const struct drv__seen *seen, char *err,
		       size_t errlen)
{
	if (seen->http_only)
		return drv__config_fail(err, errlen,
					"-m, --body, --body-file, --http-close, --http-engine and "
					"--http2 are for http:// and https://: a gRPC call is a "
					"POST over HTTP/2 (-H adds metadata)");
	/* --payload, --size and the messages: grpc_config.c; a --requests-file names its methods */
	if (!cfg->mix && drv_config_grpc_path(cfg->url.path))
		return drv__config_fail(err, errlen,
					"%s: a gRPC target names its method, e.g. "
					"grpc://127.0.0.1:50051/package.Service/Method",
					cfg->url_text);
	if (cfg->nsources)
		return drv__config_fail(err, errlen, "--source-addr goes with tcp:// and HTTP/1.1 "
					"on the native engine");
	if (cfg->insecure && cfg->cacert)
		return drv__config_fail(err, errlen, "--insecure skips the verification --cacert "
					"is for: give one of them");
	cfg->method = "POST";
	return 0;
}

int drv__config_check_h2(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			 size_t errlen)
{
	if (cfg->streams > 1 && !drv_config_h2(cfg))
		return drv__config_fail(err, errlen,
					"--streams goes with the native HTTP/2 engine: http:// or "
					"https:// with --http2 (not --http-engine curl), grpc:// "
					"or grpcs:// (-P pipelines HTTP/1.1)");
	if (ll_scheme_is_grpc(cfg->url.scheme))
		return config_grpc(cfg, seen, err, errlen);
	return 0;
}
