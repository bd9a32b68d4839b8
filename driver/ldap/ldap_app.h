/* SPDX-License-Identifier: MIT */
/* --proto ldap as an application protocol (config/app.h): its hooks in each layer (ldap_app.c). */
#ifndef LOADLENS_DRV_LDAP_APP_H
#define LOADLENS_DRV_LDAP_APP_H

#include "config/app.h"

extern const struct drv_app drv_ldap_app;

#endif /* LOADLENS_DRV_LDAP_APP_H */
