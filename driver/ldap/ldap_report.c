// SPDX-License-Identifier: MIT
/*
 * --proto ldap in the summary and the JSON: searches, entries and references, the searches that
 * succeeded with no entry, resultCodes of the searches and of the binds, each code seen with its
 * hint; and the JSON read back (merge.c, -p).
 * JSON: "ldap": {"searches": N, "entries": N, "references": N, "empty": N, "result": {"success": N,
 * "sizeLimitExceeded": N, ...}, "bind": {"success": N, "invalidCredentials": N, ...}}, null
 * without --proto ldap.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "config/config.h"
#include "ldap/ldap_config.h"
#include "ldap/ldap_codes.h"
#include "results/option_json.h"
#include "results/report.h"
#include "ldap/ldap_report.h"
#include "results/result.h"
#include "results/stats.h"

static uint64_t searches(const struct drv_stats *t)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < DRV_LDAP_CODES; i++)
		n += t->app.result[i];
	return n;
}

/* --proto ldap, or a merge of runs that had it */
static bool used(const struct drv_config *cfg, const struct drv_stats *t)
{
	unsigned i;

	for (i = 0; !cfg->ldap && i < DRV_LDAP_CODES; i++)
		if (t->app.result[i] || t->app.hello[i])
			return true;
	return cfg->ldap != NULL;
}

static json_t *codes(const uint64_t *c)
{
	return ll_json_counts(c, DRV_LDAP_CODES, drv_ldap_code_name);
}

static json_t *json(const struct drv_config *cfg, const struct drv_stats *t)
{
	if (!used(cfg, t))
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:I,s:o*,s:o*}", "searches", (json_int_t)searches(t),
			 "entries", (json_int_t)t->app.items, "references",
			 (json_int_t)t->app.refs, "empty", (json_int_t)t->app.empty, "result",
			 codes(t->app.result), "bind", codes(t->app.hello));
}

static json_t *json_config(const struct drv_config *cfg)
{
	const struct drv_ldap_cfg *lc = cfg->ldap;
	json_t *attrs = json_array();
	unsigned i;

	for (i = 0; attrs && lc->attrs[i]; i++) {
		if (json_array_append_new(attrs, json_string(lc->attrs[i]))) {
			json_decref(attrs);
			return NULL;
		}
	}
	return json_pack("{s:s,s:s,s:s,s:o*,s:s?,s:s?}", "base", lc->base_src ? lc->base_src : "",
			 "scope", drv_ldap_scope_name(lc->scope), "filter", lc->filter_src,
			 "attrs", attrs, "bind_dn", lc->bind_dn, "tls",
			 lc->tls == DRV_LDAP_TLS_LDAPS	   ? "ldaps"
			 : lc->tls == DRV_LDAP_TLS_STARTTLS ? "starttls"
							    : NULL);
}

/* A code's name back to its slot; DRV_LDAP_CODES if none. */
static unsigned slot_of(const char *name)
{
	char b[16];
	unsigned i;

	for (i = 0; i < DRV_LDAP_CODES; i++)
		if (!strcmp(drv_ldap_code_name(i, b, sizeof(b)), name))
			return i;
	return DRV_LDAP_CODES;
}

static void add_codes(uint64_t *c, const json_t *o)
{
	const char *k;
	json_t *v;
	unsigned i;

	json_object_foreach((json_t *)o, k, v)
	{
		i = slot_of(k);
		if (i < DRV_LDAP_CODES && json_is_integer(v) && json_integer_value(v) > 0)
			c[i] += (uint64_t)json_integer_value(v);
	}
}

static void merge(struct drv_stats *t, const json_t *o)
{
	json_t *v;

	if (!json_is_object(o))
		return;
	v = json_object_get(o, "entries");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		t->app.items += (uint64_t)json_integer_value(v);
	v = json_object_get(o, "references");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		t->app.refs += (uint64_t)json_integer_value(v);
	v = json_object_get(o, "empty");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		t->app.empty += (uint64_t)json_integer_value(v);
	add_codes(t->app.result, json_object_get(o, "result"));
	add_codes(t->app.hello, json_object_get(o, "bind"));
}

static void code_line(FILE *f, const char *label, const uint64_t *c)
{
	fprintf(f, "  %-12s", label);
	drv_report_counts(f, c, DRV_LDAP_CODES, drv_ldap_code_name);
}

static void text(FILE *f, const struct drv_config *cfg, const struct drv_stats *t)
{
	uint64_t n = searches(t);
	const char *h;
	char b[16];
	unsigned i;

	if (!used(cfg, t))
		return;
	fprintf(f,
		"  %-12s %llu searches done, %llu entries (%.2f per search), %llu references, "
		"%llu found no entry\n",
		"ldap", (unsigned long long)n, (unsigned long long)t->app.items,
		n ? (double)t->app.items / (double)n : 0.0, (unsigned long long)t->app.refs,
		(unsigned long long)t->app.empty);
	code_line(f, "ldap result", t->app.result);
	code_line(f, "ldap bind", t->app.hello);
	for (i = 1; i < DRV_LDAP_CODES; i++) {
		h = t->app.result[i] || t->app.hello[i] ? drv_ldap_code_hint(i) : NULL;
		if (h)
			fprintf(f, "hint: ldap %s: %s\n", drv_ldap_code_name(i, b, sizeof(b)), h);
	}
}

/* config.ldap: the search asked for (base, scope, filter, attrs, bind_dn; no password) */
static int config(json_t *o, const struct drv_config *cfg)
{
	json_t *v;

	if (!cfg->ldap)
		return 0;
	v = json_config(cfg);
	return v ? json_object_set_new(o, "ldap", v) : -1;
}

/* --print-plan's "ldap": config.ldap's and the password file's path */
static json_t *plan(const struct drv_config *cfg)
{
	json_t *o, *pw;

	if (!cfg->ldap || !cfg->ldap->on)
		return json_null();
	o = json_config(cfg);
	pw = drv_json_text(cfg->ldap->pw_path);
	if (o && (!pw || json_object_set_new(o, "bind_password_file", pw))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

_Static_assert(DRV_LDAP_CODES == DRV_APP_CODES, "stats.h counts LDAP's resultCodes by slot");

const struct drv_report_ext drv_ldap_report = {
	.json = json, .merge = merge, .text = text, .config = config, .plan = plan,
};
