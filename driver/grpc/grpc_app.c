// SPDX-License-Identifier: MIT
/*
 * grpc:// and grpcs://'s table (grpc_app.h): the message options, their checks and the
 * --requests-file records (grpc_config.c), and its part of the HTTP/2 engine (grpc_engine.c). The target itself is the
 * engine's scheme (h2/h2_config.c); its status counts are the HTTP/2 report's (h2/h2_report.c).
 */
#include <stdlib.h>
#include "config/config.h"
#include "grpc/grpc_config.h"
#include "grpc/grpc_msg.h"
#include "grpc/grpc_app.h"
#include "grpc/grpc_engine.h"

static bool on(const struct drv_config *cfg)
{
	return ll_scheme_is_grpc(cfg->url.scheme);
}

/* the messages read nothing of the --requests-file mix they borrowed */
static void config_free(struct drv_config *cfg)
{
	free(cfg->grpc_json);
	cfg->grpc_json = NULL;
	drv_grpc_msgs_free(cfg->grpc_msgs);
	cfg->grpc_msgs = NULL;
}

const struct drv_app drv_grpc_app = {
	.name = "grpc",
	.opt = drv__config_grpc_opt,
	.check_late = drv__config_grpc_check,
	.free = config_free,
	.record = drv__config_grpc_record,
	.on = on,
	.h2 = &drv_grpc_h2,
};
