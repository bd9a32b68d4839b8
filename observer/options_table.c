// SPDX-License-Identifier: MIT
/* options.def's rows as descriptors (options_table.h), getopt's tables and --help's lines. */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include "loadlens/observer.h"
#include "kernel/lean.h"
#include "kernel/systier.h"
#include "sources/targets.h"
#include "sources/watched.h"
#include "options_table.h"

#define HELP_COLUMN 24 /* where an option's text starts */

const struct obs_option obs_options[OBS_OPT__COUNT] = {
#define OBS_OPTION(id, nm, sh, ar, mv, kd, f, hp)                                                  \
	[OBS_OPT_##id] = {                                                                         \
		.name = nm,                                                                        \
		.short_name = sh,                                                                  \
		.arg = OBS_OPT_ARG_##ar,                                                           \
		.metavar = mv,                                                                     \
		.kind = OBS_OPT_KIND_##kd,                                                         \
		.help = hp,                                                                        \
	},
#include "options.def"
};

#define HAS_ARG_NONE no_argument
#define HAS_ARG_VALUE required_argument
#define HAS_ARG_OPTIONAL optional_argument

static const struct option long_opts[] = {
#define OBS_OPTION(id, nm, sh, ar, mv, kd, f, hp)                                                  \
	{nm, HAS_ARG_##ar, NULL, (sh) ? (sh) : OBS_OPT_VAL + OBS_OPT_##id},
#include "options.def"
	{NULL, 0, NULL, 0},
};

const struct option *obs_options_long(void)
{
	return long_opts;
}

int obs_options_short(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	if (len < 2)
		return -ENOSPC;
	buf[n++] = ':';
	for (i = 0; i < OBS_OPT__COUNT; i++) {
		if (!obs_options[i].short_name)
			continue;
		if (n + 4 > len)
			return -ENOSPC;
		buf[n++] = (char)obs_options[i].short_name;
		if (obs_options[i].arg != OBS_OPT_ARG_NONE)
			buf[n++] = ':';
		if (obs_options[i].arg == OBS_OPT_ARG_OPTIONAL)
			buf[n++] = ':';
	}
	buf[n] = '\0';
	return 0;
}

int obs_option_of(int c)
{
	int i;

	if (c >= OBS_OPT_VAL && c < OBS_OPT_VAL + OBS_OPT__COUNT)
		return c - OBS_OPT_VAL;
	for (i = 0; c > 0 && i < OBS_OPT__COUNT; i++)
		if (obs_options[i].short_name == c)
			return i;
	return -1;
}

int obs_option_by_name(const char *name)
{
	int i;

	for (i = 0; name && i < OBS_OPT__COUNT; i++)
		if (!strcmp(obs_options[i].name, name))
			return i;
	return -1;
}

/* "  -p, --port PORT       text", its further lines under the text's first */
static void option_lines(FILE *out, const struct obs_option *o)
{
	const char *t = o->help, *nl;
	int n;

	if (o->short_name)
		n = fprintf(out, "  -%c, --%s", o->short_name, o->name);
	else
		n = fprintf(out, "      --%s", o->name);
	if (o->arg == OBS_OPT_ARG_VALUE)
		n += fprintf(out, " %s", o->metavar);
	else if (o->arg == OBS_OPT_ARG_OPTIONAL)
		n += fprintf(out, "[=%s]", o->metavar);
	fprintf(out, "%*s", n < HELP_COLUMN ? HELP_COLUMN - n : 2, "");
	for (; (nl = strchr(t, '\n')); t = nl + 1)
		fprintf(out, "%.*s\n%*s", (int)(nl - t), t, HELP_COLUMN, "");
	fprintf(out, "%s\n", t);
}

void obs_options_help(FILE *out)
{
	int i;

	for (i = 0; i < OBS_OPT__COUNT; i++)
		option_lines(out, &obs_options[i]);
}
