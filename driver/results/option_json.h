/* SPDX-License-Identifier: MIT */
/*
 * An option's value as JSON, read through its descriptor (config/options.h): what the plan
 * (plan.c) and a result's config (report_json.c) show for the options of a plain KIND.
 */
#ifndef LOADLENS_DRV_OPTION_JSON_H
#define LOADLENS_DRV_OPTION_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "config/config.h"
#include "config/options.h"

/* Durations as the plan shows them (seconds) or as a result does (nanoseconds). */
enum drv_option_units {
	DRV_UNITS_PLAN,
	DRV_UNITS_RESULT,
};

/* Option id's value in cfg (json_null() for an unset one), or NULL: no memory, or an option of
 * DRV_OPT_KIND_NONE, which its caller shows itself. */
json_t *drv_option_json(const struct drv_config *cfg, enum drv_opt id, enum drv_option_units u);
/* Option id's value (drv_option_json()) under its key: the plan's (DRV_UNITS_PLAN) or a
 * result's; 0, or -1 when anything failed (drv_json_set()). */
int drv_option_set(json_t *o, const struct drv_config *cfg, enum drv_opt id,
		   enum drv_option_units u);
/* json_object_set_new() with a check: -1 for a NULL v (no memory) or a failed set, so that a
 * caller can OR the results of many and drop what it built on any failure. */
static inline int drv_json_set(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}
static inline json_t *drv_json_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}
/* The user's text as a JSON string, bytes that are not UTF-8 as \xHH (json_null() for NULL), or
 * NULL on no memory. */
json_t *drv_json_text(const char *s);

#endif /* LOADLENS_DRV_OPTION_JSON_H */
