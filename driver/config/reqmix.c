// SPDX-License-Identifier: MIT
/* --requests-file: its records, loaded at parse time, and the choice per request (reqmix.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/infile.h"
#include "config/app.h"
#include "config/config.h"
#include "base/drv.h"
#include "config/reqmix.h"
#include "config/request.h"
#include "config/quote.h"

/* C escapes in place: \r \n \t \0 \\ \xHH; the new length, or -1. */
static long unescape(char *s, size_t n)
{
	size_t i, o = 0;
	unsigned v;

	for (i = 0; i < n; i++) {
		if (s[i] != '\\') {
			s[o++] = s[i];
			continue;
		}
		if (++i == n)
			return -1;
		switch (s[i]) {
		case 'r': s[o++] = '\r'; break;
		case 'n': s[o++] = '\n'; break;
		case 't': s[o++] = '\t'; break;
		case '0': s[o++] = '\0'; break;
		case '\\': s[o++] = '\\'; break;
		case 'x':
			if (i + 2 >= n)
				return -1;
			if (sscanf(s + i + 1, "%2x", &v) != 1)
				return -1;
			s[o++] = (char)v;
			i += 2;
			break;
		default:
			return -1;
		}
	}
	return (long)o;
}

long drv_reqmix_tpl_len(const char *s, size_t n, char *err, size_t errlen)
{
	struct drv_tpl t;
	long len;

	if (drv_tpl_parse(&t, s, n, err, errlen))
		return -1;
	len = (long)t.len;
	drv_tpl_free(&t);
	return len;
}

char *drv_reqmix_token(char **p)
{
	char *s = *p, *t;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	if (*s == '\'') {
		t = strchr(s + 1, '\'');
		if (!t)
			return NULL;
		*t = '\0';
		*p = t + 1;
		return s + 1;
	}
	t = s + strcspn(s, " \t");
	if (*t)
		*t++ = '\0';
	*p = t;
	return s;
}

/* http:// METHOD PATH [-H 'Name: value']... [-d 'BODY'] → request text (template source). */
static int http(const struct drv_config *cfg, char *line, char **out, size_t *outlen,
		   char *err, size_t errlen)
{
	struct drv_config tmp = *cfg;
	char *p = line, *tok, *method, *path, *body = NULL, *dummy = NULL;
	long blen = 0;
	size_t n, bsrc = 0;

	method = drv_reqmix_token(&p);
	path = drv_reqmix_token(&p);
	if (!method || !path || path[0] != '/' || strlen(path) >= sizeof(tmp.url.path))
		return drv_errf(err, errlen,
				"expected METHOD /PATH [-H 'Name: value']... [-d 'BODY']");
	tmp.method = method;
	snprintf(tmp.url.path, sizeof(tmp.url.path), "%s", path);
	while ((tok = drv_reqmix_token(&p))) {
		if (!strcmp(tok, "-H") && (tok = drv_reqmix_token(&p)) && strchr(tok, ':')) {
			if (tmp.nheaders == DRV_MAX_HEADERS)
				return drv_errf(err, errlen, "more than %d headers",
						DRV_MAX_HEADERS);
			tmp.headers[tmp.nheaders++] = tok;
		} else if (!strcmp(tok, "-d") && (tok = drv_reqmix_token(&p))) {
			body = tok;
		} else {
			return drv_errf(err, errlen, "'%s': expected -H 'Name: value' or -d 'BODY'",
					tok ? tok : "");
		}
	}
	if (body) {
		bsrc = strlen(body);
		blen = drv_reqmix_tpl_len(body, bsrc, err, errlen);
		if (blen < 0)
			return -EINVAL;
		dummy = calloc(1, (size_t)blen + 1);
		if (!dummy)
			return drv_errf(err, errlen, "out of memory");
	}
	/* the head counts the expanded body; the body's source (with its fields) replaces it */
	tmp.body = dummy;
	tmp.body_len = (size_t)blen;
	n = drv_request_http(&tmp, NULL, 0);
	*out = malloc(n + bsrc + 1);
	if (!*out) {
		free(dummy);
		return drv_errf(err, errlen, "out of memory");
	}
	drv_request_http(&tmp, *out, n);
	free(dummy);
	memcpy(*out + n - (size_t)blen, body ? body : "", bsrc);
	*outlen = n - (size_t)blen + bsrc;
	return 0;
}

/* One record line (after its weight) into r. */
static int record(const struct drv_config *cfg, char *line, struct drv_rec *r, char *err,
		     size_t errlen)
{
	enum ll_scheme sch = cfg->url.scheme;
	char *src = NULL;
	size_t n = 0;
	long k;
	int e, taken;

	if (ll_scheme_is_http(sch)) {
		e = http(cfg, line, &src, &n, err, errlen);
	} else if ((taken = drv__config_app_record(cfg, line, &src, &n, err, errlen))) {
		e = taken < 0 ? taken : 0; /* a protocol's own record (config/app.h) */
	} else {
		n = strlen(line);
		src = malloc(n + DRV_MCUDP_HDR + 1);
		e = src ? 0 : drv_errf(err, errlen, "out of memory");
		/* memcache-udp: memcached's UDP frame header, the id stamped per request */
		if (!e && cfg->mc_udp) {
			memcpy(src, "\0\0\0\0\0\x01\0\0", DRV_MCUDP_HDR);
			memcpy(src + DRV_MCUDP_HDR, line, n);
			k = unescape(src + DRV_MCUDP_HDR, n);
			n = k < 0 ? 0 : (size_t)k + DRV_MCUDP_HDR;
		} else if (!e) {
			memcpy(src, line, n);
			k = unescape(src, n);
			n = k < 0 ? 0 : (size_t)k;
		}
		if (!e && k < 0)
			e = drv_errf(err, errlen, "a bad escape (\\r \\n \\t \\0 \\\\ \\xHH)");
	}
	if (!e)
		e = drv_tpl_parse(&r->tpl, src, n, err, errlen);
	free(src);
	if (!e && !r->tpl.len)
		e = drv_errf(err, errlen, "an empty record");
	return e;
}

int drv_reqmix_load(struct drv_config *cfg, char *err, size_t errlen)
{
	/* a regular file of at most every record at its longest: never a FIFO or /dev/zero */
	const uint64_t most = (uint64_t)DRV_MIX_MAX_RECORDS * (DRV_MIX_MAX_LINE + 2);
	FILE *f = ll_input_open(cfg->requests_path, most);
	struct drv_reqmix *m;
	char *line = NULL, *p, msg[256];
	size_t cap = 0;
	ssize_t len;
	unsigned long long w;
	unsigned lineno = 0;
	int used, e = 0;
	struct drv_rec *r;

	if (!f)
		return drv_errf(err, errlen, "--requests-file %s: %s%s", cfg->requests_path,
				ll_input_strerror(errno),
				errno == EFBIG ? " (1024 records of at most 64 KiB)" : "");
	m = calloc(1, sizeof(*m));
	if (m)
		m->rec = calloc(DRV_MIX_MAX_RECORDS, sizeof(*m->rec));
	if (!m || !m->rec) {
		fclose(f);
		free(m);
		return drv_errf(err, errlen, "out of memory");
	}
	cfg->mix = m;
	m->weighted = cfg->seed_given;
	while (!e && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (len > DRV_MIX_MAX_LINE || m->n == DRV_MIX_MAX_RECORDS) {
			e = drv_errf(err, errlen,
				     "--requests-file %s:%u: over %d records or %d bytes",
				     cfg->requests_path, lineno, DRV_MIX_MAX_RECORDS,
				     DRV_MIX_MAX_LINE);
			break;
		}
		w = 1;
		if (!strncmp(p, "weight=", 7)) {
			used = 0;
			if (sscanf(p + 7, "%llu%n", &w, &used) != 1 || !w || w > 1000000 ||
			    (p[7 + used] != ' ' && p[7 + used] != '\t')) {
				e = drv_errf(err, errlen,
					     "--requests-file %s:%u: weight=N (1..1000000) then "
					     "the record", cfg->requests_path, lineno);
				break;
			}
			p += 7 + used + 1;
		}
		r = &m->rec[m->n];
		r->weight = w;
		r->label = strdup(p);
		if (!r->label) {
			e = drv_errf(err, errlen, "out of memory");
			break;
		}
		if (record(cfg, p, r, msg, sizeof(msg))) {
			e = drv_errf(err, errlen, "--requests-file %s:%u: %s", cfg->requests_path,
				     lineno, msg);
			break;
		}
		if (r->tpl.len > m->max_len)
			m->max_len = r->tpl.len;
		m->total_weight += w;
		m->n++;
	}
	free(line);
	fclose(f);
	if (!e && !m->n)
		e = drv_errf(err, errlen, "--requests-file %s: no records", cfg->requests_path);
	if (!e) {
		m->cum = malloc(m->n * sizeof(*m->cum));
		if (!m->cum)
			e = drv_errf(err, errlen, "out of memory");
		for (uint32_t i = 0, s = 0; !e && i < m->n; i++) {
			s += (uint32_t)m->rec[i].weight;
			m->cum[i] = s;
		}
	}
	return e;
}

void drv_reqmix_free(struct drv_reqmix *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; m->rec && i < DRV_MIX_MAX_RECORDS; i++) {
		drv_tpl_free(&m->rec[i].tpl);
		free(m->rec[i].label);
	}
	free(m->rec);
	free(m->cum);
	free(m);
}

void drv_mix_ctx_init(struct drv_mix_ctx *c, const struct drv_config *cfg, uint32_t worker,
		      uint32_t nworkers)
{
	memset(c, 0, sizeof(*c));
	c->tc.rng = (cfg->seed ? cfg->seed : 0x5eed) * 0x9e3779b97f4a7c15ULL + worker + 1;
	c->tc.seq = worker;
	c->tc.stride = nworkers;
	c->rr = (uint64_t)worker * 7919; /* threads start at different records */
}

size_t drv_reqmix_next(const struct drv_reqmix *m, struct drv_mix_ctx *c, char *out,
		       uint32_t *rec)
{
	uint64_t x;
	uint32_t lo = 0, hi = m->n - 1, mid;

	if (m->weighted) {
		x = drv_tpl_rand(&c->tc) % m->total_weight;
		while (lo < hi) { /* the first record whose cumulative weight passes x */
			mid = lo + (hi - lo) / 2;
			if (m->cum[mid] <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
	} else { /* round-robin, each record weight times in a row */
		x = c->rr++ % m->total_weight;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (m->cum[mid] <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	*rec = lo;
	drv_tpl_expand(&m->rec[lo].tpl, &c->tc, out);
	return m->rec[lo].tpl.len;
}
