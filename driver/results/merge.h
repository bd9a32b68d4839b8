/* SPDX-License-Identifier: MIT */
/*
 * `loadlens-driver merge a.json b.json ...`: combine runs (shards on several machines, or runs
 * one after another) exactly. Counters add, histograms merge bucket by bucket, the window runs
 * from the earliest start to the latest end; percentiles are computed again from the merged
 * histograms, never averaged.
 */
#ifndef LOADLENS_DRV_MERGE_H
#define LOADLENS_DRV_MERGE_H

#include <stddef.h>
#include <jansson.h>
#include "config/config.h"
#include "results/result.h"

struct drv_merge {
	struct drv_config cfg; /* for the report: from the first run, with totals */
	struct drv_result res; /* res.total initialised by drv_merge_init() */
	char target[LL_HOST_MAX + LL_PATH_MAX + 32];
	uint64_t end_unix_ns;
	double rate_sum, rate_shard;
	bool shards_agree;
};

int drv_merge_init(struct drv_merge *m);
void drv_merge_fini(struct drv_merge *m);
/* Add one run document. Returns 0, or -EINVAL with a one-line reason in err. */
int drv_merge_add(struct drv_merge *m, const json_t *doc, char *err, size_t errlen);
/* After the last drv_merge_add(): derive duration and rate. */
void drv_merge_finish(struct drv_merge *m);
/* The subcommand; argv[0] is "merge". Returns the exit status. */
int drv_merge_main(int argc, char **argv);

#endif /* LOADLENS_DRV_MERGE_H */
