// SPDX-License-Identifier: MIT
/* HTTP/2 and gRPC statuses: the summary's lines and the JSON of a slot's counts, as the requests
 * snapshot holds them (tick/snapshots.h); pure functions of the counts. */
#include <errno.h>
#include <stdio.h>
#include <jansson.h>
#include "loadlens/h2.h"
#include "output/h2_status_report.h"

static uint64_t unread(const struct obs_h2_status_counts *c, uint64_t ends)
{
	return ends > c->ends ? ends - c->ends : 0;
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
