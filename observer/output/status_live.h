/* SPDX-License-Identifier: MIT */
/*
 * The live lines' response statuses (docs/observer.md, "Live line"): under the request lines, one
 * short line per port with statuses this interval, from the rules' snapshot (rules/snapshot.h,
 * struct obs_snap_status: HTTP/2 :status and gRPC grpc-status; HTTP/1 responses are not read).
 */
#ifndef LOADLENS_OBSERVER_OUTPUT_STATUS_LIVE_H
#define LOADLENS_OBSERVER_OUTPUT_STATUS_LIVE_H

#include <stddef.h>
#include <stdio.h>
#include "rules/snapshot.h"

/* "st 2xx:1.2k 4xx:30 grpc!OK:12" into buf: the classes with any, then the gRPC calls that ended
 * not OK (no grpc-status included) where any did; "" when st holds none. Pure. */
void obs_status_compact(char *buf, size_t len, const struct obs_snap_status *st);
/* "  tcp/8080  st 2xx:1.2k 4xx:30" for each port of s with statuses this interval. */
void obs_status_live(FILE *out, const struct obs_snap *s);

#endif /* LOADLENS_OBSERVER_OUTPUT_STATUS_LIVE_H */
