/* SPDX-License-Identifier: MIT */
/*
 * --proto ldap: LDAP searches over tcp://HOST:PORT, or an ldap://HOST[:PORT]/BASEDN target. The
 * options (--base, --scope, --filter, --attrs, --bind-dn, --bind-password-file), what they go
 * with, and the search they make (config_ldap.c). The request bytes: ldap_request.h.
 */
#ifndef LOADLENS_DRV_CONFIG_LDAP_H
#define LOADLENS_DRV_CONFIG_LDAP_H

#include <stdbool.h>
#include <stddef.h>
#include "config/template.h"

#define DRV_LDAP_PORT 389
#define DRV_LDAP_MAX_ATTRS 64
#define DRV_LDAP_DEFAULT_FILTER "(objectClass=*)"

struct drv_config;

/* RFC 4511's SearchRequest scope */
enum drv_ldap_scope { DRV_LDAP_BASE = 0, DRV_LDAP_ONE = 1, DRV_LDAP_SUB = 2 };

struct drv_ldap_cfg {
	bool on;	      /* --proto ldap (or an ldap:// target) */
	const char *base_src; /* --base DN, as given (templated) */
	const char *filter_src;
	const char *attrs_src;
	const char *pw_path;  /* --bind-password-file */
	bool scope_given;
	struct drv_tpl base;   /* parsed at the check */
	struct drv_tpl filter;
	enum drv_ldap_scope scope; /* default sub */
	char *attrs[DRV_LDAP_MAX_ATTRS + 1]; /* NULL-terminated (owned) */
	const char *bind_dn;	/* --bind-dn; NULL: anonymous */
	char *password;		/* the password file's first line (owned) */
	size_t password_len;
	size_t max_len;		/* the longest request these encode to */
	char url_base[2048];	/* ldap://HOST/BASEDN: the base DN, percent-decoded */
};

/* One of the LDAP options (name without dashes: "proto", "base", ...). 0 or -EINVAL. */
int drv__config_ldap_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen);
/* An ldap:// target: 1 (taken: cfg->url is tcp://HOST:PORT, --proto ldap on), 0 (not ldap://),
 * or -EINVAL with one line in err. */
int drv__config_ldap_url(struct drv_config *cfg, const char *s, char *err, size_t errlen);
/* After the command line: what the options go with, the templates, the password file. */
int drv__config_ldap_check(struct drv_config *cfg, bool resp_given, char *err, size_t errlen);
void drv__config_ldap_free(struct drv_config *cfg);
const char *drv_ldap_scope_name(enum drv_ldap_scope s);

#endif /* LOADLENS_DRV_CONFIG_LDAP_H */
