/* SPDX-License-Identifier: MIT */
/*
 * Request templates: literal bytes with fields {{seq}}, {{rand:LO-HI}} and {{zipf:N:S}}, parsed
 * once and expanded per request into a caller's buffer, without allocation. Every field expands
 * to a fixed width (numbers zero-padded to the width of their largest value; seq to 10 digits,
 * modulo 10^10), so a record's length never changes: RESP bulk lengths, memcached byte counts and
 * Content-Length computed once stay right.
 */
#ifndef LOADLENS_DRV_TEMPLATE_H
#define LOADLENS_DRV_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#define DRV_TPL_MAX_FIELDS 16
#define DRV_TPL_ZIPF_MAX 10000000ULL /* keys of one zipf field, at most (its table: 8 B each) */
#define DRV_TPL_SEQ_WIDTH 10

enum drv_tpl_kind { DRV_TPL_SEQ = 0, DRV_TPL_RAND, DRV_TPL_ZIPF };

struct drv_tpl_field {
	size_t at;	/* offset in the expanded text */
	uint8_t kind;
	uint8_t width;	/* digits */
	uint64_t lo, hi; /* rand: LO..HI; zipf: 1..N */
	double *cdf;	/* zipf: cumulative probabilities of ranks 1..N (owned) */
};

struct drv_tpl {
	char *text; /* the expanded layout: literals, fields as placeholders (owned) */
	size_t len;
	unsigned nfields;
	struct drv_tpl_field f[DRV_TPL_MAX_FIELDS];
};

/* Per thread: the random state and the sequence. */
struct drv_tpl_ctx {
	uint64_t rng;
	uint64_t seq;	 /* next {{seq}} of this thread */
	uint64_t stride; /* threads: thread i gives i, i + stride, ... */
};

/* Parse s[0..n) (its fields). 0, or -EINVAL with one line in err. */
int drv_tpl_parse(struct drv_tpl *t, const char *s, size_t n, char *err, size_t errlen);
void drv_tpl_free(struct drv_tpl *t);
/* Write the template's bytes with fresh field values into out (t->len bytes). */
void drv_tpl_expand(const struct drv_tpl *t, struct drv_tpl_ctx *c, char *out);
/*
 * The same with each number in its shortest form (no zero padding), for requests that carry
 * their own lengths (--proto ldap encodes each one): returns the length, at most t->len.
 */
size_t drv_tpl_expand_short(const struct drv_tpl *t, struct drv_tpl_ctx *c, char *out);
/* Pure: a uniform 64-bit draw (xorshift64*). */
uint64_t drv_tpl_rand(struct drv_tpl_ctx *c);

#endif /* LOADLENS_DRV_TEMPLATE_H */
