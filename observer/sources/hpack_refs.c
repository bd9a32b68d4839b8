// SPDX-License-Identifier: MIT
/* Dynamic-table references of an HPACK block (hpack_refs.h). */
#include "loadlens/h2.h"
#include "sources/hpack_refs.h"

/* An integer of an n-bit prefix at p[*i] (RFC 7541, 5.1), at most 2^28: 0, or -1 (cut, too big). */
static int integer(const uint8_t *p, size_t len, size_t *i, unsigned int n, uint32_t *v)
{
	uint32_t max = (1u << n) - 1, m = 0;
	uint8_t b;

	if (*i >= len)
		return -1;
	*v = p[(*i)++] & max;
	if (*v < max)
		return 0;
	do {
		if (*i >= len || m > 21)
			return -1;
		b = p[(*i)++];
		*v += (uint32_t)(b & 0x7f) << m;
		m += 7;
	} while (b & 0x80);
	return 0;
}

/* A string literal at p[*i] (its H bit and length, then its bytes): passed over. */
static int string(const uint8_t *p, size_t len, size_t *i)
{
	uint32_t n;

	if (integer(p, len, i, 7, &n) || n > len - *i)
		return -1;
	*i += n;
	return 0;
}

int obs_hpack_refers(const uint8_t *p, size_t len)
{
	unsigned int prefix;
	int refers = 0;
	uint32_t idx;
	size_t i = 0;

	while (i < len) {
		if (p[i] & 0x80) { /* indexed field */
			if (integer(p, len, &i, 7, &idx) || !idx)
				return -1;
			refers |= idx > LL_HPACK_STATIC_LAST;
			continue;
		}
		if ((p[i] & 0xe0) == 0x20) { /* dynamic table size update */
			if (integer(p, len, &i, 5, &idx))
				return -1;
			continue;
		}
		/* a literal: with incremental indexing (6-bit name index), or without / never
		 * indexed (4-bit) */
		prefix = (p[i] & 0xc0) == 0x40 ? 6 : 4;
		if (integer(p, len, &i, prefix, &idx))
			return -1;
		if (!idx && string(p, len, &i))
			return -1;
		refers |= idx > LL_HPACK_STATIC_LAST;
		if (string(p, len, &i))
			return -1;
	}
	return refers;
}
