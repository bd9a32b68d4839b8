/* SPDX-License-Identifier: MIT */
/*
 * --print-plan: the configuration a command line resolves to, as one JSON object (docs/driver.md,
 * "The plan"), so that tools read the driver's own parse instead of keeping a copy of its options.
 */
#ifndef LOADLENS_DRV_PLAN_H
#define LOADLENS_DRV_PLAN_H

#include <stdio.h>
#include <jansson.h>

struct drv_config;

#define DRV_PLAN_SCHEMA 1

/* The plan of a parsed configuration; NULL on allocation failure. */
json_t *drv_plan_json(const struct drv_config *cfg);
/* The plan key that shows long option name ("connect-rate"), or NULL for one that is no part of
 * a plan (help, version, print-plan) or unknown. */
const char *drv_plan_key(const char *option);
/* drv_plan_json() on f, one line: 0 or a negative errno. */
int drv_plan_print(FILE *f, const struct drv_config *cfg);

#endif /* LOADLENS_DRV_PLAN_H */
