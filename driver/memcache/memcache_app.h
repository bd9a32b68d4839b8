/* SPDX-License-Identifier: MIT */
/* --response memcache and --proto memcache-udp's replies as an application protocol
 * (config/app.h): its framing (memcache_app.c). */
#ifndef LOADLENS_DRV_MEMCACHE_APP_H
#define LOADLENS_DRV_MEMCACHE_APP_H

#include "config/app.h"

extern const struct drv_app drv_memcache_app;

#endif /* LOADLENS_DRV_MEMCACHE_APP_H */
