// SPDX-License-Identifier: MIT
/*
 * A scrape's read of request timing: the interval's own reader, obs_reqtime_read(). It is cheap
 * enough for scrapes: the histograms are a memory-mapped array read with no system call, and a
 * histogram is summed over CPUs again only when its count moved since the last read (tick or
 * scrape); the counters are one batch per map. The scrape reads into its own stats, so the
 * features' interval deltas are not disturbed.
 */
#include "metrics/metrics_src.h"
#include "sources/reqtime_stats.h"

int obs_mx_reqtime_read(struct obs_reqtime *rt, struct obs_reqtime_stats *st)
{
	return obs_reqtime_read(rt, st);
}
