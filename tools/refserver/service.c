// SPDX-License-Identifier: MIT
/* Service time: blocking by spinning or sleeping, and the per-worker PRNG. */
#include <errno.h>
#include <math.h>
#include <time.h>
#include "refserver.h"

void rs_block_until(enum rs_mode mode, uint64_t deadline_ns)
{
	struct timespec ts;

	if (mode == RS_MODE_SPIN) {
		while (rs_now_ns() < deadline_ns)
			;
		return;
	}
	ts.tv_sec = (time_t)(deadline_ns / 1000000000ULL);
	ts.tv_nsec = (long)(deadline_ns % 1000000000ULL);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Worker i's stream depends only on (seed, i), so runs are reproducible. */
void rs_rng_seed(struct rs_worker *w, uint64_t seed)
{
	uint64_t s = seed ^ ((uint64_t)w->id * 0xd1b54a32d192ed03ULL);
	int i;

	for (i = 0; i < 4; i++)
		w->rng[i] = splitmix64(&s);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static uint64_t rng_next(struct rs_worker *w)
{
	uint64_t *s = w->rng;
	uint64_t r = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static uint64_t service_draw(struct rs_worker *w)
{
	const struct rs_config *cfg = w->cfg;
	double u;

	if (cfg->dist == RS_DIST_FIXED || !cfg->service_ns)
		return cfg->service_ns;
	/* u in (0, 1]: -ln(u) is exponential with mean 1. */
	u = (double)((rng_next(w) >> 11) + 1) * 0x1.0p-53;
	return (uint64_t)llround(-log(u) * (double)cfg->service_ns);
}

uint64_t rs_service_begin(struct rs_worker *w)
{
	uint64_t t0 = rs_now_ns();
	uint64_t d;

	w->c.requests++;
	d = service_draw(w);
	if (d)
		rs_block_until(w->cfg->mode, t0 + d);
	return t0;
}

void rs_service_record(struct rs_worker *w, uint64_t t0)
{
	uint64_t end = rs_now_ns();

	ll_hist_record(w->hist, end - t0);
	rs_trace_served(w, t0, end);
}

void rs_service_end(struct rs_worker *w, uint64_t t0)
{
	rs_service_record(w, t0);
	w->c.responses++;
}
