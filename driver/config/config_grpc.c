// SPDX-License-Identifier: MIT
/*
 * The grpc:// part of the command line: --proto-file, --message, --message-file, what they go
 * with, and the calls' messages (grpc_msg.h) built once the target and --requests-file are known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/config_grpc.h"
#include "config/config_payload.h"
#include "config/grpc_msg.h"
#include "config/reqmix.h"

int drv__config_grpc_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen)
{
	if (!strcmp(name, "proto-file")) {
		cfg->proto_path = v;
		return *v ? 0 : drv__config_fail(err, errlen, "--proto-file: empty file name");
	}
	if (cfg->grpc_json_from)
		return drv__config_fail(err, errlen, "--message and --message-file: give one "
					"message");
	if (!strcmp(name, "message")) {
		cfg->grpc_json_from = "--message";
		cfg->grpc_json_len = strlen(v);
		cfg->grpc_json = strdup(v);
		return cfg->grpc_json ? 0
				      : drv__config_fail(err, errlen, "--message: out of memory");
	}
	cfg->grpc_json_from = v; /* --message-file: its name */
	if (!*v)
		return drv__config_fail(err, errlen, "--message-file: empty file name");
	return drv__config_slurp("--message-file", v, &cfg->grpc_json, &cfg->grpc_json_len, err,
				 errlen);
}

int drv__config_grpc_check(struct drv_config *cfg, char *err, size_t errlen)
{
	char msg[512], what[256];
	const char *path = cfg->url.path;

	if (!ll_scheme_is_grpc(cfg->url.scheme)) {
		if (cfg->proto_path || cfg->grpc_json_from)
			return drv__config_fail(err, errlen, "--proto-file, --message and "
						"--message-file are for grpc:// and grpcs:// "
						"targets");
		return 0;
	}
	if (cfg->payload || cfg->size != DRV_DEFAULT_SIZE || cfg->size_min != DRV_DEFAULT_SIZE)
		return drv__config_fail(err, errlen, "--payload and --size are for tcp:// and "
					"udp://; grpc:// sends --message (JSON) with --proto-file");
	if (cfg->mix && cfg->grpc_json_from)
		return drv__config_fail(err, errlen, "--requests-file gives each call its message: "
					"drop --message and --message-file");
	if (!cfg->mix && !strcmp(path, "/"))
		return drv__config_fail(err, errlen, "%s: name the method, grpc://HOST:PORT/"
					"package.Service/Method (or give --requests-file)",
					cfg->url_text);
	cfg->grpc_msgs = drv_grpc_msgs_new(cfg->proto_path, err, errlen);
	if (!cfg->grpc_msgs)
		return -EINVAL;
	if (cfg->mix) {
		if (drv_grpc_msgs_set_mix(cfg->grpc_msgs, cfg->mix, msg, sizeof(msg)))
			return drv__config_fail(err, errlen, "--requests-file %s: %s",
						cfg->requests_path, msg);
		return 0;
	}
	if (cfg->grpc_json_from && strcmp(cfg->grpc_json_from, "--message"))
		snprintf(what, sizeof(what), "--message-file %s", cfg->grpc_json_from);
	else
		snprintf(what, sizeof(what), "%s", cfg->grpc_json_from ? "--message" : "{}");
	if (drv_grpc_msgs_set(cfg->grpc_msgs, path, cfg->grpc_json, cfg->grpc_json_len, what, msg,
			      sizeof(msg)))
		return drv__config_fail(err, errlen, "%s", msg);
	return 0;
}
