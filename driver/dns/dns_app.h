/* SPDX-License-Identifier: MIT */
/* --response dns as an application protocol (config/app.h): its framing, its records and its
 * counts (dns_app.c). */
#ifndef LOADLENS_DRV_DNS_APP_H
#define LOADLENS_DRV_DNS_APP_H

#include "config/app.h"

extern const struct drv_app drv_dns_app;

#endif /* LOADLENS_DRV_DNS_APP_H */
