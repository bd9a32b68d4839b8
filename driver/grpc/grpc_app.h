/* SPDX-License-Identifier: MIT */
/* grpc:// and grpcs:// as an application protocol (config/app.h): its hooks (grpc_app.c). */
#ifndef LOADLENS_DRV_GRPC_APP_H
#define LOADLENS_DRV_GRPC_APP_H

#include "config/app.h"

extern const struct drv_app drv_grpc_app;

#endif /* LOADLENS_DRV_GRPC_APP_H */
