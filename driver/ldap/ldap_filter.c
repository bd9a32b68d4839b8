// SPDX-License-Identifier: MIT
/*
 * RFC 4515 filter strings into RFC 4511 Filter elements (ldap_filter.h). The grammar, and the
 * context tags each choice gets:
 *
 *   filter   = "(" ( "&" 0*filter | "|" 0*filter | "!" filter | item ) ")"
 *              and [0] a0, or [1] a1, not [2] a2 (SET OF / explicit)
 *   item     = attr "=" value        equalityMatch [3] a3 { attr, value }
 *            | attr "=*"             present [7] 87 attr
 *            | attr "=" [s] *("*" s) "*" ... substrings [4] a4 { attr, { initial 80, any 81,
 *                                    final 82 } }
 *            | attr ">=" value | attr "<=" value | attr "~=" value   [5] a5, [6] a6, [8] a8
 *            | [attr] [":dn"] [":" rule] ":=" value   extensibleMatch [9] a9 { rule 81, type 82,
 *                                    value 83, dnAttributes 84 }
 *
 * Values are UTF-8 with \HH escapes; a raw "(", ")" or "\" not starting an escape is an error,
 * as is "*" outside a substring or presence. Checked against the bytes ldapsearch (libldap 2.5)
 * sends for the same filters (tests/unit/test_driver_ldap.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ldap/ldap_filter.h"

#define F_AND 0xa0UL
#define F_OR 0xa1UL
#define F_NOT 0xa2UL
#define F_EQ 0xa3UL
#define F_SUB 0xa4UL
#define F_GE 0xa5UL
#define F_LE 0xa6UL
#define F_PRESENT 0x87UL
#define F_APPROX 0xa8UL
#define F_EXT 0xa9UL
#define SUB_INITIAL 0x80UL
#define SUB_ANY 0x81UL
#define SUB_FINAL 0x82UL
#define EXT_RULE 0x81UL
#define EXT_TYPE 0x82UL
#define EXT_VALUE 0x83UL
#define EXT_DN 0x84UL

struct fparse {
	const char *s, *p, *end;
	BerElement *ber;
	char *val; /* an unescaped value (as long as the filter, at most) */
	char *err;
	size_t errlen;
};

static int bad(struct fparse *f, const char *at, const char *what)
{
	if (f->err && f->errlen)
		snprintf(f->err, f->errlen, "filter byte %zu: %s", (size_t)(at - f->s) + 1, what);
	return -EINVAL;
}

/* ber_printf's -1 is its only failure: out of memory */
static int out(int r)
{
	return r < 0 ? -ENOMEM : 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* [a, b) unescaped into f->val; its length in *len. A raw '*' is not allowed here. */
static int unescape(struct fparse *f, const char *a, const char *b, ber_len_t *len)
{
	ber_len_t o = 0;
	int hi, lo;

	for (; a < b; a++) {
		if (*a == '\\') {
			if (b - a < 3 || (hi = hexval(a[1])) < 0 || (lo = hexval(a[2])) < 0)
				return bad(f, a, "'\\' must start an escape of two hex digits "
					   "(\\2a)");
			f->val[o++] = (char)(hi << 4 | lo);
			a += 2;
			continue;
		}
		if (*a == '(' || *a == '*' || *a == '\0')
			return bad(f, a, *a == '*' ? "'*' here: escape it as \\2a"
						  : "'(' or NUL in a value: escape it "
						    "(\\28, \\00)");
		f->val[o++] = *a;
	}
	*len = o;
	return 0;
}

/* An attribute description: a name or a numeric OID, with ;options. */
static int attr(struct fparse *f, const char *a, const char *b)
{
	const char *q;

	if (a == b)
		return bad(f, a, "an attribute name is missing");
	for (q = a; q < b; q++) {
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9') || *q == '-' || *q == '.' || *q == ';'))
			return bad(f, q, "not a character of an attribute name (letters, digits, "
				   "'-', '.', ';')");
	}
	return 0;
}

static int put_value(struct fparse *f, ber_tag_t tag, const char *a, const char *b)
{
	ber_len_t n;
	int r = unescape(f, a, b, &n);

	return r ? r : out(ber_printf(f->ber, "to", tag, f->val, n));
}

/* attr=... with '*' in the value: present, or substrings. */
static int substrings(struct fparse *f, const char *name, const char *ne, const char *v,
		      const char *ve)
{
	const char *q, *piece = v;
	ber_tag_t tag = SUB_INITIAL;
	int r;

	if (ve - v == 1)
		return out(ber_printf(f->ber, "to", (ber_tag_t)F_PRESENT, name,
				      (ber_len_t)(ne - name)));
	r = out(ber_printf(f->ber, "t{o{", (ber_tag_t)F_SUB, name, (ber_len_t)(ne - name)));
	for (q = v; !r && q <= ve; q++) {
		if (q < ve && *q != '*')
			continue;
		if (q == piece && tag == SUB_ANY && q < ve)
			return bad(f, q, "'**' in a substring filter");
		if (q > piece)
			r = put_value(f, q == ve ? SUB_FINAL : tag, piece, q);
		tag = SUB_ANY;
		piece = q + 1;
	}
	return r ? r : out(ber_printf(f->ber, "}}"));
}

/* [attr][:dn][:rule]:=value, the text before ":=" in [a, b). */
static int extensible(struct fparse *f, const char *a, const char *b, const char *v,
		      const char *ve)
{
	const char *c1 = memchr(a, ':', (size_t)(b - a)), *rule = NULL, *re = NULL;
	const char *tok, *te;
	bool dn = false;
	int r = 0;

	if (!c1) /* attr:=value */
		c1 = b;
	for (tok = c1 + 1; c1 < b && tok <= b; tok = te + 1) {
		te = memchr(tok, ':', (size_t)(b - tok));
		te = te ? te : b;
		if (te - tok == 2 && (tok[0] == 'd' || tok[0] == 'D') &&
		    (tok[1] == 'n' || tok[1] == 'N') && !dn && !rule) {
			dn = true;
		} else if (!rule && te > tok) {
			rule = tok;
			re = te;
		} else {
			return bad(f, tok, "expected [attr][:dn][:rule]:=value");
		}
	}
	if (c1 == a && !rule)
		return bad(f, a, "an extensible match needs an attribute or a matching rule");
	if (c1 > a)
		r = attr(f, a, c1);
	if (!r && rule)
		r = attr(f, rule, re);
	if (!r)
		r = out(ber_printf(f->ber, "t{", (ber_tag_t)F_EXT));
	if (!r && rule)
		r = out(ber_printf(f->ber, "to", (ber_tag_t)EXT_RULE, rule,
				   (ber_len_t)(re - rule)));
	if (!r && c1 > a)
		r = out(ber_printf(f->ber, "to", (ber_tag_t)EXT_TYPE, a, (ber_len_t)(c1 - a)));
	if (!r)
		r = put_value(f, EXT_VALUE, v, ve);
	if (!r && dn)
		r = out(ber_printf(f->ber, "tb", (ber_tag_t)EXT_DN, (ber_int_t)1));
	return r ? r : out(ber_printf(f->ber, "}"));
}

/* One item, [a, b) between its parentheses. */
static int item(struct fparse *f, const char *a, const char *b)
{
	const char *eq = memchr(a, '=', (size_t)(b - a)), *ne, *v = eq + 1, *q;
	ber_tag_t tag = F_EQ;
	int r;

	if (!eq)
		return bad(f, a, "expected attr=value, attr>=value, attr<=value, attr~=value or "
			   "an extensible match");
	ne = eq;
	if (eq > a && eq[-1] == ':')
		return extensible(f, a, eq - 1, v, b);
	if (eq > a && (eq[-1] == '>' || eq[-1] == '<' || eq[-1] == '~')) {
		tag = eq[-1] == '>' ? F_GE : eq[-1] == '<' ? F_LE : F_APPROX;
		ne = eq - 1;
	}
	r = attr(f, a, ne);
	if (r)
		return r;
	for (q = v; q < b && *q != '*'; q++)
		;
	if (q < b && tag == F_EQ)
		return substrings(f, a, ne, v, b);
	r = out(ber_printf(f->ber, "t{o", tag, a, (ber_len_t)(ne - a)));
	if (!r)
		r = put_value(f, LBER_OCTETSTRING, v, b);
	return r ? r : out(ber_printf(f->ber, "}"));
}

/* The end of the item starting at p: its ')' (values hold no raw parenthesis). */
static const char *item_end(const struct fparse *f, const char *p)
{
	while (p < f->end && *p != ')' && *p != '(')
		p++;
	return p;
}

static int filter(struct fparse *f, unsigned depth);

/* filter* up to the ')' that closes the list (and, or). */
static int list(struct fparse *f, unsigned depth)
{
	int r = 0;

	while (!r && f->p < f->end && *f->p == '(')
		r = filter(f, depth + 1);
	return r;
}

static int filter(struct fparse *f, unsigned depth)
{
	const char *start = f->p, *e;
	ber_tag_t tag;
	int r;

	if (depth > DRV_LDAP_FILTER_DEPTH)
		return bad(f, f->p, "nested deeper than 64");
	if (f->p >= f->end || *f->p != '(')
		return bad(f, f->p, "expected '('");
	f->p++;
	if (f->p < f->end && (*f->p == '&' || *f->p == '|' || *f->p == '!')) {
		tag = *f->p == '&' ? F_AND : *f->p == '|' ? F_OR : F_NOT;
		f->p++;
		r = out(ber_printf(f->ber, tag == F_NOT ? "t{" : "t[", tag));
		if (!r && tag == F_NOT)
			r = filter(f, depth + 1);
		else if (!r)
			r = list(f, depth);
		if (!r)
			r = out(ber_printf(f->ber, tag == F_NOT ? "}" : "]"));
	} else {
		e = item_end(f, f->p);
		if (e < f->end && *e == '(')
			return bad(f, e, "'(' inside an item: escape it as \\28");
		r = item(f, f->p, e);
		f->p = e;
	}
	if (r)
		return r;
	if (f->p >= f->end || *f->p != ')')
		return bad(f, f->p >= f->end ? start : f->p, f->p >= f->end ? "no closing ')'"
									    : "expected ')'");
	f->p++;
	return 0;
}

int drv_ldap_put_filter(BerElement *ber, const char *s, size_t n, char *err, size_t errlen)
{
	struct fparse f = {.s = s, .p = s, .end = s + n, .ber = ber, .err = err, .errlen = errlen};
	char *wrapped = NULL;
	int r;

	while (f.p < f.end && *f.p == ' ')
		f.p++;
	while (f.end > f.p && f.end[-1] == ' ')
		f.end--;
	if (f.p == f.end)
		return bad(&f, f.p, "empty filter");
	if (*f.p != '(') { /* "uid=x" as "(uid=x)", as ldapsearch takes it */
		wrapped = malloc((size_t)(f.end - f.p) + 3);
		if (!wrapped)
			return -ENOMEM;
		wrapped[0] = '(';
		memcpy(wrapped + 1, f.p, (size_t)(f.end - f.p));
		wrapped[f.end - f.p + 1] = ')';
		f.end = wrapped + (f.end - f.p) + 2;
		f.s = f.p = wrapped;
	}
	f.val = malloc((size_t)(f.end - f.p) + 1);
	r = f.val ? filter(&f, 0) : -ENOMEM;
	if (!r && f.p != f.end)
		r = bad(&f, f.p, "bytes after the filter's closing ')'");
	free(f.val);
	free(wrapped);
	return r;
}
