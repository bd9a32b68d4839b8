/* SPDX-License-Identifier: MIT */
/*
 * The observer's options as data: one descriptor per row of options.def, in its order.
 * options.c parses with the getopt tables built here, and prints --help's option lines from them;
 * the fields of struct obs_args that the rows set are options.c's (obs_option_field()), so that
 * this table knows nothing of it.
 */
#ifndef LOADLENS_OBSERVER_OPTIONS_TABLE_H
#define LOADLENS_OBSERVER_OPTIONS_TABLE_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include "loadlens/optab.h"

#define OBS_OPTION_STR(x) OBS__OPTION_STR(x)
#define OBS__OPTION_STR(x) #x

/* OBS_OPT_PORT, ...: an option's index in obs_options[] */
enum obs_opt {
#define OBS_OPTION(id, name, sh, arg, metavar, kind, field, help) OBS_OPT_##id,
#include "options.def"
	OBS_OPT__COUNT
};

/* getopt_long()'s value for an option without a short letter: OBS_OPT_VAL + its index */
#define OBS_OPT_VAL 0x100

/* Whether an option takes a value (options.def, ARG): getopt's has_arg, the row's arg. */
enum obs_opt_arg {
	OBS_OPT_ARG_NONE = no_argument,
	OBS_OPT_ARG_VALUE = required_argument,
	OBS_OPT_ARG_OPTIONAL = optional_argument, /* --check=json */
};

/* What the parser does with the value (options.def, KIND). */
enum obs_opt_kind {
	OBS_OPT_KIND_OWN,  /* options.c's parse_opt() has its case */
	OBS_OPT_KIND_PATH, /* its field, a const char *: the value, never empty */
	OBS_OPT_KIND_FLAG, /* its field, a bool: set */
};

struct obs_option {
	LL_OPT_ROW; /* name, short_name, arg (enum obs_opt_arg), metavar (loadlens/optab.h) */
	enum obs_opt_kind kind; /* its field: obs_option_field() (options.h) */
	const char *help;	/* --help's text; "\n" starts a line under the first */
};

extern const struct obs_option obs_options[OBS_OPT__COUNT];
/* obs_options[] for loadlens/optab.h's lookups */
extern const struct ll_optab obs_optab;

/* getopt_long()'s table, in obs_options[]' order, then the zero row: a letter's option returns
 * the letter, the others OBS_OPT_VAL + their index. */
const struct option *obs_options_long(void);
/* getopt's optstring, ':' first (a missing value is ':'); 0 or -ENOSPC. */
static inline int obs_options_short(char *buf, size_t len)
{
	return ll_optab_short(&obs_optab, buf, len);
}
/* The option getopt_long() returned c for (a letter, or OBS_OPT_VAL + index), or -1. */
static inline int obs_option_of(int c)
{
	return ll_optab_of(&obs_optab, c);
}
/* The option of a long name ("max-procs"), or -1. */
static inline int obs_option_by_name(const char *name)
{
	return ll_optab_by_name(&obs_optab, name);
}
/* Every option's --help lines, in the rows' order: "  -p, --port PORT       text". */
void obs_options_help(FILE *out);

#endif /* LOADLENS_OBSERVER_OPTIONS_TABLE_H */
