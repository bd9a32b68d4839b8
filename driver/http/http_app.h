/* SPDX-License-Identifier: MIT */
/* The libcurl engine in its own folder (config/engine.h): its hooks in each layer (http_app.c). */
#ifndef LOADLENS_DRV_HTTP_APP_H
#define LOADLENS_DRV_HTTP_APP_H

#include "config/engine.h"

extern const struct drv_engine drv_curl_engine;

#endif /* LOADLENS_DRV_HTTP_APP_H */
