// SPDX-License-Identifier: MIT
/* CPU waits from the targets' schedstat (without --runq), for the saturation rule
 * (rules_requests.c): the bars of threads waiting a CPU, their hysteresis, and CPUs held by other
 * work. Pure functions of the snapshots. */
#ifndef LOADLENS_OBSERVER_RULES_CPU_WAITS_H
#define LOADLENS_OBSERVER_RULES_CPU_WAITS_H
#include <stdbool.h>
#include "rules/snapshot.h"

/* Target processes past --max-procs are alive, their threads unread, and /proc/stat was read:
 * the CPUs' own busy time then stands for what the targets ran (obs_cpu_ran()). */
bool obs_cpu_unread(const struct obs_snap *s);
/* CPUs' worth the targets' threads ran this interval: their schedstat's; with obs_cpu_unread(),
 * the CPUs' time not idle and not lost where that is more (any work's: theirs, or another's
 * beside them), at most their CPUs. */
double obs_cpu_ran(const struct obs_snap *s);
/* waited for a CPU at `share` of the bar (1: the bar; OBS_RULE_CPU_OLDER: an older interval's) */
bool obs_cpu_waited_at(const struct obs_snap *s, double share);
bool obs_cpu_waited(const struct obs_snap *s);
/* at the bar in one of the last 2 x OBS_RULE_SAT_INTERVALS */
bool obs_cpu_waited_lately(const struct obs_snap_hist *h);
/* at the bar the last OBS_RULE_SAT_INTERVALS (the older at OBS_RULE_CPU_OLDER of it) */
bool obs_cpu_waited_all(const struct obs_snap_hist *h);
/* through a dip: OBS_RULE_CPU_OLDER of the bar in each, and at it lately */
bool obs_cpu_waited_still(const struct obs_snap_hist *h);
/* other work holds the CPUs: this interval, and the last OBS_RULE_SAT_INTERVALS */
bool obs_cpu_contended(const struct obs_snap *s);
bool obs_cpu_contended_all(const struct obs_snap_hist *h);

#endif
