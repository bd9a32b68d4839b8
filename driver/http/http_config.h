/* SPDX-License-Identifier: MIT */
/* http_config.c: what the running libcurl can do, checked for a run on the libcurl engine. */
#ifndef LOADLENS_DRV_HTTP_CONFIG_H
#define LOADLENS_DRV_HTTP_CONFIG_H

#include <stddef.h>
#include "config/config.h"

/* TLS for https://, HTTP/2 for --http2, and reuse of a prior-knowledge h2c connection (libcurl
 * before 8.0.0 cannot): 0 or -EINVAL with one line in err. */
int drv__config_check_curl(const struct drv_config *cfg, char *err, size_t errlen);

#endif /* LOADLENS_DRV_HTTP_CONFIG_H */
