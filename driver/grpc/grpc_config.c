// SPDX-License-Identifier: MIT
/*
 * The grpc:// part of the command line: --proto-file, --import-path, --message, --message-file,
 * what they go with, and the calls' messages (grpc_msg.h) built once the target and
 * --requests-file are known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "config/config.h"
#include "grpc/grpc_config.h"
#include "config/config_payload.h"
#include "config/quote.h"
#include "grpc/grpc_msg.h"
#include "config/reqmix.h"

int drv__config_grpc_record(const struct drv_config *cfg, char *line, char **src, size_t *n,
			    char *err, size_t errlen)
{
	size_t len = strcspn(line, " \t");
	const char *json = line + len + strspn(line + len, " \t");

	if (!ll_scheme_is_grpc(cfg->url.scheme))
		return 0;
	if (line[0] != '/' || !len)
		return drv_errf(err, errlen, "expected /package.Service/Method {JSON}");
	if (!*json)
		json = "{}";
	*src = strdup(json);
	if (!*src)
		return drv_errf(err, errlen, "out of memory");
	*n = strlen(json);
	return 1;
}

/* --import-path DIR: a folder, checked now (protoc's -I) */
static int import_path(struct drv_config *cfg, const char *v, char *err, size_t errlen)
{
	struct stat st;

	if (!*v)
		return drv__config_fail(err, errlen, "--import-path: empty folder name");
	if (stat(v, &st))
		return drv__config_fail(err, errlen, "--import-path %s: %s", v, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return drv__config_fail(err, errlen, "--import-path %s: not a folder", v);
	if (cfg->nimport_paths == DRV_MAX_IMPORT_PATHS)
		return drv__config_fail(err, errlen, "--import-path: at most %d folders",
					DRV_MAX_IMPORT_PATHS);
	cfg->import_paths[cfg->nimport_paths++] = v;
	return 0;
}

int drv__config_grpc_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen)
{
	if (!strcmp(name, "proto")) /* (--proto grpc: the wire protocol is the URL's) */
		return drv__config_fail(err, errlen, "--proto grpc: expected memcache-udp or ldap; "
					"a grpc:// URL is gRPC already (the service's .proto: "
					"--proto-file)");
	if (!strcmp(name, "proto-file")) {
		cfg->proto_path = v;
		return *v ? 0 : drv__config_fail(err, errlen, "--proto-file: empty file name");
	}
	if (!strcmp(name, "import-path"))
		return import_path(cfg, v, err, errlen);
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
		if (cfg->proto_path || cfg->grpc_json_from || cfg->nimport_paths)
			return drv__config_fail(err, errlen, "--proto-file, --import-path, "
						"--message and --message-file are for grpc:// "
						"and grpcs:// targets");
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
	if (cfg->nimport_paths && !cfg->proto_path)
		return drv__config_fail(err, errlen, "--import-path goes with --proto-file FILE");
	cfg->grpc_msgs = drv_grpc_msgs_new_with(cfg->proto_path, cfg->import_paths,
						cfg->nimport_paths, err, errlen);
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
