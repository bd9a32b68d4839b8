/* SPDX-License-Identifier: MIT */
/* redis's --requests-file records (redis_request.c): a command line `SET key:{{rand:1-9}} v` made
 * into a RESP array, --response resp's record hook (config/app.h). */
#ifndef LOADLENS_DRV_REDIS_REQUEST_H
#define LOADLENS_DRV_REDIS_REQUEST_H

#include <stddef.h>

struct drv_config;

/* With --response resp, a line `CMD ARG...` (not one already in RESP, starting '*'): its RESP
 * array into *src (malloc'd, *n bytes) and 1; 0 for another line or rule; -EINVAL with one line
 * in err. */
int drv_redis_record(const struct drv_config *cfg, char *line, char **src, size_t *n, char *err,
		     size_t errlen);

#endif /* LOADLENS_DRV_REDIS_REQUEST_H */
