/* SPDX-License-Identifier: MIT */
/*
 * The --ndjson file: one record a line, interval records ("type":"interval") and finding events
 * ("type":"finding"). The first write error is said once on stderr and kept: the run then exits
 * non-zero (docs/observer/forensics.md).
 */
#ifndef LOADLENS_OBSERVER_OUTPUT_NDJSON_H
#define LOADLENS_OBSERVER_OUTPUT_NDJSON_H

#include <jansson.h>

struct obs_ndjson;

/* Create path (while privileged: after the drop, uid 0 has no DAC override). NULL, errno set,
 * one line printed, when it cannot be created. */
struct obs_ndjson *obs_ndjson_open(const char *prog, const char *path);
/* Write rec as one line and flush. Returns 0 or the (sticky) negative errno. */
int obs_ndjson_write(struct obs_ndjson *nd, json_t *rec);
/* The first write error so far (negative errno), or 0. */
int obs_ndjson_error(const struct obs_ndjson *nd);
/* Close; returns 0 or the first write error (a failing close included). NULL: 0. */
int obs_ndjson_close(struct obs_ndjson *nd);

#endif /* LOADLENS_OBSERVER_OUTPUT_NDJSON_H */
