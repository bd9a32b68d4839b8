// SPDX-License-Identifier: MIT
/*
 * One response at a time: drv_frame_feed_some() stops every rule at the end of one response (for
 * pipelining); drv_frame_outcome() (response.h) says what a complete one came to. Parsing only:
 * the caller counts (scheduling/timing.h).
 */
#include "base/errors.h"
#include "config/config.h"
#include "framing/frame.h"
#include "framing/response.h"

static inline size_t response_min(size_t a, uint64_t b)
{
	return a < b ? a : (size_t)b;
}

int drv_frame_feed_some(const struct drv_frame_rule *r, struct drv_frame *f, const char *p,
			size_t n, size_t *used)
{
	size_t i = 0, k;
	int err = 0;

	*used = 0;
	if (f->done)
		return n ? DRV_E_MALFORMED : 0;
	switch (r->rule) {
	case DRV_RESP_RESP:
	case DRV_RESP_MEMCACHE:
	case DRV_RESP_DNS:
	case DRV_RESP_LDAP:
		return drv__frame_app_feed(r, f, p, n, used);
	case DRV_RESP_HTTP:
		k = drv__frame_http_execute(f, p, n);
		*used = k;
		if (f->done)
			return f->status >= 100 ? 0 : DRV_E_MALFORMED;
		if (HTTP_PARSER_ERRNO(&f->hp) == HPE_HEADER_OVERFLOW)
			return DRV_E_TOO_LARGE;
		if (HTTP_PARSER_ERRNO(&f->hp) != HPE_OK || k != n)
			return DRV_E_MALFORMED;
		return 0;
	case DRV_RESP_LP4:
	case DRV_RESP_PREFIX:
	case DRV_RESP_FIXED:
	case DRV_RESP_DELIM:
		while (i < n && !f->done && !err) {
			if (r->rule == DRV_RESP_DELIM || f->got < r->prefix)
				k = 1; /* a delimiter's end, a prefix's bytes: one at a time */
			else
				k = response_min(n - i, f->left);
			err = drv_frame_feed(r, f, p + i, k);
			i += k;
		}
		*used = i;
		return err;
	}
	return DRV_E_MALFORMED;
}
