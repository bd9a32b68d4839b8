/* SPDX-License-Identifier: MIT */
/* Everything the driver prints: banner, live line, summary with hints, and the JSON file. */
#ifndef LOADLENS_DRV_REPORT_H
#define LOADLENS_DRV_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

struct drv_config;
struct drv_result;

void drv_report_banner(FILE *f, const struct drv_config *cfg);
void drv_report_live(FILE *f, uint64_t elapsed_ns, uint64_t requests, double rps,
		     uint64_t connections, uint64_t errors);
void drv_report_summary(FILE *f, const struct drv_config *cfg, const struct drv_result *res);
/* The result document (schema in docs/driver.md); NULL on allocation failure. */
json_t *drv_report_json(const struct drv_config *cfg, const struct drv_result *res);
/* Write drv_report_json() to path: 0 or a negative errno. */
int drv_report_json_write(const char *path, const struct drv_config *cfg,
			  const struct drv_result *res);

#endif /* LOADLENS_DRV_REPORT_H */
