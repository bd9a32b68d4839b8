/* SPDX-License-Identifier: MIT */
/* udp://'s slots (udp_engine.c), reached through its engine table (udp_app.c). */
#ifndef LOADLENS_DRV_UDP_ENGINE_H
#define LOADLENS_DRV_UDP_ENGINE_H

#include "scheduling/protocol.h"

extern const struct drv_proto drv_proto_udp;

#endif /* LOADLENS_DRV_UDP_ENGINE_H */
