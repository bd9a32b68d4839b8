/* SPDX-License-Identifier: MIT */
/*
 * Findings as text and JSON: the live line on stderr, the NDJSON event record, the summary's
 * list and the JSON "findings" array (docs/observer/findings.md). Pure functions of the findings
 * log.
 */
#ifndef LOADLENS_OBSERVER_RULES_FINDINGS_OUT_H
#define LOADLENS_OBSERVER_RULES_FINDINGS_OUT_H

#include <stdio.h>
#include <jansson.h>
#include "rules/findings_log.h"

/* "[12:00:07] fds: ..." (hhmmss: the wall clock of the interval) */
void obs_findings_out_line(char *buf, size_t len, const struct obs_finding *f, const char *hhmmss);
/* {"type":"finding","t":..,"time":"HH:MM:SS","kind":..,"severity":..,"text":..,"evidence":{}} */
json_t *obs_findings_out_event(const struct obs_finding *f, double t, const char *hhmmss);
/* The summary's "findings:" block. Returns 0 or -EIO. */
int obs_findings_out_text(FILE *out, const struct obs_findings_log *l);
/* [{"kind", "severity", "text", "evidence", "first_seen", "last_seen"}, ...] */
json_t *obs_findings_out_json(const struct obs_findings_log *l);

#endif /* LOADLENS_OBSERVER_RULES_FINDINGS_OUT_H */
