// SPDX-License-Identifier: MIT
/*
 * The native HTTP/2 engine's table (h2_app.h): --streams and the grpc:// targets' checks
 * (h2_config.c), its summary lines, hints, JSON and merge (h2_report.c) and its slots
 * (h2_engine.c, with h2_stream.c and h2_headers.c). gRPC rides on it (grpc/: h2_ext.h).
 */
#include "config/config.h"
#include "h2/h2_app.h"
#include "h2/h2_config.h"
#include "h2/h2_engine.h"
#include "h2/h2_report.h"

static bool on(const struct drv_config *cfg)
{
	return drv_config_h2(cfg);
}

const struct drv_engine drv_h2_engine = {
	.name = "h2", .on = on, .check_last = drv__config_check_h2, .text = drv_report_h2,
	.hints = drv_report_h2_hints, .json = drv_report_json_h2, .merge = drv_merge_h2,
	.proto = &drv_proto_h2,
};
