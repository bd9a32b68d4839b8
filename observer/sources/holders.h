/* SPDX-License-Identifier: MIT */
/*
 * Who holds the ports: the processes whose fds are the TCP connections of the most used port
 * group of the census (src -> dst:port), how many each, and whether they read them, from one
 * pass of the BPF task_file iterator (fditer.h) over every file of every process. That pass is
 * the cost of a census or more, so it runs only under port pressure (the group at
 * OBS_RULE_PORT_PCT of the range, or connect() failing with EADDRNOTAVAIL this interval), at most
 * once a second; the tick's read phase runs it (tick_reader.h), and the processes feature carries
 * the last result into the rules' snapshots that follow (snapshot.h, holders).
 */
#ifndef LOADLENS_OBSERVER_SOURCES_HOLDERS_H
#define LOADLENS_OBSERVER_SOURCES_HOLDERS_H

#include <stdbool.h>
#include <stdint.h>
#include "rules/snapshot.h"
#include "sources/census_types.h"

#define OBS_HOLDERS_EVERY_S 1.0 /* the least time between two passes */

struct obs_fditer;

struct obs_holders {
	struct obs_snap_holders last; /* the last pass that succeeded (on: there was one) */
	double last_t;		      /* run time of the last pass */
	uint64_t passes, failed;      /* passes run; of which the iterator failed */
	double ms_max;		      /* the slowest pass (ms) */
	bool off;		      /* the kernel has no holders program (fditer.h) */
};

/* The interval's pass, when the most used port group of census cs (the last one; NULL: none
 * taken yet; fresh: taken this interval) is pressed (fails: connect()'s EADDRNOTAVAIL this
 * interval), at most every OBS_HOLDERS_EVERY_S; h->last keeps the last result. it NULL (no
 * iterator): none. */
void obs_holders_read(struct obs_holders *h, struct obs_fditer *it, uint32_t netns,
		      const struct obs_census *cs, bool fresh, uint64_t fails, double t);

#endif /* LOADLENS_OBSERVER_SOURCES_HOLDERS_H */
