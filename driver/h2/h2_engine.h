/* SPDX-License-Identifier: MIT */
/* The native HTTP/2 engine's slots (h2_engine.c), reached through its engine table (h2_app.c). */
#ifndef LOADLENS_DRV_H2_ENGINE_H
#define LOADLENS_DRV_H2_ENGINE_H

#include "scheduling/protocol.h"

extern const struct drv_proto drv_proto_h2;

#endif /* LOADLENS_DRV_H2_ENGINE_H */
