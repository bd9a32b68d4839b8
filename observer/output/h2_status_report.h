/* SPDX-License-Identifier: MIT */
/* HTTP/2 and gRPC statuses (sources/h2_status.h's counts, per slot in the requests snapshot):
 * the summary's lines and the JSON. */
#ifndef LOADLENS_OBSERVER_OUTPUT_H2_STATUS_REPORT_H
#define LOADLENS_OBSERVER_OUTPUT_H2_STATUS_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "tick/snapshots.h"

/*
 * ends and lost: the kernel's counters of the slot (h2_hb_ends: stream-ending header
 * blocks written; h2_hb_lost + h2_hb_big: times a connection's records stopped).
 * The summary's line of a slot (nothing when it saw no header block and none was lost):
 * "responses by :status: 200 19990, 404 10; gRPC calls by grpc-status: OK 5400, ...".
 */
void obs_h2_status_fmt(FILE *out, const struct obs_h2_status_counts *c, uint64_t ends,
		       uint64_t lost_conns, uint64_t big_conns);
/* The slot's JSON: {"status": {"200": n}, "grpc_status": {"OK": n}, "grpc_no_status": n,
 * "blocks": n, "undecoded": n, "partial": n, "ends_unread": n, ...}; NULL on no memory. */
json_t *obs_h2_status_json(const struct obs_h2_status_counts *c, uint64_t ends,
			   uint64_t lost_conns, uint64_t big_conns);

#endif /* LOADLENS_OBSERVER_OUTPUT_H2_STATUS_REPORT_H */
