/* SPDX-License-Identifier: MIT */
/*
 * grpc_config.c: --proto-file, --import-path, --message, --message-file (name is the option
 * without dashes), and once the target is known, the calls' messages (grpc_msg.h) loaded into
 * cfg->grpc.
 */
#ifndef LOADLENS_DRV_GRPC_CONFIG_H
#define LOADLENS_DRV_GRPC_CONFIG_H

#include <stddef.h>
#include "config/config.h"
#include "config/option.h"

int drv__config_grpc_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen);
/* A --requests-file line of grpc://, `/package.Service/Method [JSON]`: the JSON (a template's
 * source; "{}" when absent) into *src (malloc'd, *n bytes) and 1; the method is read back from
 * the record's label (grpc_msg.h). 0 for another target; -EINVAL with one line in err. */
int drv__config_grpc_record(const struct drv_config *cfg, char *line, char **src, size_t *n,
			    char *err, size_t errlen);
/* After the --requests-file records are loaded (config_work.c). */
int drv__config_grpc_check(struct drv_config *cfg, char *err, size_t errlen);

#endif /* LOADLENS_DRV_GRPC_CONFIG_H */
