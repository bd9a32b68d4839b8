/* SPDX-License-Identifier: MIT */
/*
 * The findings of a run: each interval the features fill a snapshot (observer/rules/snapshot.h),
 * the rules (observer/rules/) decide what holds, the log keeps first/last seen, and what is news
 * is said at once: a line on stderr and an NDJSON event (observer/rules/findings_out.c).
 */
#ifndef LOADLENS_OBSERVER_RULES_FINDINGS_RUN_H
#define LOADLENS_OBSERVER_RULES_FINDINGS_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "rules/finding.h"
#include "rules/snapshot.h"

struct obs_findings_run;

/* Writes one news event (the caller's --ndjson stream); 0 or the stream's negative errno. */
typedef int (*obs_findings_emit)(void *arg, json_t *ev);

/* live: where the news lines go (stderr); emit(arg, event): each news event (NULL: none). */
struct obs_findings_run *obs_findings_run_new(FILE *live, obs_findings_emit emit, void *arg);
void obs_findings_run_free(struct obs_findings_run *r);
/* The snapshot of the interval now ending, cleared, for the features to fill: the first one
 * (obs_findings_tick hands out the next ones). */
struct obs_snap *obs_findings_snap(struct obs_findings_run *r);
/* Run the rules on the filled snapshot and say the news; *next: the snapshot the next interval
 * fills, cleared. Returns 0 or the NDJSON error. */
int obs_findings_tick(struct obs_findings_run *r, struct obs_snap **next);
/* The summary's "findings:" block; the JSON array ("findings", docs/observer/findings.md). */
int obs_findings_summary(const struct obs_findings_run *r, FILE *out);
json_t *obs_findings_json(const struct obs_findings_run *r);
/* The findings that held in the latest interval (for --metrics): up to max into out; returns
 * how many. */
size_t obs_findings_now(const struct obs_findings_run *r, const struct obs_finding **out,
			size_t max);
/* Findings the log could not keep, so far. */
uint64_t obs_findings_dropped(const struct obs_findings_run *r);
/* Findings of severity warning or worse. */
size_t obs_findings_alarms(const struct obs_findings_run *r);

#endif /* LOADLENS_OBSERVER_RULES_FINDINGS_RUN_H */
