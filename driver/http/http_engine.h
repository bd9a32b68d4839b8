/* SPDX-License-Identifier: MIT */
/* The libcurl engine's slots (http_engine.c), reached through its engine table (http_app.c). */
#ifndef LOADLENS_DRV_HTTP_ENGINE_H
#define LOADLENS_DRV_HTTP_ENGINE_H

#include "scheduling/protocol.h"

extern const struct drv_proto drv_proto_http_curl;

#endif /* LOADLENS_DRV_HTTP_ENGINE_H */
