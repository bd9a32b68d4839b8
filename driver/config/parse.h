/* SPDX-License-Identifier: MIT */
/* The command line: argv into struct drv_config (parse.c) and its --help (config_help.c). */
#ifndef LOADLENS_DRV_CONFIG_PARSE_H
#define LOADLENS_DRV_CONFIG_PARSE_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include "config/config.h"

void drv_config_init(struct drv_config *cfg);
/*
 * Parse argv (argv[0] is the program name) into cfg, resolving the target address and reading
 * payload files. Returns 0, or -EINVAL with a one-line message (no newline) in err. Never prints
 * or exits, so unit tests can call it repeatedly. argv may be permuted. Call drv_config_fini()
 * afterwards in either case.
 */
int drv_config_parse(struct drv_config *cfg, int argc, char **argv, char *err, size_t errlen);
void drv_config_fini(struct drv_config *cfg);
/* The long options drv_config_parse() takes (getopt_long's table, ending in a NULL name). */
const struct option *drv_config_options(void);

#endif /* LOADLENS_DRV_CONFIG_PARSE_H */
