// SPDX-License-Identifier: MIT
/* Control characters escaped and long text cut, for terminals and logs (loadlens/quote.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "loadlens/quote.h"

struct esc_range {
	uint32_t lo, hi;
};

static const struct esc_range esc_ranges[] = {
#define LL_QUOTE_ESC(lo, hi) {lo, hi},
#include "loadlens/quote_table.h"
#undef LL_QUOTE_ESC
};

#define ESC_MAX 11 /* "\U000e0001" and its NUL */

/* The UTF-8 character at s (n bytes left): its length (1-4) and code point, or 0 where s[0]
 * starts none (a stray or truncated byte, an overlong form, a surrogate, beyond U+10FFFF). */
static size_t utf8_at(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, k;
	uint32_t v, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, v = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, v = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, v = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[k] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

static bool esc_listed(uint32_t cp)
{
	size_t i;

	for (i = 0; i < sizeof(esc_ranges) / sizeof(esc_ranges[0]) && esc_ranges[i].lo <= cp; i++)
		if (cp <= esc_ranges[i].hi)
			return true;
	return false;
}

/*
 * One character of s (n bytes left), a UTF-8 character or a byte that starts none: how many bytes
 * it takes (*used), and its shown form into out (ESC_MAX bytes, not terminated); the form's length.
 */
static size_t esc(const unsigned char *s, size_t n, size_t *used, char *out)
{
	uint32_t cp;
	size_t len = utf8_at(s, n, &cp);

	*used = len ? len : 1;
	if (!len)
		return (size_t)snprintf(out, ESC_MAX, "\\x%02x", s[0]);
	if (cp == '\r' || cp == '\n' || cp == '\t') {
		out[0] = '\\';
		out[1] = cp == '\r' ? 'r' : cp == '\n' ? 'n' : 't';
		return 2;
	}
	if (cp < 0x20 || cp == 0x7f)
		return (size_t)snprintf(out, ESC_MAX, "\\x%02x", cp);
	if (esc_listed(cp))
		return (size_t)snprintf(out, ESC_MAX, cp > 0xffff ? "\\U%08x" : "\\u%04x", cp);
	memcpy(out, s, len);
	return len;
}

/* The shown length of s[0..n) */
static size_t esc_len(const unsigned char *s, size_t n)
{
	size_t i = 0, total = 0, used;
	char e[ESC_MAX];

	while (i < n) {
		total += esc(s + i, n - i, &used, e);
		i += used;
	}
	return total;
}

/* s[0..n) shown into out; its length */
static size_t esc_copy(const unsigned char *s, size_t n, char *out)
{
	size_t i = 0, w = 0, used;

	while (i < n) {
		w += esc(s + i, n - i, &used, out + w);
		i += used;
	}
	return w;
}

const char *ll_quote(const char *str, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), total = esc_len(s, n), head, tail, i, used, k, w, hb, cut = 0;
	size_t head_end, tail_start;
	char e[ESC_MAX], mark[48];

	if (total < len) {
		buf[esc_copy(s, n, buf)] = '\0';
		return buf;
	}
	/* the budget for both ends, with room for the longest marker */
	head = (len - 1 - 32) * 2 / 5;
	tail = len - 1 - 32 - head;
	/* the first characters whose forms fit in head */
	for (i = 0, hb = 0; i < n; i += used) {
		k = esc(s + i, n - i, &used, e);
		if (hb + k > head)
			break;
		hb += k;
	}
	head_end = i;
	/* the last ones whose forms fit in tail: the first character after head_end from which the
	 * rest fits; the ones between are cut */
	for (w = hb; i < n; i += used, cut++) {
		if (total - w <= tail)
			break;
		w += esc(s + i, n - i, &used, e);
	}
	tail_start = i;
	w = esc_copy(s, head_end, buf);
	k = (size_t)snprintf(mark, sizeof(mark), "...[%zu chars cut]...", cut);
	memcpy(buf + w, mark, k);
	w += k;
	w += esc_copy(s + tail_start, n - tail_start, buf + w);
	buf[w] = '\0';
	return buf;
}

/* A character's first byte: not a UTF-8 continuation byte */
static bool char_start(unsigned char c)
{
	return (c & 0xc0) != 0x80;
}

char *ll_cut_words(char *s, size_t max)
{
	char *r = s, *w = s, mark[48];
	size_t n, word, head, tail, k, i, cut;

	while (*r) {
		if (*r == ' ') {
			*w++ = *r++;
			continue;
		}
		n = word = strcspn(r, " ");
		if (n <= max) {
			memmove(w, r, n);
		} else { /* the marker is shorter than the max / 4 bytes it replaces at least */
			/* the ends on character boundaries: no UTF-8 character split */
			for (head = max / 2; head && !char_start((unsigned char)r[head]); head--)
				;
			for (tail = max / 4; tail && !char_start((unsigned char)r[n - tail]); tail--)
				;
			for (i = head, cut = 0; i < n - tail; i++)
				cut += char_start((unsigned char)r[i]);
			k = (size_t)snprintf(mark, sizeof(mark), "...[%zu chars cut]...", cut);
			memmove(w, r, head);
			memcpy(w + head, mark, k);
			memmove(w + head + k, r + n - tail, tail);
			n = head + k + tail;
		}
		w += n;
		r += word;
	}
	*w = '\0';
	return s;
}
