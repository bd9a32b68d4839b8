// SPDX-License-Identifier: MIT
/* Placeholder until reqmix.c: no request mix, nothing to report. */
#include "report.h"

int drv_report_json_mix(json_t *o, const struct drv_config *cfg, const struct drv_result *res)
{
	(void)cfg;
	(void)res;
	return json_object_set_new(o, "records", json_null());
}

void drv_report_mix(FILE *f, const struct drv_config *cfg, const struct drv_result *res)
{
	(void)f;
	(void)cfg;
	(void)res;
}
