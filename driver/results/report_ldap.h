/* SPDX-License-Identifier: MIT */
/* --proto ldap's part of the results (report_ldap.c), as its table (report_ext.h). */
#ifndef LOADLENS_DRV_REPORT_LDAP_H
#define LOADLENS_DRV_REPORT_LDAP_H

#include "results/report_ext.h"

extern const struct drv_report_ext drv_ldap_report;

#endif /* LOADLENS_DRV_REPORT_LDAP_H */
