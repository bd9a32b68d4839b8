/* SPDX-License-Identifier: MIT */
/*
 * Peers' spellings: an option as ghz or h2load spells it, given a value that our own option of
 * that spelling does not take (or an option we do not have), answered with ours in one line:
 *   -m 10: did you mean --streams 10? (h2load's -m is streams per connection; -m here is the
 *   HTTP method)
 * One table (peer_flags.c). parse.c asks it before it takes an option as its own, or calls it
 * unknown; an entry's value shape never matches a value our own option accepts.
 */
#ifndef LOADLENS_DRV_CONFIG_PEER_FLAGS_H
#define LOADLENS_DRV_CONFIG_PEER_FLAGS_H

#include <stddef.h>

/*
 * flag as typed ("-m", "--call"; no "=value"), value the word that goes with it (NULL when none
 * follows). 0 when that is no peer's spelling; else -EINVAL with the one line in err.
 */
int drv__config_peer(const char *flag, const char *value, char *err, size_t errlen);
/*
 * The same for what getopt_long() just returned (c, and the long option's name when it matched
 * one, else NULL): the option as typed and its value, from optarg, or for an option we do not
 * have ('?') from argv.
 */
int drv__config_peer_opt(int c, const char *long_name, int argc, char **argv, char *err,
			 size_t errlen);

#endif /* LOADLENS_DRV_CONFIG_PEER_FLAGS_H */
