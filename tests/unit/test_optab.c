// SPDX-License-Identifier: MIT
/* lib/optab.c, the option tables' lookups, getopt's tables and --help's lines, on a table of its
 * own (the driver's and the observer's tables: test_driver_options.c, test_observer_options.c). */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/optab.h"

/* a program's row: the struct ll_opt fields, and one of its own */
static const struct row {
	LL_OPT_ROW;
	int own;
} rows[] = {
	{.name = "port", .short_name = 'p', .arg = required_argument, .metavar = "PORT", .own = 1},
	{.name = "check", .arg = optional_argument, .metavar = "json", .own = 2},
	{.name = "quiet", .short_name = 'q', .arg = no_argument, .metavar = "", .own = 3},
	{.name = "mode", .short_name = 'm', .arg = optional_argument, .metavar = "M", .own = 4},
};

static const struct ll_optab tab = LL_OPTAB(rows, 4, 0x100);

static void test_lookups(void **state)
{
	char flag[32];

	(void)state;
	assert_ptr_equal(ll_optab_row(&tab, 2), &rows[2].opt);
	assert_string_equal(ll_optab_row(&tab, 3)->name, "mode");
	assert_int_equal(ll_optab_of(&tab, 'p'), 0);
	assert_int_equal(ll_optab_of(&tab, 0x101), 1);
	assert_int_equal(ll_optab_of(&tab, 'q'), 2);
	assert_int_equal(ll_optab_of(&tab, 0x104), -1);
	assert_int_equal(ll_optab_of(&tab, ':'), -1);
	assert_int_equal(ll_optab_of(&tab, 0), -1);
	assert_int_equal(ll_optab_by_name(&tab, "check"), 1);
	assert_int_equal(ll_optab_by_name(&tab, "chec"), -1);
	assert_int_equal(ll_optab_by_name(&tab, NULL), -1);
	assert_string_equal(ll_opt_flag(&rows[0].opt, flag, sizeof(flag)), "-p");
	assert_string_equal(ll_opt_flag(&rows[1].opt, flag, sizeof(flag)), "--check");
}

/* ':' first; each letter with ':' for a value, "::" for an optional one; room checked exactly */
static void test_getopt_tables(void **state)
{
	struct option lo[5];
	char s[16];

	(void)state;
	assert_int_equal(ll_optab_short(&tab, s, sizeof(s)), 0);
	assert_string_equal(s, ":p:qm::");
	assert_int_equal(ll_optab_short(&tab, s, 8), 0); /* 7 bytes and the NUL */
	assert_int_equal(ll_optab_short(&tab, s, 7), -ENOSPC);
	assert_int_equal(ll_optab_short(&tab, s, 1), -ENOSPC);
	assert_int_equal(ll_optab_long(&tab, lo, 4), -ENOSPC);
	assert_int_equal(ll_optab_long(&tab, lo, 5), 0);
	assert_string_equal(lo[0].name, "port");
	assert_int_equal(lo[0].has_arg, required_argument);
	assert_int_equal(lo[0].val, 'p');
	assert_int_equal(lo[1].has_arg, optional_argument);
	assert_int_equal(lo[1].val, 0x101);
	assert_null(lo[1].flag);
	assert_int_equal(lo[2].val, 'q');
	assert_null(lo[4].name);
	assert_int_equal(lo[4].val, 0);
}

/* the synopsis, the text from its column (or 2 spaces past a longer synopsis), its lines under */
static void test_help_lines(void **state)
{
	struct ll_text t;
	FILE *f;
	char *out;

	(void)state;
	f = ll_text_open(&t);
	ll_opt_help(f, &rows[0].opt, rows[0].metavar, "the port\nmore than one", 20);
	ll_opt_help(f, &rows[1].opt, rows[1].metavar, "check", 20);
	ll_opt_help(f, &rows[2].opt, "", "quiet", 20);
	ll_opt_help(f, &rows[0].opt, "A-VERY-LONG-METAVAR", "long", 20);
	out = ll_text_close(&t);
	assert_string_equal(out, "  -p, --port PORT   the port\n"
				 "                    more than one\n"
				 "      --check[=json]  check\n"
				 "  -q, --quiet       quiet\n"
				 "  -p, --port A-VERY-LONG-METAVAR  long\n");
	free(out);
}

LL_TEST_MAIN(test_lookups, test_getopt_tables, test_help_lines)
