// SPDX-License-Identifier: MIT
/* The driver's unit tests' command line: split on spaces (no quoting) and parsed as a run would;
 * refuse_all(): command lines that must each be refused in one line; parse_words(),
 * check_argv_cases(): the same from words, one per argument. (After cmocka.h.) */
#ifndef LL_TEST_DRIVER_PARSE_LINE_H
#define LL_TEST_DRIVER_PARSE_LINE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "config/parse.h"

#define MAXARGS 32

static inline int parse(struct drv_config *cfg, const char *line, char *err, size_t len)
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
static inline void refuse_all(const char *const *bad, size_t n)
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

/* The words (after the program's name, NULL-ended: at most 30) parsed into cfg as a run would:
 * 0, or -EINVAL with err set. */
static inline int parse_words(struct drv_config *cfg, const char *const *args, char *err,
			      size_t len)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"loadlens-driver";
	while (*args && argc < 31)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	return drv_config_parse(cfg, argc, argv, err, len);
}

/* A command line's words, and what parsing them must give. */
struct argv_case {
	const char *args[16];
	const char *want; /* NULL: accepted; else refused, its message holding want */
};

/* Each of the n cases parsed: accepted, or refused (-EINVAL) with a message of one line holding
 * its want. */
static inline void check_argv_cases(const struct argv_case *c, size_t n)
{
	struct drv_config cfg;
	char err[512];
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		err[0] = '\0';
		r = parse_words(&cfg, c[i].args, err, sizeof(err));
		if (!c[i].want && r)
			fail_msg("case %zu refused: %s", i, err);
		if (c[i].want && (r != -EINVAL || !strstr(err, c[i].want)))
			fail_msg("case %zu: %d '%s', expected '%s'", i, r, err, c[i].want);
		assert_null(strchr(err, '\n'));
		drv_config_fini(&cfg);
	}
}

#endif
