// SPDX-License-Identifier: MIT
/* The driver's unit tests' command line: split on spaces (no quoting) and parsed as a run would. */
#ifndef LL_TEST_DRIVER_PARSE_LINE_H
#define LL_TEST_DRIVER_PARSE_LINE_H

#include <stdio.h>
#include <string.h>
#include "config/parse.h"

#define MAXARGS 32

static int parse(struct drv_config *cfg, const char *line, char *err, size_t len)
{
	static char buf[1024];
	char *argv[MAXARGS], *save = NULL, *tok;
	int argc = 0;

	snprintf(buf, sizeof(buf), "loadlens-driver %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < MAXARGS - 1;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return drv_config_parse(cfg, argc, argv, err, len);
}

#endif
