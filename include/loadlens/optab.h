/* SPDX-License-Identifier: MIT */
/*
 * A program's options as a table of rows, for getopt_long() and --help: the lookups, getopt's
 * tables and the option lines that the driver's and the observer's tables share. A program's row
 * holds LL_OPT_ROW (the fields of struct ll_opt, by their names and as .opt at once), and
 * struct ll_optab says where its rows are.
 */
#ifndef LOADLENS_OPTAB_H
#define LOADLENS_OPTAB_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#define LL_OPT_FIELDS                                                                              \
	const char *name;    /* long name, without "--" */                                        \
	int short_name;	     /* its letter, or 0 */                                               \
	int arg;	     /* getopt's has_arg: no_argument, required_argument, optional_... */ \
	const char *metavar; /* its value's name in --help; "" for an option that takes none */

/* What getopt and --help read of an option. */
struct ll_opt {
	LL_OPT_FIELDS
};

/* In a program's row: the same fields, as o->name and as o->opt (the kernel's struct_group). */
#define LL_OPT_ROW                                                                                 \
	union {                                                                                    \
		struct ll_opt opt;                                                                 \
		struct {                                                                           \
			LL_OPT_FIELDS                                                              \
		};                                                                                 \
	}

/* A program's table: count rows, stride bytes apart, the first row's struct ll_opt at first. */
struct ll_optab {
	const struct ll_opt *first;
	size_t stride; /* sizeof one row */
	int count;
	int val; /* getopt_long()'s value for row i without a letter: val + i (past 0xff) */
};

#define LL_OPTAB(rows, n, v) {&(rows)[0].opt, sizeof((rows)[0]), (n), (v)}

static inline const struct ll_opt *ll_optab_row(const struct ll_optab *t, int i)
{
	return (const struct ll_opt *)((const char *)t->first + (size_t)i * t->stride);
}

/* The row getopt_long() returned c for (a letter, or val + index), or -1. */
int ll_optab_of(const struct ll_optab *t, int c);
/* The row of a long name ("max-procs"), or -1. */
int ll_optab_by_name(const struct ll_optab *t, const char *name);
/* getopt's optstring, ':' first (a missing value is ':'); 0 or -ENOSPC. */
int ll_optab_short(const struct ll_optab *t, char *buf, size_t len);
/* getopt_long()'s table into out (count + 1 rows: the rows', then the zero row); 0 or -ENOSPC. */
int ll_optab_long(const struct ll_optab *t, struct option *out, size_t n);
/* The option as messages spell it: "-c" when it has a letter, else "--connect-rate". */
const char *ll_opt_flag(const struct ll_opt *o, char *buf, size_t len);
/* --help's lines of an option: "  -p, --port PORT       text", metavar after the name (as
 * "[=METAVAR]" for an optional value), text from column on, each "\n" of it a line under the
 * text's first. */
void ll_opt_help(FILE *out, const struct ll_opt *o, const char *metavar, const char *text,
		 int column);

#endif /* LOADLENS_OPTAB_H */
