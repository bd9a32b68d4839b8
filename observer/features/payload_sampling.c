// SPDX-License-Identifier: MIT
/* Payload sampling: what its counters (sources/payload_read.c) found, in text and JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "features/payload_sampling.h"
#include "sources/reqtime_stats.h"

double obs_payload_per_read(const struct rt_pl_ctrs *c)
{
	return c->samples ? (double)c->requests / (double)c->samples : 0;
}

void obs_payload_fmt_summary(FILE *out, const struct obs_reqtime *rt, const struct obs_payload *p,
			     const struct rt_pl_ctrs *c)
{
	bool head = false;
	size_t k;

	if (!obs_payload_on(p))
		return;
	for (k = 0; k < obs_payload_nslots(p); k += 2) {
		if (!c[k].samples && !c[k].binary && !c[k].unreadable)
			continue;
		if (!head)
			fprintf(out, "  payload samples (requests per read, pipelining; at most "
				     "one read per %.0f ms on each CPU):\n",
				(double)obs_payload_period_ns(p) / 1e6);
		head = true;
		fprintf(out, "    tcp/%u sampled: %llu reads, %llu with several requests, %.2f "
			     "requests per read (max %llu)",
			obs_reqtime_slot_port(rt, k), (unsigned long long)c[k].samples,
			(unsigned long long)c[k].multi, obs_payload_per_read(&c[k]),
			(unsigned long long)c[k].max);
		if (c[k].extrapolated)
			fprintf(out, ", %llu longer than %d bytes: extrapolated",
				(unsigned long long)c[k].extrapolated, LL_PL_SCAN);
		if (c[k].binary || c[k].unreadable)
			fprintf(out, "; not counted: %llu not text, %llu not readable",
				(unsigned long long)c[k].binary,
				(unsigned long long)c[k].unreadable);
		fprintf(out, "\n");
	}
}

static int set(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? -ENOMEM : 0;
}

static json_t *slot_json(const struct rt_pl_ctrs *c)
{
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= set(o, "sampled_reads", json_integer((json_int_t)c->samples));
	err |= set(o, "multi_request_reads", json_integer((json_int_t)c->multi));
	err |= set(o, "requests", json_integer((json_int_t)c->requests));
	err |= set(o, "requests_per_read", json_real(obs_payload_per_read(c)));
	err |= set(o, "max_per_read", json_integer((json_int_t)c->max));
	err |= set(o, "extrapolated_reads", json_integer((json_int_t)c->extrapolated));
	err |= set(o, "binary_reads", json_integer((json_int_t)c->binary));
	err |= set(o, "unreadable_reads", json_integer((json_int_t)c->unreadable));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int obs_payload_json_add(json_t *root, const struct obs_reqtime *rt, const struct obs_payload *p,
			 const struct rt_pl_ctrs *c)
{
	json_t *o = json_object_get(root, "request_timing"), *slots, *s, *one;
	size_t i, k;

	if (!o)
		return 0;
	if (set(json_object_get(o, "features"), "payload_sampling",
		   json_boolean(obs_payload_on(p))))
		return -ENOMEM;
	slots = json_object_get(o, "slots");
	if (!obs_payload_on(p))
		return 0;
	json_array_foreach(slots, i, s) {
		const char *proto = json_string_value(json_object_get(s, "proto"));
		json_int_t port = json_integer_value(json_object_get(s, "port"));

		if (!proto || strcmp(proto, "tcp"))
			continue;
		for (k = 0; k < obs_payload_nslots(p); k += 2) {
			if (!obs_reqtime_slot_used(rt, k) || obs_reqtime_slot_port(rt, k) != port)
				continue;
			one = slot_json(&c[k]);
			if (!one || set(s, "payload", one))
				return -ENOMEM;
			break;
		}
	}
	return 0;
}
