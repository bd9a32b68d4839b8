/* SPDX-License-Identifier: MIT */
/* One response at a time, over any rule: where it ends in a pipelined stream, what it came to. */
#ifndef LOADLENS_DRV_FRAME_RESPONSE_H
#define LOADLENS_DRV_FRAME_RESPONSE_H

#include <stddef.h>
#include "config/config.h"
#include "framing/frame.h"

/*
 * Like drv_frame_feed(), but stops at the end of the response: *used says how many bytes it
 * took, and the rest belongs to the next response (pipelining).
 */
int drv_frame_feed_some(const struct drv_frame_rule *r, struct drv_frame *f, const char *p,
			size_t n, size_t *used);
/*
 * A complete response of a non-HTTP rule: 0 (ok) or the DRV_E_* code of its verdict, and in
 * *rcode the DNS RCODE it answered with (-1: not DNS, or not answered). Counted by the caller
 * (scheduling/timing.c): framing parses, never counts.
 */
static inline int drv_frame_outcome(const struct drv_frame_rule *r, const struct drv_frame *f,
				    int *rcode)
{
	int err = drv_frame_verdict_err(f);

	*rcode = f->verdict == DRV_APP_DNS_RCODE || (!err && r->rule == DRV_RESP_DNS) ? f->rcode & 15
										     : -1;
	return err;
}

#endif /* LOADLENS_DRV_FRAME_RESPONSE_H */
