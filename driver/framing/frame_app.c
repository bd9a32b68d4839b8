// SPDX-License-Identifier: MIT
/* What the application framings share: a verdict's error code, the data block (frame_app.h). */
#include "base/errors.h"
#include "framing/frame_app.h"

/* A data block and its CRLF (frame_app.h). */
size_t drv_app_block(uint8_t *st, uint8_t data, uint64_t *left, const uint8_t *p, size_t n,
		     int *r)
{
	size_t i = 0;
	uint8_t c;

	if (*st == data) {
		i = drv_app_skip(left, n);
		if (*left)
			return i;
		*st = data + 1;
	}
	while (i < n) {
		c = p[i++];
		if (*st == data + 1 && c == '\r') {
			*st = data + 2;
			continue;
		}
		*r = *st == data + 2 && c == '\n' ? 1 : DRV_E_MALFORMED;
		return i;
	}
	return i;
}
