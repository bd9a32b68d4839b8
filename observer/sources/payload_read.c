// SPDX-License-Identifier: MIT
/* Payload sampling's per-slot counters (payload_read.h), read back from the socket object. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "kernel/bpfread.h"
#include "kernel/sockets.h"
#include "sources/payload_read.h"
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
	err = obs_sockets_read_percpu(p->conn, OBS_SOCKETS_PL_CTRS, (uint32_t)p->nslots, p->ncpu,
				      WORDS, p->buf, p->buf_words);
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

size_t obs_payload_nslots(const struct obs_payload *p)
{
	return p->nslots;
}

uint64_t obs_payload_period_ns(const struct obs_payload *p)
{
	return obs_sockets_payload_period_ns(p->conn);
}
