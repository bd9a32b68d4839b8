/* SPDX-License-Identifier: MIT */
/* h2_report.c: http/2 and grpc lines of the summary, their hints, JSON ("h2", "grpc_status"),
 * and their merge from a result document. */
#ifndef LOADLENS_DRV_H2_REPORT_H
#define LOADLENS_DRV_H2_REPORT_H

#include <stdio.h>
#include <jansson.h>

struct drv_config;
struct drv_result;
struct drv_stats;

void drv_report_h2(FILE *f, const struct drv_config *cfg, const struct drv_stats *t);
void drv_report_h2_hints(FILE *f, const struct drv_config *cfg, const struct drv_stats *t);
int drv_report_json_h2(json_t *o, const struct drv_config *cfg, const struct drv_result *res);
void drv_merge_h2(struct drv_stats *t, const json_t *doc);

#endif /* LOADLENS_DRV_H2_REPORT_H */
