// SPDX-License-Identifier: MIT
/* Option tables: lookups, getopt's tables and --help's option lines. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "loadlens/optab.h"

int ll_optab_of(const struct ll_optab *t, int c)
{
	int i;

	if (c >= t->val && c < t->val + t->count)
		return c - t->val;
	for (i = 0; c > 0 && i < t->count; i++)
		if (ll_optab_row(t, i)->short_name == c)
			return i;
	return -1;
}

int ll_optab_by_name(const struct ll_optab *t, const char *name)
{
	int i;

	for (i = 0; name && i < t->count; i++)
		if (!strcmp(ll_optab_row(t, i)->name, name))
			return i;
	return -1;
}

int ll_optab_short(const struct ll_optab *t, char *buf, size_t len)
{
	const struct ll_opt *o;
	size_t n = 0;
	int i;

	if (len < 2)
		return -ENOSPC;
	buf[n++] = ':';
	for (i = 0; i < t->count; i++) {
		o = ll_optab_row(t, i);
		if (!o->short_name)
			continue;
		/* the letter, its ':' or "::", and room for the NUL */
		if (n + 2 + (o->arg != no_argument) + (o->arg == optional_argument) > len)
			return -ENOSPC;
		buf[n++] = (char)o->short_name;
		if (o->arg != no_argument)
			buf[n++] = ':';
		if (o->arg == optional_argument)
			buf[n++] = ':';
	}
	buf[n] = '\0';
	return 0;
}

int ll_optab_long(const struct ll_optab *t, struct option *out, size_t n)
{
	const struct ll_opt *o;
	int i;

	if (n < (size_t)t->count + 1)
		return -ENOSPC;
	for (i = 0; i < t->count; i++) {
		o = ll_optab_row(t, i);
		out[i] = (struct option){o->name, o->arg, NULL,
					 o->short_name ? o->short_name : t->val + i};
	}
	out[i] = (struct option){NULL, 0, NULL, 0};
	return 0;
}

const char *ll_opt_flag(const struct ll_opt *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "-%c", o->short_name);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

void ll_opt_help(FILE *out, const struct ll_opt *o, const char *metavar, const char *text,
		 int column)
{
	const char *nl;
	int n;

	if (o->short_name)
		n = fprintf(out, "  -%c, --%s", o->short_name, o->name);
	else
		n = fprintf(out, "      --%s", o->name);
	if (o->arg == optional_argument)
		n += fprintf(out, "[=%s]", metavar);
	else if (metavar[0])
		n += fprintf(out, " %s", metavar);
	fprintf(out, "%*s", n < column ? column - n : 2, "");
	for (; (nl = strchr(text, '\n')); text = nl + 1)
		fprintf(out, "%.*s\n%*s", (int)(nl - text), text, column, "");
	fprintf(out, "%s\n", text);
}
