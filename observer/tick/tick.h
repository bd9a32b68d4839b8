/* SPDX-License-Identifier: MIT */
/*
 * One interval as the observer passes it along (observer/tick/): the read phase's reads
 * (struct obs_reads, sources/tick_reader.h, which only the features read), then the features
 * fill it in their order (features/feature.h), the output writes it (output/), the rules read its
 * snapshot (rules/snapshot.h). The snapshot types are in tick/snapshots.h, the NDJSON record's in
 * tick/record.h; this header only names them.
 */
#ifndef LOADLENS_OBSERVER_TICK_TICK_H
#define LOADLENS_OBSERVER_TICK_TICK_H

#include <stdbool.h>
#include "rules/snapshot.h"

struct obs_reads;
struct obs_census_plan;
struct obs_record;
struct obs_connections_snap;
struct obs_failures_snap;
struct obs_sockstat_snap;
struct obs_processes_snap;
struct obs_netstat_snap;
struct obs_requests_snap;

/* One interval, as the features pass it along: the snapshots of the features that ticked. */
struct obs_tick {
	double t;	       /* seconds since start, end of the interval */
	double dt;	       /* its length */
	bool final;	       /* the final read, after the signal */
	bool records;	       /* interval records kept for --json: live lines and no --metrics */
	const struct obs_reads *reads;	     /* everything this interval read */
	struct obs_census_plan *census_plan; /* the census walk's next time, for the next read */
	struct obs_snap *snap; /* the rules' snapshot: each feature fills its part */
	/* the NDJSON interval record's data (tick/record.h): each feature fills
	 * its part, the loop writes it */
	struct obs_record *rec;
	const struct obs_connections_snap *conn;
	const struct obs_failures_snap *fail;
	const struct obs_sockstat_snap *sockstat;
	const struct obs_processes_snap *procs;
	const struct obs_netstat_snap *netstat;
	const struct obs_requests_snap *req; /* NULL: request timing off */
};

#endif /* LOADLENS_OBSERVER_TICK_TICK_H */
