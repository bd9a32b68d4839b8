/* SPDX-License-Identifier: MIT */
/*
 * The run's findings log: every finding the rules made, once per (kind, key), with the interval
 * it was first and last seen and its latest text and evidence. It says which findings are news
 * (first seen, or graver than before): those are printed live (observer/rules/findings_out.c).
 */
#ifndef LOADLENS_OBSERVER_RULES_FINDINGS_LOG_H
#define LOADLENS_OBSERVER_RULES_FINDINGS_LOG_H

#include <stdint.h>
#include "rules/finding.h"

#define OBS_FLOG_MAX 256 /* distinct findings kept for the summary; more are counted */

struct obs_seen {
	struct obs_finding f; /* the latest text and evidence, at the gravest severity seen */
	double first_seen, last_seen; /* seconds since start; first_seen at the gravest severity */
	double milder_since;	      /* first seen at a milder severity (a forecast); < 0: never */
	enum obs_severity milder;     /* that severity */
	uint64_t intervals;	      /* intervals it held */
};

struct obs_findings_log {
	struct obs_seen seen[OBS_FLOG_MAX];
	size_t n;
	uint64_t dropped; /* findings not kept: past OBS_FLOG_MAX, or past one interval's list */
};

void obs_findings_log_init(struct obs_findings_log *l);
void obs_findings_log_free(struct obs_findings_log *l);
/*
 * Merge one interval's findings, made at t: takes their evidence and empties fs. The log entries
 * that are news go into news[] (up to max, by index into l->seen); returns how many.
 */
size_t obs_findings_log_merge(struct obs_findings_log *l, struct obs_findings *fs, double t,
			      size_t *news, size_t max);
/* Entries of at least severity sev. */
size_t obs_findings_log_count(const struct obs_findings_log *l, enum obs_severity sev);

#endif /* LOADLENS_OBSERVER_RULES_FINDINGS_LOG_H */
