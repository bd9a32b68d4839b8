/* SPDX-License-Identifier: MIT */
/*
 * A request-timing slot's histogram, from the buckets the read phase copied into its stats
 * (sources/reqtime_stats.h): a pure view of the tick's counts, which the requests feature (the
 * rules' percentiles) and output/ (the lines and the JSON) both take.
 */
#ifndef LOADLENS_OBSERVER_TICK_REQTIME_HIST_H
#define LOADLENS_OBSERVER_TICK_REQTIME_HIST_H

#include <stddef.h>
#include "loadlens/ll_hist.h"
#include "sources/reqtime_stats.h"

/* Histogram `which` (enum rt_comp, or OBS_REQTIME_SERVICE_LAST) of a slot, with exact sum and max. */
void obs_reqtime_hist(const struct obs_reqtime_stats *st, size_t slot, unsigned int which,
		      struct ll_hist *h);

#endif /* LOADLENS_OBSERVER_TICK_REQTIME_HIST_H */
