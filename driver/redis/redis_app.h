/* SPDX-License-Identifier: MIT */
/* --response resp (redis) as an application protocol (config/app.h): its framing and its records
 * (redis_app.c). */
#ifndef LOADLENS_DRV_REDIS_APP_H
#define LOADLENS_DRV_REDIS_APP_H

#include "config/app.h"

extern const struct drv_app drv_redis_app;

#endif /* LOADLENS_DRV_REDIS_APP_H */
