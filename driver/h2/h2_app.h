/* SPDX-License-Identifier: MIT */
/* The native HTTP/2 engine in its own folder (config/engine.h): its hooks in each layer
 * (h2_app.c). */
#ifndef LOADLENS_DRV_H2_APP_H
#define LOADLENS_DRV_H2_APP_H

#include "config/engine.h"

extern const struct drv_engine drv_h2_engine;

#endif /* LOADLENS_DRV_H2_APP_H */
