// SPDX-License-Identifier: MIT
/* options.def's rows as descriptors (options_table.h), for loadlens/optab.h's getopt tables,
 * lookups and --help lines. */
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

const struct ll_optab obs_optab = LL_OPTAB(obs_options, OBS_OPT__COUNT, OBS_OPT_VAL);

const struct option *obs_options_long(void)
{
	static struct option long_opts[OBS_OPT__COUNT + 1];

	if (!long_opts[0].name)
		ll_optab_long(&obs_optab, long_opts, OBS_OPT__COUNT + 1);
	return long_opts;
}

void obs_options_help(FILE *out)
{
	int i;

	for (i = 0; i < OBS_OPT__COUNT; i++)
		ll_opt_help(out, &obs_options[i].opt, obs_options[i].metavar, obs_options[i].help,
			    HELP_COLUMN);
}
