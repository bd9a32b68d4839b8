/* SPDX-License-Identifier: MIT */
/* Request timing's writers: the live lines, the interval records, the text summary and the JSON
 * "request_timing", of the requests snapshot (tick/snapshots.h): its stats, each slot labelled by
 * the read, and what was attached. */
#ifndef LOADLENS_OBSERVER_OUTPUT_REQTIME_REPORT_H
#define LOADLENS_OBSERVER_OUTPUT_REQTIME_REPORT_H

#include <stdio.h>
#include <jansson.h>
#include "tick/snapshots.h"

/* The live lines of an interval (s->delta: its counts; s->cur: the totals at its end). */
int obs_reqtime_fmt_live(FILE *out, const struct obs_requests_snap *s, double interval_s);
/* The interval's record for the JSON's "intervals" (NULL: out of memory). */
json_t *obs_reqtime_fmt_interval(const struct obs_requests_snap *s, double t, double interval_s);
/* The text summary of the totals s->cur, with each slot's HTTP/2 and gRPC statuses (s->h2). */
int obs_reqtime_fmt_summary(FILE *out, const struct obs_requests_snap *s);
/* "request_timing" (docs/observer/request-timing.md) of the totals s->cur, the statuses and the
 * kept interval records. */
int obs_reqtime_fmt_json_add(json_t *root, const struct obs_requests_snap *s, json_t *intervals);

#endif /* LOADLENS_OBSERVER_OUTPUT_REQTIME_REPORT_H */
