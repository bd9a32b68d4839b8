// SPDX-License-Identifier: MIT
/* The option table (config/options.def): --help, getopt's tables, the plan and merge read it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ll_test.h"
#include "config/config_help.h"
#include "config/options.h"
#include "config/parse.h"
#include "driver_parse_line.h"
#include "results/plan.h"

/* Options that are no part of a plan: they print and exit, or print the plan itself. */
static int not_planned(const char *name)
{
	return !strcmp(name, "help") || !strcmp(name, "version") || !strcmp(name, "print-plan");
}

/* Row i as --help shows it: "  -c, --connections N" */
static struct ll_test_opt opt(size_t i)
{
	return (struct ll_test_opt){drv_options[i].name, drv_options[i].short_name,
			       drv_options[i].metavar, 0};
}

/* Each option is on one line of --help, and each option line of --help is an option's. */
static void test_help_lists_each_option_once(void **state)
{
	char *help = ll_text_of(drv_config_usage);

	ll_help_check_options(help, DRV_OPT__COUNT, opt, drv_option_by_name);
	assert_non_null(strstr(help, "\nEXAMPLES\n"));
	free(help);
}

/* Every option but help, version and print-plan has a plan key; a plain kind a field and keys. */
static void test_every_option_has_a_plan_key(void **state)
{
	size_t i;

	for (i = 0; i < DRV_OPT__COUNT; i++) {
		const struct drv_option *o = &drv_options[i];

		if (not_planned(o->name)) {
			assert_null(o->plan_key);
			assert_null(drv_plan_key(o->name));
			continue;
		}
		if (!o->plan_key || !o->plan_key[0])
			fail_msg("--%s has no plan key (options.def)", o->name);
		assert_string_equal(drv_plan_key(o->name), o->plan_key);
		if (o->kind != DRV_OPT_KIND_NONE && (!o->json_key || !o->field))
			fail_msg("--%s: a plain kind without its field or result key", o->name);
		if (o->kind == DRV_OPT_KIND_NONE && o->json_key)
			fail_msg("--%s: shown by hand, yet a result key", o->name);
		if (o->merge != DRV_OPT_MERGE_KEEP && o->kind != DRV_OPT_KIND_COUNT &&
		    o->kind != DRV_OPT_KIND_COUNT0 && o->kind != DRV_OPT_KIND_BOOL)
			fail_msg("--%s: merge reads counts and booleans only", o->name);
	}
	assert_true(DRV_OPT__COUNT >= 47);
}

/* Names and letters once each; getopt's tables say the same as the rows. */
static void test_names_and_letters_unique(void **state)
{
	const struct option *lo = drv_config_options();
	char shorts[2 * DRV_OPT__COUNT + 2];
	size_t i;

	assert_int_equal(drv_options_short(shorts, sizeof(shorts)), 0);
	assert_int_equal(shorts[0], ':');
	ll_options_check(DRV_OPT__COUNT, opt, shorts);
	for (i = 0; i < DRV_OPT__COUNT; i++) {
		const struct drv_option *o = &drv_options[i];
		int val = o->short_name ? o->short_name : DRV_OPT_VAL + (int)i;

		assert_int_equal(drv_option_by_name(o->name), (int)i);
		assert_int_equal(drv_option_of(val), (int)i);
		assert_string_equal(lo[i].name, o->name);
		assert_int_equal(lo[i].val, val);
		assert_int_equal(lo[i].has_arg,
				 drv_option_takes_value(o) ? required_argument : no_argument);
	}
	assert_null(lo[DRV_OPT__COUNT].name);
	assert_int_equal(drv_option_of(':'), -1);
	assert_int_equal(drv_option_of('?'), -1);
	assert_int_equal(drv_option_by_name("no-such-option"), -1);
}

/* An option we do not have, or one without its value: -EINVAL and one line (main exits 64). */
static void test_unknown_refused_in_one_line(void **state)
{
	static const struct {
		const char *line, *err;
	} cases[] = {
		{"tcp://127.0.0.1:7000 -n 1 --no-such-option", "unknown option --no-such-option "
							      "(see --help)"},
		{"tcp://127.0.0.1:7000 -n 1 -Z", "unknown option -Z (see --help)"},
		{"tcp://127.0.0.1:7000 -n 1 --new-conn=1", "unknown option --new-conn=1 (see --help)"},
		{"tcp://127.0.0.1:7000 -n 1 --rate", "--rate needs a value (see --help)"},
		{"tcp://127.0.0.1:7000 -n 1 -c", "-c needs a value (see --help)"},
	};
	static const char *const also[] = {
		"tcp://127.0.0.1:7000 -n 1 --bod x",	 /* --body or --body-file */
		"tcp://127.0.0.1:7000 -n 1 --quiet=x",	 /* takes no value */
		"tcp://127.0.0.1:7000 -n 1 -- --rate 5", /* a second target */
	};
	struct drv_config cfg;
	char line[128], err[256];
	size_t i;

	refuse_all(also, sizeof(also) / sizeof(also[0]));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(&cfg, cases[i].line, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, cases[i].err);
		drv_config_fini(&cfg);
	}
	/* every option that takes a value says so when it has none */
	for (i = 0; i < DRV_OPT__COUNT; i++) {
		if (!drv_option_takes_value(&drv_options[i]))
			continue;
		snprintf(line, sizeof(line), "tcp://127.0.0.1:7000 -n 1 --%s", drv_options[i].name);
		assert_int_equal(parse(&cfg, line, err, sizeof(err)), -EINVAL);
		if (!strstr(err, "needs a value") || strchr(err, '\n'))
			fail_msg("%s: '%s'", line, err);
		drv_config_fini(&cfg);
	}
}

LL_TEST_MAIN(test_help_lists_each_option_once, test_every_option_has_a_plan_key,
	     test_names_and_letters_unique, test_unknown_refused_in_one_line)
