/* SPDX-License-Identifier: MIT */
/* udp:// as an engine in its own folder (config/engine.h): its hooks in each layer (udp_app.c). */
#ifndef LOADLENS_DRV_UDP_APP_H
#define LOADLENS_DRV_UDP_APP_H

#include "config/engine.h"

extern const struct drv_engine drv_udp_engine;

#endif /* LOADLENS_DRV_UDP_APP_H */
