/* SPDX-License-Identifier: MIT */
/*
 * The bytes of a request, built once per thread: the refserver payload (fixed or random size,
 * behind a 4-byte length the caller writes per request), a raw --payload file, or an HTTP/1.1
 * request with its headers and body.
 */
#ifndef LOADLENS_DRV_REQUEST_H
#define LOADLENS_DRV_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config/config.h"

struct drv_request {
	char *buf;	   /* the whole request, or the payload of the largest size */
	size_t len;
	bool sized;	   /* refserver/size mode: the caller sends drv_request_size() bytes */
	uint64_t size_min; /* sized mode */
	uint64_t size_max;
	uint64_t rng;	   /* xorshift64 state for random sizes */
};

/* seed: differs per thread so random sizes differ too. */
int drv_request_init(struct drv_request *rq, const struct drv_config *cfg, uint64_t seed);
void drv_request_fini(struct drv_request *rq);

/* sized mode: the payload size of the next request (uniform in [size_min, size_max]). */
static inline uint64_t drv_request_size(struct drv_request *rq)
{
	uint64_t x = rq->rng;

	if (rq->size_min == rq->size_max)
		return rq->size_max;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rq->rng = x;
	return rq->size_min + x % (rq->size_max - rq->size_min + 1);
}

/* The HTTP/1.1 request text for cfg into buf (NULL to measure); returns its length. */
size_t drv_request_http(const struct drv_config *cfg, char *buf, size_t cap);

#endif /* LOADLENS_DRV_REQUEST_H */
