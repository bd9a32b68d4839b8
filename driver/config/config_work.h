/* SPDX-License-Identifier: MIT */
/* config_work.c: --proto memcache-udp, --hdr-log, --requests-file, --seed, -P/--pipeline (name
 * is the option without dashes), and their checks once the target is known (before the udp ones:
 * memcache-udp sets the --id of its frame header). */
#ifndef LOADLENS_DRV_CONFIG_WORK_H
#define LOADLENS_DRV_CONFIG_WORK_H

#include <stddef.h>
#include "config/config.h"
#include "config/option.h"

int drv__config_work_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen);
int drv__config_work_check(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			   size_t errlen);

#endif /* LOADLENS_DRV_CONFIG_WORK_H */
