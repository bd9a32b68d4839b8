/* SPDX-License-Identifier: MIT */
/* udp_config.c: --id OFFSET:WIDTH, --rcvbuf BYTES, and their checks once the target is known. */
#ifndef LOADLENS_DRV_UDP_CONFIG_H
#define LOADLENS_DRV_UDP_CONFIG_H

#include <stddef.h>
#include "config/config.h"
#include "config/option.h"

int drv__config_id(struct drv_config *cfg, const char *s, char *err, size_t errlen);
int drv__config_rcvbuf(struct drv_config *cfg, const char *s, char *err, size_t errlen);
int drv__config_check_udp(const struct drv_config *cfg, char *err, size_t errlen);

#endif /* LOADLENS_DRV_UDP_CONFIG_H */
