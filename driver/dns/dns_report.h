/* SPDX-License-Identifier: MIT */
/* --response dns's part of the results (dns_report.c), as its table (results/report_ext.h). */
#ifndef LOADLENS_DRV_DNS_REPORT_H
#define LOADLENS_DRV_DNS_REPORT_H

#include "results/report_ext.h"

extern const struct drv_report_ext drv_dns_report;

#endif /* LOADLENS_DRV_DNS_REPORT_H */
