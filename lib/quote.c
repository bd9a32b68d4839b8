// SPDX-License-Identifier: MIT
/* Control characters escaped and long text cut, for terminals and logs (loadlens/quote.h). */
#include <stdio.h>
#include <string.h>
#include "loadlens/quote.h"

/* The escaped form of byte c into out (at least 5 bytes); its length. */
static size_t esc(unsigned char c, char *out)
{
	if (c == '\r' || c == '\n' || c == '\t') {
		out[0] = '\\';
		out[1] = c == '\r' ? 'r' : c == '\n' ? 'n' : 't';
		return 2;
	}
	if (c < 0x20 || c == 0x7f) {
		snprintf(out, 5, "\\x%02x", c);
		return 4;
	}
	out[0] = (char)c;
	return 1;
}

const char *ll_quote(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s), i, total = 0, w = 0, head, tail, hb = 0, tb = 0, k;
	char e[5], mark[48];

	for (i = 0; i < n; i++)
		total += esc((unsigned char)s[i], e);
	if (total < len) {
		for (i = 0; i < n; i++)
			w += esc((unsigned char)s[i], buf + w);
		buf[w] = '\0';
		return buf;
	}
	/* the budget for both ends, with room for the longest marker */
	head = (len - 1 - 32) * 2 / 5;
	tail = len - 1 - 32 - head;
	for (i = 0; i < n && hb + esc((unsigned char)s[i], e) <= head; i++)
		hb += esc((unsigned char)s[i], e);
	head = i; /* bytes of s kept at the start */
	for (i = n; i > head && tb + esc((unsigned char)s[i - 1], e) <= tail; i--)
		tb += esc((unsigned char)s[i - 1], e);
	tail = i; /* s[tail..n) kept at the end */
	for (i = 0; i < head; i++)
		w += esc((unsigned char)s[i], buf + w);
	k = (size_t)snprintf(mark, sizeof(mark), "...[%zu bytes cut]...", tail - head);
	memcpy(buf + w, mark, k);
	w += k;
	for (i = tail; i < n; i++)
		w += esc((unsigned char)s[i], buf + w);
	buf[w] = '\0';
	return buf;
}

char *ll_cut_words(char *s, size_t max)
{
	char *r = s, *w = s, mark[48];
	size_t n, word, head = max / 2, tail = max / 4, k;

	while (*r) {
		if (*r == ' ') {
			*w++ = *r++;
			continue;
		}
		n = word = strcspn(r, " ");
		if (n <= max) {
			memmove(w, r, n);
		} else { /* the marker is shorter than the max / 4 bytes it replaces at least */
			k = (size_t)snprintf(mark, sizeof(mark), "...[%zu bytes cut]...",
					     n - head - tail);
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
