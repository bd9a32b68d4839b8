/* SPDX-License-Identifier: MIT */
/* --proto ldap's part of the results (ldap_report.c), as its table (report_ext.h). */
#ifndef LOADLENS_DRV_LDAP_REPORT_H
#define LOADLENS_DRV_LDAP_REPORT_H

#include "results/report_ext.h"

extern const struct drv_report_ext drv_ldap_report;

#endif /* LOADLENS_DRV_LDAP_REPORT_H */
