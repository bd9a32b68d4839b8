/* SPDX-License-Identifier: MIT */
/* config_http.c: -H, --cacert and the http:// and https:// checks. */
#ifndef LOADLENS_DRV_CONFIG_HTTP_H
#define LOADLENS_DRV_CONFIG_HTTP_H

#include <stddef.h>
#include "config/config.h"
#include "config/option.h"

/* -H 'Name: value' */
int drv__config_header(struct drv_config *cfg, const char *s, char *err, size_t errlen);
/* --cacert FILE: must be readable now, so a typo is a usage error, not N TLS errors. */
int drv__config_cacert(struct drv_config *cfg, const char *path, char *err, size_t errlen);
/*
 * The http:// and https:// checks: options for other schemes, the engine (https:// without
 * --http2 goes through libcurl), then the engine's own (config/engine.h: libcurl's), TLS and
 * HTTP/2 combinations, the method. 0 or -EINVAL with one line.
 */
int drv__config_check_http(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			   size_t errlen);

#endif /* LOADLENS_DRV_CONFIG_HTTP_H */
