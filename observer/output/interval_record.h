/* SPDX-License-Identifier: MIT */
/*
 * The NDJSON interval record (docs/observer/forensics.md, "NDJSON"), written by a pure function of
 * the interval's data (tick/record.h, and the rules' snapshot it points to), which the features
 * fill; observer/main.c's loop writes it through this.
 */
#ifndef LOADLENS_OBSERVER_INTERVAL_RECORD_H
#define LOADLENS_OBSERVER_INTERVAL_RECORD_H

#include <stddef.h>
#include <jansson.h>
#include "tick/record.h"

/* The record {"type":"interval", ...}; NULL when out of memory. */
json_t *obs_record_json(const struct obs_record *iv);
/* The "fds" array of the record and of the summary JSON. */
json_t *obs_record_procs_json(const struct obs_proc *procs, size_t n);

#endif /* LOADLENS_OBSERVER_INTERVAL_RECORD_H */
