/* SPDX-License-Identifier: MIT */
/*
 * The driver's options as data: one descriptor per row of options.def, in its order. parse.c
 * builds getopt's tables from them, config_help.c --help's option lines, results/ the plan's
 * option_keys and the plain values of the plan, of a result's config and of merge.
 */
#ifndef LOADLENS_DRV_CONFIG_OPTIONS_H
#define LOADLENS_DRV_CONFIG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/optab.h"
#include "config/config.h"

#define DRV_OPTION_STR(x) DRV__OPTION_STR(x)
#define DRV__OPTION_STR(x) #x

/* DRV_OPT_CONNECTIONS, ...: an option's index in drv_options[] */
enum drv_opt {
#define DRV_OPTION(id, name, sh, metavar, section, key, kind, field, merge, help) DRV_OPT_##id,
#include "config/options.def"
	DRV_OPT__COUNT
};

/* getopt_long()'s value for an option without a short letter: DRV_OPT_VAL + its index */
#define DRV_OPT_VAL 0x100

enum drv_opt_section {
	DRV_OPT_SECTION_LOAD,
	DRV_OPT_SECTION_PAYLOADS,
	DRV_OPT_SECTION_SCALE,
	DRV_OPT_SECTION_OUTPUT,
	DRV_OPT_SECTION__COUNT,
};

/* How the plan and a result show an option's field (options.def, KIND). */
enum drv_opt_kind {
	DRV_OPT_KIND_NONE,	/* by hand, in plan.c and report_json.c */
	DRV_OPT_KIND_COUNT,	/* uint64_t */
	DRV_OPT_KIND_COUNT0,	/* uint64_t; 0 is null */
	DRV_OPT_KIND_DURATION,	/* uint64_t ns: seconds in the plan, ns in a result */
	DRV_OPT_KIND_DURATION0, /* the same; 0 is null */
	DRV_OPT_KIND_RATE,	/* double per second; 0 is null */
	DRV_OPT_KIND_BOOL,	/* bool: a flag, which parse.c sets */
	DRV_OPT_KIND_TEXT,	/* const char *; NULL is null */
};

/* How merge combines the runs' values of an option's field (options.def, MERGE). */
enum drv_opt_merge {
	DRV_OPT_MERGE_KEEP,  /* not read: the merge's own value, or by hand in merge.c */
	DRV_OPT_MERGE_SUM,   /* the runs' values add up */
	DRV_OPT_MERGE_FIRST, /* the first run's, where it has one */
};

struct drv_option {
	LL_OPT_ROW; /* name, short_name, arg, metavar (loadlens/optab.h) */
	enum drv_opt_section section;
	const char *plan_key; /* the plan key that shows it, or NULL (help, version, print-plan) */
	const char *json_key; /* the same in a result's config (durations in _ns), or NULL */
	enum drv_opt_kind kind;
	size_t field;	     /* offsetof(struct drv_config, its field); 0 for DRV_OPT_KIND_NONE */
	enum drv_opt_merge merge;
};

extern const struct drv_option drv_options[DRV_OPT__COUNT];
/* drv_options[] for loadlens/optab.h's lookups */
extern const struct ll_optab drv_optab;

static inline bool drv_option_takes_value(const struct drv_option *o)
{
	return o->metavar[0] != '\0';
}

/* The option getopt_long() returned c for (a letter, or DRV_OPT_VAL + index), or -1. */
static inline int drv_option_of(int c)
{
	return ll_optab_of(&drv_optab, c);
}
/* The option of a long name ("connect-rate"), or -1. */
static inline int drv_option_by_name(const char *name)
{
	return ll_optab_by_name(&drv_optab, name);
}
/* The option as its messages spell it: "-c" when it has a letter, else "--connect-rate". */
static inline const char *drv_option_flag(enum drv_opt id, char *buf, size_t len)
{
	return ll_opt_flag(&drv_options[id].opt, buf, len);
}
/* getopt's optstring, ':' first (a missing value is ':'); 0 or -ENOSPC. */
static inline int drv_options_short(char *buf, size_t len)
{
	return ll_optab_short(&drv_optab, buf, len);
}
/* The field of cfg that option id shows (DRV_OPT_KIND_NONE: none, NULL). */
const void *drv_option_field(const struct drv_config *cfg, enum drv_opt id);

#endif /* LOADLENS_DRV_CONFIG_OPTIONS_H */
