/* SPDX-License-Identifier: MIT */
/* config_payload.c: a file's contents (at most DRV_MAX_SIZE bytes), --size, --response. */
#ifndef LOADLENS_DRV_CONFIG_PAYLOAD_H
#define LOADLENS_DRV_CONFIG_PAYLOAD_H

#include <stddef.h>
#include "config/config.h"
#include "config/option.h"

int drv__config_slurp(const char *opt, const char *path, char **out, size_t *len, char *err,
		       size_t errlen);
int drv__config_size(struct drv_config *cfg, const char *s, char *err, size_t errlen);
int drv__config_response(struct drv_config *cfg, const char *s, char *err, size_t errlen);

#endif /* LOADLENS_DRV_CONFIG_PAYLOAD_H */
