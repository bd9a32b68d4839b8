/* SPDX-License-Identifier: MIT */
/*
 * LDAP request bytes (RFC 4511), encoded with liblber: the BindRequest sent at connect (simple:
 * anonymous, or --bind-dn with its password) and the SearchRequest of each request, its base and
 * filter templates expanded afresh, numbers unpadded. struct drv_ldap_cfg is the search (filled
 * from the options by ldap_config.c); per thread, a struct drv_ldap_req.
 */
#ifndef LOADLENS_DRV_LDAP_REQUEST_H
#define LOADLENS_DRV_LDAP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config/template.h"

#define DRV_LDAP_MSGID_MAX 0x7fffffff /* MessageID ::= INTEGER (0 .. maxInt) */
#define DRV_LDAP_MAX_ATTRS 64
#define DRV_LDAP_DEFAULT_FILTER "(objectClass=*)"

/* RFC 4511's SearchRequest scope */
enum drv_ldap_scope { DRV_LDAP_BASE = 0, DRV_LDAP_ONE = 1, DRV_LDAP_SUB = 2 };

/* TLS for LDAP: none, from the start (ldaps://, port 636), or after StartTLS (--starttls) */
enum drv_ldap_tls { DRV_LDAP_TLS_NONE = 0, DRV_LDAP_TLS_LDAPS, DRV_LDAP_TLS_STARTTLS };

/* --proto ldap: the options as given, and the search and bind they make */
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
	enum drv_ldap_tls tls;	/* ldaps:// or --starttls (protocols/proto_tcp_tls.c) */
	bool starttls;		/* --starttls was given */
};

struct drv_ldap_req {
	const struct drv_ldap_cfg *lc;
	struct drv_tpl_ctx tc;
	char *base;   /* the expanded templates (owned) */
	char *filter;
};

/* Per thread: seed the templates (as --requests-file does: --seed, the worker). 0 or -ENOMEM. */
int drv_ldap_req_init(struct drv_ldap_req *q, const struct drv_ldap_cfg *lc, uint64_t seed,
		      uint32_t worker, uint32_t nworkers);
void drv_ldap_req_fini(struct drv_ldap_req *q);
/*
 * The next SearchRequest with message id msgid (1..DRV_LDAP_MSGID_MAX) into out (lc->max_len
 * bytes): its length, or a negative errno (-EINVAL: the filter does not parse, one line in err).
 */
long drv_ldap_search(struct drv_ldap_req *q, int32_t msgid, char *out, size_t cap, char *err,
		     size_t errlen);
/* The BindRequest (LDAPv3, simple) with message id msgid into out: its length, or -errno. */
long drv_ldap_bind(const struct drv_ldap_cfg *lc, int32_t msgid, char *out, size_t cap);
/* The next message id after id: 1, 2, ... DRV_LDAP_MSGID_MAX, then 1 again. */
static inline int32_t drv_ldap_next_id(int32_t id)
{
	return id >= DRV_LDAP_MSGID_MAX || id < 1 ? 1 : id + 1;
}

#endif /* LOADLENS_DRV_LDAP_REQUEST_H */
