/* SPDX-License-Identifier: MIT */
/*
 * The sockstat feature: the target sockets by TCP state and the ephemeral ports they hold. The
 * census (sources/census.c), walked by the read phase when this feature's plan says (spaced to
 * 1% of a CPU: sources/tick_reader.h), reconciled against the live counts from the state moves
 * (sockets.bpf.c); TIME_WAIT entries, the CLOSE_WAIT trend, and the most used port group against
 * the port range with its forecast.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_SOCKSTAT_H
#define LOADLENS_OBSERVER_FEATURES_SOCKSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include "sources/census.h"
#include "tick/snapshots.h"

#define OBS_SOCKSTAT_HIST 8 /* censuses kept for growth rates */

struct obs_sockstat;

/* census: the census context, for its mechanism's name (NULL: no census). One allocation:
 * free() ends it. */
struct obs_sockstat *obs_sockstat_new(struct obs_census_ctx *census);
extern const struct obs_feature obs_sockstat_ops; /* self: its struct obs_sockstat */

#endif /* LOADLENS_OBSERVER_FEATURES_SOCKSTAT_H */
