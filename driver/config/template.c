// SPDX-License-Identifier: MIT
/* Request templates (template.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/template.h"
#include "config/quote.h"

static uint8_t digits(uint64_t v)
{
	uint8_t d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

uint64_t drv_tpl_rand(struct drv_tpl_ctx *c)
{
	uint64_t x = c->rng ? c->rng : 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* One field's spec (between the braces) into fd. */
static int field(struct drv_tpl_field *fd, const char *spec, char *err, size_t errlen)
{
	unsigned long long a, b;
	double s, sum = 0;
	char tail;
	uint64_t i;

	if (!strcmp(spec, "seq")) {
		fd->kind = DRV_TPL_SEQ;
		fd->width = DRV_TPL_SEQ_WIDTH;
		return 0;
	}
	if (sscanf(spec, "rand:%llu-%llu%c", &a, &b, &tail) == 2 && a <= b) {
		fd->kind = DRV_TPL_RAND;
		fd->lo = a;
		fd->hi = b;
		fd->width = digits(b);
		return 0;
	}
	if (sscanf(spec, "zipf:%llu:%lf%c", &a, &s, &tail) == 2 && a >= 1 &&
	    a <= DRV_TPL_ZIPF_MAX && s >= 0 && s <= 10) {
		fd->kind = DRV_TPL_ZIPF;
		fd->lo = 1;
		fd->hi = a;
		fd->width = digits(a);
		fd->cdf = malloc(a * sizeof(double));
		if (!fd->cdf)
			return drv_errf(err, errlen, "{{%s}}: out of memory", spec);
		for (i = 0; i < a; i++) {
			sum += 1.0 / pow((double)(i + 1), s);
			fd->cdf[i] = sum;
		}
		for (i = 0; i < a; i++)
			fd->cdf[i] /= sum;
		return 0;
	}
	return drv_errf(err, errlen,
			"{{%s}}: expected {{seq}}, {{rand:LO-HI}} or {{zipf:N:S}} "
			"(N 1..%llu, S 0..10)", spec, DRV_TPL_ZIPF_MAX);
}

int drv_tpl_parse(struct drv_tpl *t, const char *s, size_t n, char *err, size_t errlen)
{
	const char *end = s + n, *open, *close;
	char spec[64];
	size_t out = 0, k;
	struct drv_tpl_field *fd;
	int r;

	memset(t, 0, sizeof(*t));
	/* the expanded text is never longer than the source + 20 digits per field */
	t->text = malloc(n + DRV_TPL_MAX_FIELDS * 24 + 1);
	if (!t->text)
		return drv_errf(err, errlen, "out of memory");
	while (s < end) {
		open = memmem(s, (size_t)(end - s), "{{", 2);
		if (!open) {
			memcpy(t->text + out, s, (size_t)(end - s));
			out += (size_t)(end - s);
			break;
		}
		memcpy(t->text + out, s, (size_t)(open - s));
		out += (size_t)(open - s);
		close = memmem(open + 2, (size_t)(end - open - 2), "}}", 2);
		k = close ? (size_t)(close - open - 2) : 0;
		if (!close || k >= sizeof(spec)) {
			drv_tpl_free(t);
			return drv_errf(err, errlen,
					"a '{{' without its '}}' (or a field over %zu bytes)",
					sizeof(spec) - 1);
		}
		if (t->nfields == DRV_TPL_MAX_FIELDS) {
			drv_tpl_free(t);
			return drv_errf(err, errlen, "more than %d {{fields}} in one record",
					DRV_TPL_MAX_FIELDS);
		}
		memcpy(spec, open + 2, k);
		spec[k] = '\0';
		fd = &t->f[t->nfields++];
		r = field(fd, spec, err, errlen);
		if (r) {
			drv_tpl_free(t);
			return r;
		}
		fd->at = out;
		memset(t->text + out, '0', fd->width);
		out += fd->width;
		s = close + 2;
	}
	t->len = out;
	t->text[out] = '\0';
	return 0;
}

void drv_tpl_free(struct drv_tpl *t)
{
	unsigned i;

	for (i = 0; i < t->nfields; i++)
		free(t->f[i].cdf);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* The rank whose cumulative probability first reaches u (binary search). */
static uint64_t zipf(const struct drv_tpl_field *fd, double u)
{
	uint64_t lo = 0, hi = fd->hi - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (fd->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo + 1;
}

/* A field's next value. */
static uint64_t value(const struct drv_tpl_field *fd, struct drv_tpl_ctx *c)
{
	uint64_t v, span;

	switch (fd->kind) {
	case DRV_TPL_SEQ:
		v = c->seq % 10000000000ULL;
		c->seq += c->stride ? c->stride : 1;
		return v;
	case DRV_TPL_RAND:
		span = fd->hi - fd->lo + 1;
		return fd->lo + (span ? drv_tpl_rand(c) % span : drv_tpl_rand(c));
	default:
		return zipf(fd, (double)(drv_tpl_rand(c) >> 11) / 9007199254740992.0);
	}
}

size_t drv_tpl_expand_short(const struct drv_tpl *t, struct drv_tpl_ctx *c, char *out)
{
	const struct drv_tpl_field *fd;
	size_t o = 0, from = 0;
	char digits[24];
	uint64_t v;
	unsigned i;
	int d;

	for (i = 0; i < t->nfields; i++) {
		fd = &t->f[i];
		memcpy(out + o, t->text + from, fd->at - from);
		o += fd->at - from;
		from = fd->at + fd->width;
		v = value(fd, c);
		d = 0;
		do {
			digits[d++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		while (d)
			out[o++] = digits[--d];
	}
	memcpy(out + o, t->text + from, t->len - from);
	return o + t->len - from;
}

void drv_tpl_expand(const struct drv_tpl *t, struct drv_tpl_ctx *c, char *out)
{
	const struct drv_tpl_field *fd;
	uint64_t v;
	unsigned i;
	int d;

	memcpy(out, t->text, t->len);
	for (i = 0; i < t->nfields; i++) {
		fd = &t->f[i];
		v = value(fd, c);
		for (d = fd->width - 1; d >= 0; d--) {
			out[fd->at + (size_t)d] = (char)('0' + v % 10);
			v /= 10;
		}
	}
}
