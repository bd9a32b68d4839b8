/* SPDX-License-Identifier: MIT */
/*
 * Who holds the ports: the processes whose fds are the TCP connections of the most used port
 * group of the census (src -> dst:port), how many each, and whether they read them, from one
 * pass of the BPF task_file iterator (fditer.h) over every file of every process. That pass is
 * the cost of a census or more, so it runs only under port pressure (the group at
 * OBS_RULE_PORT_PCT of the range, or connect() failing with EADDRNOTAVAIL this interval), at most
 * once a second; its result is carried into the rules' snapshots that follow (snapshot.h,
 * holders). Part of the processes feature, which owns the iterator.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_HOLDERS_H
#define LOADLENS_OBSERVER_FEATURES_HOLDERS_H

#include <stdbool.h>
#include <stdint.h>
#include "rules/snapshot.h"

#define OBS_HOLDERS_EVERY_S 1.0 /* the least time between two passes */

struct obs_fditer;
struct obs_sockstat_snap;

struct obs_holders {
	struct obs_snap_holders last; /* the last pass that succeeded (on: there was one) */
	double last_t;		      /* run time of the last pass */
	uint64_t passes, failed;      /* passes run; of which the iterator failed */
	double ms_max;		      /* the slowest pass (ms) */
	bool off;		      /* the kernel has no holders program (fditer.h) */
};

/* The interval's part: a pass when the port group is pressed (fails: connect()'s EADDRNOTAVAIL
 * this interval), and the last pass' holders into s. it NULL (no iterator): none. */
void obs_holders_tick(struct obs_holders *h, struct obs_fditer *it, uint32_t netns,
		      const struct obs_sockstat_snap *ss, uint64_t fails, double t,
		      struct obs_snap *s);

#endif /* LOADLENS_OBSERVER_FEATURES_HOLDERS_H */
