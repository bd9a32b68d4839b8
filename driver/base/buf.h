/* SPDX-License-Identifier: MIT */
/* A growing byte buffer: bytes made for a socket (HTTP/2 frames, TLS records) while an earlier
 * write is in flight. */
#ifndef LOADLENS_DRV_BUF_H
#define LOADLENS_DRV_BUF_H

#include <stdlib.h>

struct drv_buf {
	char *p;
	size_t len, cap;
};

/* Room for n more bytes at the end of b (doubling, from 16 KiB): its end, or NULL (out of
 * memory; b unchanged). */
static inline char *drv_buf_room(struct drv_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 16384;
	char *p;

	if (b->len + n > b->cap) {
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return NULL;
		b->p = p;
		b->cap = cap;
	}
	return b->p + b->len;
}

#endif /* LOADLENS_DRV_BUF_H */
