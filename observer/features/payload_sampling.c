// SPDX-License-Identifier: MIT
/* Payload sampling: switched on before load, its per-slot counters read back and shown. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "kernel/bpfread.h"
#include "kernel/sockets.h"
#include "features/payload_sampling.h"
#include "sources/reqtime_stats.h"

#define WORDS (sizeof(struct rt_pl_ctrs) / 8)

struct obs_payload {
	struct obs_sockets *conn; /* the socket object's owner: the counters are read there */
	size_t nslots;
	int ncpu;
	size_t buf_words;
	uint64_t *buf; /* one read of the per-CPU counters */
};

struct obs_payload *obs_payload_new(struct obs_sockets *conn, size_t nslots)
{
	struct obs_payload *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	p->conn = conn;
	p->nslots = nslots < RT_MAX_SLOTS ? nslots : RT_MAX_SLOTS;
	/* at least one slot's words: a buffer even with no slot */
	err = obs_bpfread_percpu_scratch((p->nslots ? p->nslots : 1) * WORDS, &p->ncpu, &p->buf);
	if (err) {
		free(p);
		errno = -err;
		return NULL;
	}
	p->buf_words = p->nslots * WORDS * (size_t)p->ncpu;
	return p;
}

void obs_payload_free(struct obs_payload *p)
{
	if (p)
		free(p->buf);
	free(p);
}

bool obs_payload_on(const struct obs_payload *p)
{
	return p && obs_sockets_payload_on(p->conn);
}

int obs_payload_read(struct obs_payload *p, struct rt_pl_ctrs *out)
{
	const struct rt_pl_ctrs *c;
	size_t k;
	int i, err;

	memset(out, 0, p->nslots * sizeof(*out));
	if (!obs_payload_on(p))
		return 0;
	err = obs_sockets_read_percpu(p->conn, OBS_SOCKETS_PL_CTRS, (uint32_t)p->nslots, p->ncpu, WORDS, p->buf,
			      p->buf_words);
	if (err)
		return err;
	for (k = 0; k < p->nslots; k++) {
		for (i = 0; i < p->ncpu; i++) {
			c = (const struct rt_pl_ctrs *)(p->buf + (k * (size_t)p->ncpu + i) * WORDS);
			out[k].samples += c->samples;
			out[k].multi += c->multi;
			out[k].requests += c->requests;
			out[k].extrapolated += c->extrapolated;
			out[k].binary += c->binary;
			out[k].unreadable += c->unreadable;
			if (c->max > out[k].max)
				out[k].max = c->max;
		}
	}
	return 0;
}

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
	for (k = 0; k < p->nslots; k += 2) {
		if (!c[k].samples && !c[k].binary && !c[k].unreadable)
			continue;
		if (!head)
			fprintf(out, "  payload samples (requests per read, pipelining; at most "
				     "one read per %.0f ms on each CPU):\n",
				(double)obs_sockets_payload_period_ns(p->conn) / 1e6);
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
		for (k = 0; k < p->nslots; k += 2) {
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
