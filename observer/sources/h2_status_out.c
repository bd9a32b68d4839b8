// SPDX-License-Identifier: MIT
/* HTTP/2 and gRPC statuses: the summary's lines and the JSON of a slot's counts (h2_status.h),
 * the kernel's counts added to them, and whether its blocks may be read there; pure functions of
 * the counts. The decoder and its reader are h2_status.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "loadlens/h2.h"
#include "sources/h2_status.h"

static uint64_t unread(const struct obs_h2_status_counts *c, uint64_t ends)
{
	return ends > c->ends ? ends - c->ends : 0;
}

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

void obs_h2_status_fmt(FILE *out, const struct obs_h2_status_counts *c, uint64_t ends,
		       uint64_t lost_conns, uint64_t big_conns)
{
	const char *sep = "";
	size_t i;

	if (!c->blocks && !c->partial && !c->undecoded && !lost_conns && !big_conns)
		return;
	fprintf(out, "      HTTP/2 responses by :status (HPACK read from the server's header blocks):");
	for (i = 0; i < OBS_H2_STATUS_N; i++)
		if (c->status[i]) {
			fprintf(out, "%s %zu %llu", sep, i + OBS_H2_STATUS_LO,
				(unsigned long long)c->status[i]);
			sep = ",";
		}
	if (c->status_other)
		fprintf(out, "%s other %llu", sep, (unsigned long long)c->status_other);
	fprintf(out, "\n");
	if (c->kernel)
		fprintf(out, "      %llu of them read in the kernel (a whole block beginning with a "
			     ":status of HPACK's static table, from a server whose blocks refer to "
			     "no table)\n",
			(unsigned long long)c->kernel);
	sep = "";
	for (i = 0; i <= LL_GRPC_OTHER; i++)
		if (c->grpc[i]) {
			fprintf(out, "%s%s %llu", *sep ? sep : "      gRPC calls by grpc-status: ",
				ll_grpc_status_name((unsigned)i), (unsigned long long)c->grpc[i]);
			sep = ", ";
		}
	if (c->grpc_none)
		fprintf(out, "%s%llu with none", *sep ? sep : "      gRPC calls by grpc-status: ",
			(unsigned long long)c->grpc_none);
	if (*sep || c->grpc_none)
		fprintf(out, "\n");
	if (unread(c, ends) || c->undecoded || c->partial)
		fprintf(out, "      statuses not read: %llu of %llu stream-ending header blocks, "
			     "%llu header blocks in all, %llu read in part (records stopped %llu "
			     "times: the ring buffer full; %llu: a fragment over %d bytes; and at "
			     "each write gap, h2_gaps; %llu decoders forgotten for room; after each, "
			     "a block reads alone, its :status where it does not refer to the "
			     "blocks not seen)\n",
			(unsigned long long)unread(c, ends), (unsigned long long)ends,
			(unsigned long long)c->undecoded, (unsigned long long)c->partial,
			(unsigned long long)lost_conns, (unsigned long long)big_conns,
			LL_H2_HB_MAX, (unsigned long long)c->evicted);
}

static int set(json_t *o, const char *key, json_t *v)
{
	return !v || json_object_set_new(o, key, v) ? -ENOMEM : 0;
}

json_t *obs_h2_status_json(const struct obs_h2_status_counts *c, uint64_t ends,
			   uint64_t lost_conns, uint64_t big_conns)
{
	json_t *o = json_object(), *st = json_object(), *g = json_object();
	char code[16];
	int err = !o || !st || !g;
	size_t i;

	for (i = 0; !err && i < OBS_H2_STATUS_N; i++)
		if (c->status[i]) {
			snprintf(code, sizeof(code), "%zu", i + OBS_H2_STATUS_LO);
			err = set(st, code, json_integer((json_int_t)c->status[i]));
		}
	if (!err && c->status_other)
		err = set(st, "other", json_integer((json_int_t)c->status_other));
	for (i = 0; !err && i <= LL_GRPC_OTHER; i++)
		if (c->grpc[i])
			err = set(g, ll_grpc_status_name((unsigned)i),
				  json_integer((json_int_t)c->grpc[i]));
	if (!err) {
		err = set(o, "status", st) | set(o, "grpc_status", g);
		st = g = NULL;
	}
	if (!err)
		err = set(o, "grpc_no_status", json_integer((json_int_t)c->grpc_none)) |
		      set(o, "blocks", json_integer((json_int_t)c->blocks)) |
		      set(o, "blocks_read_in_kernel", json_integer((json_int_t)c->kernel)) |
		      set(o, "ends", json_integer((json_int_t)ends)) |
		      set(o, "ends_read", json_integer((json_int_t)c->ends)) |
		      set(o, "ends_unread", json_integer((json_int_t)unread(c, ends))) |
		      set(o, "undecoded", json_integer((json_int_t)c->undecoded)) |
		      set(o, "partial", json_integer((json_int_t)c->partial)) |
		      set(o, "stopped_ring_full", json_integer((json_int_t)lost_conns)) |
		      set(o, "stopped_too_big", json_integer((json_int_t)big_conns)) |
		      set(o, "decoders_evicted", json_integer((json_int_t)c->evicted));
	json_decref(st);
	json_decref(g);
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}
