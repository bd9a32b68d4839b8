// SPDX-License-Identifier: MIT
/*
 * --proto ldap and its options (ldap_config.h). The target is tcp://HOST:PORT with --proto ldap,
 * or an RFC 4516 URL, ldap://HOST[:PORT][/BASEDN[?ATTRS[?SCOPE[?FILTER]]]] (port 389,
 * percent-escapes decoded), whose parts stand for --base, --attrs, --scope and --filter; ldaps://
 * is the same over TLS (port 636), and --starttls upgrades an ldap:// connection before its bind.
 * A password is only ever read from a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/parse.h"
#include "config/config.h"
#include "ldap/ldap_config.h"
#include "config/config_payload.h"
#include "ldap/ldap_request.h"
#include "config/option.h"

static struct drv_ldap_cfg *ldap_of(struct drv_config *cfg)
{
	if (!cfg->ldap) {
		cfg->ldap = calloc(1, sizeof(*cfg->ldap));
		if (cfg->ldap)
			cfg->ldap->scope = DRV_LDAP_SUB;
	}
	return cfg->ldap;
}

const char *drv_ldap_scope_name(enum drv_ldap_scope s)
{
	return s == DRV_LDAP_BASE ? "base" : s == DRV_LDAP_ONE ? "one" : "sub";
}

static int scope(struct drv_ldap_cfg *lc, const char *v, char *err, size_t errlen)
{
	if (!strcmp(v, "base"))
		lc->scope = DRV_LDAP_BASE;
	else if (!strcmp(v, "one") || !strcmp(v, "onelevel"))
		lc->scope = DRV_LDAP_ONE;
	else if (!strcmp(v, "sub") || !strcmp(v, "subtree"))
		lc->scope = DRV_LDAP_SUB;
	else
		return drv__config_fail(err, errlen, "--scope %s: expected base, one or sub", v);
	lc->scope_given = true;
	return 0;
}

int drv__config_ldap_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen)
{
	struct drv_ldap_cfg *lc = ldap_of(cfg);

	if (!lc)
		return drv__config_fail(err, errlen, "out of memory");
	if (!strcmp(name, "proto"))
		lc->on = true;
	else if (!strcmp(name, "base"))
		lc->base_src = v;
	else if (!strcmp(name, "scope"))
		return scope(lc, v, err, errlen);
	else if (!strcmp(name, "filter"))
		lc->filter_src = v;
	else if (!strcmp(name, "attrs") && (!*v || v[strlen(v) - 1] == ','))
		return drv__config_fail(err, errlen, "--attrs '%s': %s", v, *v ? "a name after "
					"each comma" : "no attribute named (leave --attrs out for "
					"all user attributes, or give 1.1 for none)");
	else if (!strcmp(name, "attrs"))
		lc->attrs_src = v;
	else if (!strcmp(name, "bind-dn") && !*v)
		return drv__config_fail(err, errlen, "--bind-dn: an empty DN binds no one (leave "
					"--bind-dn and --bind-password-file out for an anonymous "
					"bind)");
	else if (!strcmp(name, "bind-dn"))
		lc->bind_dn = v;
	else if (!strcmp(name, "bind-password-file"))
		lc->pw_path = *v ? v : NULL;
	else if (!strcmp(name, "starttls"))
		lc->starttls = true;
	else
		return drv__config_fail(err, errlen, "--%s: not an LDAP option", name);
	if (!strcmp(name, "bind-password-file") && !*v)
		return drv__config_fail(err, errlen, "--bind-password-file: empty file name");
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* %HH in place; -1 on a bad escape or a decoded NUL. */
static int pct_decode(char *s)
{
	char *o = s;
	int hi, lo;

	for (; *s; s++) {
		if (*s != '%') {
			*o++ = *s;
			continue;
		}
		hi = hexval(s[1]);
		lo = hi < 0 ? -1 : hexval(s[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return -1;
		*o++ = (char)(hi << 4 | lo);
		s += 2;
	}
	*o = '\0';
	return 0;
}

int drv__config_ldap_url(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	char tcp[LL_HOST_MAX + 16], *parts[4] = {0}, *q;
	struct drv_ldap_cfg *lc;
	bool ldaps = !strncmp(s, "ldaps://", 8);
	const char *slash, *hp = s + (ldaps ? 8 : 7);
	size_t hlen;
	int i;

	if (!ldaps && strncmp(s, "ldap://", 7))
		return 0;
	lc = ldap_of(cfg);
	if (!lc)
		return drv__config_fail(err, errlen, "out of memory");
	lc->tls = ldaps ? DRV_LDAP_TLS_LDAPS : DRV_LDAP_TLS_NONE;
	slash = strchr(hp, '/');
	hlen = slash ? (size_t)(slash - hp) : strlen(hp);
	if (!hlen || hlen > LL_HOST_MAX || strlen(slash ? slash : "") >= sizeof(lc->url_base))
		goto bad;
	/* a port of its own, or 389 (636): "host", "[v6]" take it; "host:port", "[v6]:port" have
	 * one */
	if (hp[hlen - 1] == ']' || !memchr(hp, ':', hlen))
		snprintf(tcp, sizeof(tcp), "tcp://%.*s:%d", (int)hlen, hp,
			 ldaps ? DRV_LDAPS_PORT : DRV_LDAP_PORT);
	else
		snprintf(tcp, sizeof(tcp), "tcp://%.*s", (int)hlen, hp);
	if (ll_parse_url(tcp, &cfg->url))
		goto bad;
	lc->on = true;
	if (!slash)
		return 1;
	strcpy(lc->url_base, slash + 1);
	for (i = 0, q = lc->url_base; i < 4 && q; i++) {
		parts[i] = q;
		q = strchr(q, '?');
		if (q)
			*q++ = '\0';
	}
	if (q) /* extensions: none taken */
		return drv__config_fail(err, errlen, "%s: URL extensions (a 5th '?' part) are not "
					"supported", s);
	for (i = 0; i < 4; i++) {
		if (parts[i] && pct_decode(parts[i]))
			return drv__config_fail(err, errlen, "%s: a bad %%-escape", s);
	}
	if ((parts[0] && *parts[0] && lc->base_src) || (parts[1] && *parts[1] && lc->attrs_src) ||
	    (parts[2] && *parts[2] && lc->scope_given) ||
	    (parts[3] && *parts[3] && lc->filter_src))
		return drv__config_fail(err, errlen, "%s: the URL and --base, --attrs, --scope or "
					"--filter name the same part: give it once", s);
	if (parts[0] && *parts[0])
		lc->base_src = parts[0];
	if (parts[1] && *parts[1])
		lc->attrs_src = parts[1];
	if (parts[2] && *parts[2] && scope(lc, parts[2], err, errlen))
		return -EINVAL;
	if (parts[3] && *parts[3])
		lc->filter_src = parts[3];
	return 1;
bad:
	return drv__config_fail(err, errlen, "bad target '%s': expected %s://HOST[:PORT][/BASEDN"
				"[?ATTRS[?SCOPE[?FILTER]]]]", s, ldaps ? "ldaps" : "ldap");
}

/* --attrs a,b,c into lc->attrs */
static int attrs(struct drv_ldap_cfg *lc, char *err, size_t errlen)
{
	const char *p = lc->attrs_src, *e;
	unsigned n = 0;
	size_t k;

	while (p && *p) {
		e = strchr(p, ',');
		k = e ? (size_t)(e - p) : strlen(p);
		if (!k || strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				 "-.;*+") < k)
			return drv__config_fail(err, errlen, "--attrs %s: expected attribute names "
						"separated by commas (or * and +)", lc->attrs_src);
		if (n == DRV_LDAP_MAX_ATTRS)
			return drv__config_fail(err, errlen, "--attrs: at most %d attributes",
						DRV_LDAP_MAX_ATTRS);
		lc->attrs[n] = strndup(p, k);
		if (!lc->attrs[n++])
			return drv__config_fail(err, errlen, "out of memory");
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* The password file's first line, without its line end. */
static int password(struct drv_ldap_cfg *lc, char *err, size_t errlen)
{
	size_t n;
	char *nl;

	if (drv__config_slurp("--bind-password-file", lc->pw_path, &lc->password,
			      &lc->password_len, err, errlen))
		return -EINVAL;
	n = lc->password_len;
	nl = memchr(lc->password, '\n', n);
	if (nl)
		n = (size_t)(nl - lc->password);
	if (n && lc->password[n - 1] == '\r')
		n--;
	lc->password_len = n;
	if (!n)
		return drv__config_fail(err, errlen, "--bind-password-file %s: the first line is "
					"empty (an empty password is an unauthenticated bind)",
					lc->pw_path);
	return 0;
}

/* Encode a bind and the longest search once: the filter parses, and the bytes' bound. */
static int sizes(struct drv_ldap_cfg *lc, char *err, size_t errlen)
{
	struct drv_ldap_req q;
	size_t cap = 256 + 4 * (lc->base.len + lc->filter.len + lc->password_len +
				(lc->bind_dn ? strlen(lc->bind_dn) : 0));
	char *buf, msg[192];
	long n, b;
	unsigned i;

	for (i = 0; lc->attrs[i]; i++)
		cap += 4 * strlen(lc->attrs[i]) + 8;
	buf = malloc(cap);
	if (!buf || drv_ldap_req_init(&q, lc, 0, 0, 1)) {
		free(buf);
		return drv__config_fail(err, errlen, "out of memory");
	}
	n = drv_ldap_search(&q, DRV_LDAP_MSGID_MAX, buf, cap, msg, sizeof(msg));
	b = drv_ldap_bind(lc, DRV_LDAP_MSGID_MAX, buf, cap);
	drv_ldap_req_fini(&q);
	free(buf);
	if (n == -EINVAL)
		return drv__config_fail(err, errlen, "--filter %s: %s", lc->filter_src, msg);
	if (n < 0 || b < 0)
		return drv__config_fail(err, errlen, "--filter: cannot encode the search (%s)",
					strerror((int)-(n < 0 ? n : b)));
	lc->max_len = (size_t)(n > b ? n : b);
	return 0;
}

int drv__config_ldap_check(struct drv_config *cfg, bool resp_given, char *err, size_t errlen)
{
	struct drv_ldap_cfg *lc = cfg->ldap;
	const char *f;

	if (!lc)
		return 0;
	if (lc->starttls && !lc->on)
		return drv__config_fail(err, errlen, "--starttls is for ldap:// targets (or tcp:// "
					"with --proto ldap)");
	if (lc->starttls && lc->tls == DRV_LDAP_TLS_LDAPS)
		return drv__config_fail(err, errlen, "--starttls with ldaps://: that connection is "
					"TLS from the start; use ldap:// with --starttls, or "
					"ldaps:// alone");
	if (lc->starttls)
		lc->tls = DRV_LDAP_TLS_STARTTLS;
	if (!lc->on)
		return drv__config_fail(err, errlen, "--base, --scope, --filter, --attrs, --bind-dn "
					"and --bind-password-file go with --proto ldap");
	if (cfg->url.scheme != LL_SCHEME_TCP)
		return drv__config_fail(err, errlen, "--proto ldap goes with tcp://HOST:PORT (or an "
					"ldap[s]://HOST[:PORT]/BASEDN target)");
	if (cfg->mc_udp)
		return drv__config_fail(err, errlen, "one --proto: ldap or memcache-udp");
	if (cfg->payload || cfg->requests_path || resp_given)
		return drv__config_fail(err, errlen, "--proto ldap builds its own searches and "
					"frames their replies: drop --payload, --requests-file and "
					"--response");
	if (cfg->pipeline > 1)
		return drv__config_fail(err, errlen, "-P with --proto ldap: slapd answers the "
					"operations of one connection out of order; use more -c");
	if (lc->pw_path && !lc->bind_dn)
		return drv__config_fail(err, errlen, "--bind-password-file goes with --bind-dn DN");
	if (lc->bind_dn && !lc->pw_path)
		return drv__config_fail(err, errlen, "--bind-dn needs --bind-password-file FILE (a "
					"password is never taken on the command line)");
	if (lc->pw_path && password(lc, err, errlen))
		return -EINVAL;
	if (attrs(lc, err, errlen))
		return -EINVAL;
	f = lc->base_src ? lc->base_src : "";
	if (drv_tpl_parse(&lc->base, f, strlen(f), err, errlen))
		return drv__config_fail(err, errlen, "--base %s: %s", f, err);
	f = lc->filter_src ? lc->filter_src : DRV_LDAP_DEFAULT_FILTER;
	if (drv_tpl_parse(&lc->filter, f, strlen(f), err, errlen))
		return drv__config_fail(err, errlen, "--filter %s: %s", f, err);
	lc->filter_src = f;
	cfg->resp_rule = DRV_RESP_LDAP;
	return sizes(lc, err, errlen);
}

void drv__config_ldap_free(struct drv_config *cfg)
{
	struct drv_ldap_cfg *lc = cfg->ldap;
	unsigned i;

	if (!lc)
		return;
	for (i = 0; lc->attrs[i]; i++)
		free(lc->attrs[i]);
	drv_tpl_free(&lc->base);
	drv_tpl_free(&lc->filter);
	free(lc->password);
	free(lc);
	cfg->ldap = NULL;
}
