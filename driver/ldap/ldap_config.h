/* SPDX-License-Identifier: MIT */
/*
 * --proto ldap: LDAP searches over tcp://HOST:PORT, or an ldap[s]://HOST[:PORT]/BASEDN target.
 * The options (--base, --scope, --filter, --attrs, --bind-dn, --bind-password-file, --starttls),
 * what they go with (ldap_config.c). The search they make, and its bytes: ldap_request.h.
 */
#ifndef LOADLENS_DRV_LDAP_CONFIG_H
#define LOADLENS_DRV_LDAP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include "ldap/ldap_request.h"

#define DRV_LDAP_PORT 389
#define DRV_LDAPS_PORT 636

struct drv_config;

/* One of the LDAP options (name without dashes: "proto", "base", ...). 0 or -EINVAL. */
int drv__config_ldap_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen);
/* An ldap:// or ldaps:// target: 1 (taken: cfg->url is tcp://HOST:PORT, --proto ldap on, and
 * ldaps:// is TLS), 0 (neither),
 * or -EINVAL with one line in err. */
int drv__config_ldap_url(struct drv_config *cfg, const char *s, char *err, size_t errlen);
/* After the command line: what the options go with, the templates, the password file. */
int drv__config_ldap_check(struct drv_config *cfg, bool resp_given, char *err, size_t errlen);
void drv__config_ldap_free(struct drv_config *cfg);
const char *drv_ldap_scope_name(enum drv_ldap_scope s);

#endif /* LOADLENS_DRV_LDAP_CONFIG_H */
