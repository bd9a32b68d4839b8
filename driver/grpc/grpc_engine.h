/* SPDX-License-Identifier: MIT */
/*
 * gRPC over the HTTP/2 engine (grpc_engine.c): each call's message (grpc_msg.h) and its reply
 * checked as it comes (grpc_frame.h), as the engine's protocol part (h2/h2_ext.h).
 */
#ifndef LOADLENS_DRV_GRPC_ENGINE_H
#define LOADLENS_DRV_GRPC_ENGINE_H

#include "h2/h2_ext.h"

extern const struct drv_h2_ext drv_grpc_h2;

#endif /* LOADLENS_DRV_GRPC_ENGINE_H */
