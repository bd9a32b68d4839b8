// SPDX-License-Identifier: MIT
/* HTTP/2 and gRPC statuses: a slot's counts (h2_status.h) with the kernel's added, an interval's
 * difference, the rules' view of it, and whether its blocks may be read in the kernel; pure
 * functions of the counts. The decoder and its reader are h2_status.c; the summary's lines and
 * the JSON, output/h2_status_report.c. */
#include <string.h>
#include "loadlens/h2.h"
#include "sources/h2_status.h"

_Static_assert(OBS_SNAP_GRPC == LL_GRPC_OTHER + 1, "the rules' gRPC statuses are the decoder's");

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void obs_h2_status_sub(struct obs_h2_status_counts *d, const struct obs_h2_status_counts *cur,
		       const struct obs_h2_status_counts *prev)
{
	size_t i;

	for (i = 0; i <= LL_GRPC_OTHER; i++)
		d->grpc[i] = minus(cur->grpc[i], prev->grpc[i]);
	for (i = 0; i < OBS_H2_STATUS_N; i++)
		d->status[i] = minus(cur->status[i], prev->status[i]);
	d->grpc_none = minus(cur->grpc_none, prev->grpc_none);
	d->status_other = minus(cur->status_other, prev->status_other);
	d->blocks = minus(cur->blocks, prev->blocks);
	d->ends = minus(cur->ends, prev->ends);
	d->undecoded = minus(cur->undecoded, prev->undecoded);
	d->partial = minus(cur->partial, prev->partial);
	d->evicted = minus(cur->evicted, prev->evicted);
	d->kernel = minus(cur->kernel, prev->kernel);
	d->refer = minus(cur->refer, prev->refer);
	d->plain = minus(cur->plain, prev->plain);
}

/* Code c (n responses) into out's list, the most first (the lower code first among equals); one
 * pushed past the list counts in out->more. */
static void code_in(struct obs_snap_status *out, uint16_t c, uint64_t n)
{
	size_t i = out->ncodes;

	if (i == OBS_SNAP_CODES) {
		if (n <= out->code[i - 1].n) {
			out->more += n;
			return;
		}
		out->more += out->code[--i].n;
	} else {
		out->ncodes++;
	}
	for (; i > 0 && out->code[i - 1].n < n; i--)
		out->code[i] = out->code[i - 1];
	out->code[i].code = c;
	out->code[i].n = n;
}

bool obs_h2_status_snap(struct obs_snap_status *out, uint16_t port,
			const struct obs_h2_status_counts *d)
{
	bool any = d->status_other || d->grpc_none;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->port = port;
	out->cls[0] = d->status_other;
	for (i = 0; i < OBS_H2_STATUS_N; i++) {
		if (!d->status[i])
			continue;
		out->cls[(i + OBS_H2_STATUS_LO) / 100] += d->status[i];
		code_in(out, (uint16_t)(i + OBS_H2_STATUS_LO), d->status[i]);
		any = true;
	}
	for (i = 0; i <= LL_GRPC_OTHER; i++) {
		out->grpc[i] = d->grpc[i];
		any = any || d->grpc[i];
	}
	out->grpc_none = d->grpc_none;
	return any;
}

enum obs_h2_quiet obs_h2_quiet_next(enum obs_h2_quiet now, const struct obs_h2_status_counts *c)
{
	if (now == OBS_H2_NEVER || c->refer)
		return OBS_H2_NEVER;
	return c->plain >= LL_H2_HB_QUIET_AFTER ? OBS_H2_QUIET : now;
}

void obs_h2_status_add_kernel(struct obs_h2_status_counts *c, const struct rt_ctrs *k)
{
	size_t i;

	for (i = 0; i < RT_H2_STATIC_STATUSES; i++) {
		c->status[ll_hpack_static_status[i] - OBS_H2_STATUS_LO] += k->h2_hb_static[i];
		c->blocks += k->h2_hb_static[i];
		c->kernel += k->h2_hb_static[i];
	}
	c->ends += k->h2_hb_static_ends;
}
