/* SPDX-License-Identifier: MIT */
/* h2_config.c: the native HTTP/2 engine's part of the command line (--streams, grpc://). */
#ifndef LOADLENS_DRV_H2_CONFIG_H
#define LOADLENS_DRV_H2_CONFIG_H

#include <stddef.h>
#include "config/config.h"
#include "config/option.h"

/*
 * --streams N with what drives it (--http2 on the native engine, or grpc), and a grpc:// or
 * grpcs:// target's options: its method path, -H as metadata, no HTTP/1.1 options. 0 or -EINVAL
 * with one line in err.
 */
int drv__config_check_h2(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			 size_t errlen);
/* A gRPC method path "/package.Service/Method": 0, or -EINVAL. Pure; for tests. */
int drv_config_grpc_path(const char *path);

#endif /* LOADLENS_DRV_H2_CONFIG_H */
