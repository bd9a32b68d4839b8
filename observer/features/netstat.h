/* SPDX-License-Identifier: MIT */
/*
 * The netstat feature: the watched namespace's TcpExt listen counters (ListenOverflows,
 * ListenDrops, the SYN queue's drops, TIME_WAIT overflows; /proc/net/netstat read through the
 * census context, sources/census.c, by the tick's read phase) as deltas per interval, with the
 * kernel's listen-overflow drop reason from the failures feature's snapshot.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_NETSTAT_H
#define LOADLENS_OBSERVER_FEATURES_NETSTAT_H

#include <stdint.h>
#include "sources/census.h"
#include "tick/snapshots.h"

struct obs_netstat_feature;

/* census: the context in the target netns, for the counters' base at start; NULL: no counters.
 * One allocation: free() ends it. */
struct obs_netstat_feature *obs_netstat_new(struct obs_census_ctx *census);
extern const struct obs_feature obs_netstat_ops; /* self: its struct obs_netstat_feature */

#endif /* LOADLENS_OBSERVER_FEATURES_NETSTAT_H */
