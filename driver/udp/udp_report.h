/* SPDX-License-Identifier: MIT */
/* udp_report.c: the udp lines of the summary (lost, late, duplicate, unmatched, drops), hints. */
#ifndef LOADLENS_DRV_UDP_REPORT_H
#define LOADLENS_DRV_UDP_REPORT_H

#include <stdio.h>

struct drv_config;
struct drv_stats;

void drv_report_udp(FILE *f, const struct drv_config *cfg, const struct drv_stats *t);

#endif /* LOADLENS_DRV_UDP_REPORT_H */
