/* SPDX-License-Identifier: MIT */
/* Request timing's writers: the live lines, the interval records, the text summary and the JSON
 * "request_timing", of the stats given (sources/reqtime_stats.h), labelled by the object rt. */
#ifndef LOADLENS_OBSERVER_OUTPUT_REQTIME_REPORT_H
#define LOADLENS_OBSERVER_OUTPUT_REQTIME_REPORT_H

#include <stdio.h>
#include <jansson.h>
#include "sources/reqtime_stats.h"

struct obs_h2_status_counts;

/* The live lines of an interval (d: its delta; cur: the totals at its end). */
int obs_reqtime_fmt_live(FILE *out, const struct obs_reqtime *rt, const struct obs_reqtime_stats *d,
		    const struct obs_reqtime_stats *cur, double interval_s);
/* The interval's record for the JSON's "intervals" (NULL: out of memory). */
json_t *obs_reqtime_fmt_interval(const struct obs_reqtime *rt, const struct obs_reqtime_stats *d,
			    const struct obs_reqtime_stats *cur, double t, double interval_s);
/* The text summary of the totals st; h2: each slot's HTTP/2 and gRPC statuses (sources/
 * h2_status.h), NULL where they are not read. */
int obs_reqtime_fmt_summary(FILE *out, const struct obs_reqtime *rt, const struct obs_reqtime_stats *st,
			    const struct obs_h2_status_counts *h2);
/* "request_timing" (docs/observer/request-timing.md) of the totals st, the statuses h2 (or NULL)
 * and the kept interval records. */
int obs_reqtime_fmt_json_add(json_t *root, const struct obs_reqtime *rt,
			const struct obs_reqtime_stats *st, const struct obs_h2_status_counts *h2,
			json_t *intervals);

#endif /* LOADLENS_OBSERVER_OUTPUT_REQTIME_REPORT_H */
