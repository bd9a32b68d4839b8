/* SPDX-License-Identifier: MIT */
/* The protocols (each implements scheduling/protocol.h), and which one drives a configuration:
 * these, or a registered engine's (config/engine.h: h2/, udp/, http/). */
#ifndef LOADLENS_DRV_PROTOCOLS_H
#define LOADLENS_DRV_PROTOCOLS_H

#include "scheduling/protocol.h"

struct drv_config;

extern const struct drv_proto drv_proto_tcp;	     /* proto_tcp.c */
extern const struct drv_proto drv_proto_http_native; /* proto_tcp.c with HTTP framing */

/* The protocol for a configuration, or NULL if not supported. */
const struct drv_proto *drv_proto_for(const struct drv_config *cfg);

#endif /* LOADLENS_DRV_PROTOCOLS_H */
