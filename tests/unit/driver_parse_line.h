// SPDX-License-Identifier: MIT
/* The driver's unit tests' command line: split on spaces (no quoting) and parsed as a run would;
 * refuse_all(): command lines that must each be refused in one line. (After cmocka.h.) */
#ifndef LL_TEST_DRIVER_PARSE_LINE_H
#define LL_TEST_DRIVER_PARSE_LINE_H

#include <errno.h>
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

/* Each of the n lines refused (-EINVAL) with a message of one line. */
static void refuse_all(const char *const *bad, size_t n)
{
	struct drv_config cfg;
	char err[256];
	size_t i;

	for (i = 0; i < n; i++) {
		err[0] = '\0';
		if (parse(&cfg, bad[i], err, sizeof(err)) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		if (!err[0] || strchr(err, '\n'))
			fail_msg("no one-line message for: %s", bad[i]);
		drv_config_fini(&cfg);
	}
}

#endif
