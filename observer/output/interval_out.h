/* SPDX-License-Identifier: MIT */
/*
 * One interval's output, after the features filled the tick: the NDJSON interval record
 * (interval_record.c, to --ndjson) and the live lines (the connections' line, summary.c, then
 * request timing's, reqtime_report.c).
 */
#ifndef LOADLENS_OBSERVER_OUTPUT_INTERVAL_OUT_H
#define LOADLENS_OBSERVER_OUTPUT_INTERVAL_OUT_H

#include <stdio.h>
#include "tick/record.h"
#include "tick/tick.h"

struct obs_ndjson;

/* rec to nd (NULL: no --ndjson), then the live lines to live (NULL: none this interval).
 * Returns 0, or the --ndjson file's first write error (negative errno, said once). */
int obs_interval_out(const char *prog, const struct obs_tick *tk, const struct obs_record *rec,
		     struct obs_ndjson *nd, FILE *live);

#endif /* LOADLENS_OBSERVER_OUTPUT_INTERVAL_OUT_H */
