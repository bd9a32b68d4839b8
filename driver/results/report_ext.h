/* SPDX-License-Identifier: MIT */
/*
 * A protocol's part of the results (config/app.h's report): its counts in the summary and in the
 * JSON under its name, read back by a merge, and what it was asked to do in the JSON's config and
 * in --print-plan. report_work.c, report_json.c, plan.c and merge.c call these for each protocol
 * registered, in order; a hook a protocol has no use for is NULL (DNS's RCODE counts are not
 * merged, and have no config or plan of their own).
 */
#ifndef LOADLENS_DRV_REPORT_EXT_H
#define LOADLENS_DRV_REPORT_EXT_H

#include <stdio.h>
#include <jansson.h>

struct drv_config;
struct drv_stats;

struct drv_report_ext {
	/* Its key in the result's JSON, when not the protocol's name (DNS's "dns_rcode"), or NULL. */
	const char *key;
	/* The result's object under the protocol's name: null when the run (or a merge) had none
	 * of it; NULL when out of memory. */
	json_t *(*json)(const struct drv_config *cfg, const struct drv_stats *t);
	/* That object (of a result file) added back into t (merge.c). */
	void (*merge)(struct drv_stats *t, const json_t *o);
	/* Its lines of the summary (none when the run had none of it). */
	void (*text)(FILE *f, const struct drv_config *cfg, const struct drv_stats *t);
	/* Its options into the JSON's config o, when given: 0, or -1 out of memory. */
	int (*config)(json_t *o, const struct drv_config *cfg);
	/* --print-plan's object under its name: null when the run is not its; NULL out of memory. */
	json_t *(*plan)(const struct drv_config *cfg);
};

#endif /* LOADLENS_DRV_REPORT_EXT_H */
