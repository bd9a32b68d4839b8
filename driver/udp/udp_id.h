/* SPDX-License-Identifier: MIT */
/*
 * udp://'s request id (udp_engine.c): where it sits in a request and its reply, and its bytes.
 * Either our own 8-byte tag at offset 0 ("LL" and a 48-bit sequence number, which an echoing
 * server returns), or --id OFFSET:WIDTH (the sequence number, big-endian, WIDTH bytes, where DNS
 * and memcached's UDP frame carry their request id), or none.
 */
#ifndef LOADLENS_DRV_UDP_ID_H
#define LOADLENS_DRV_UDP_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct drv_config;
struct drv_request;

struct drv_udp_id {
	bool on;	/* requests carry an id */
	bool magic;	/* the id is our 8-byte tag at offset 0 */
	unsigned off;	/* where it sits in request and reply */
	unsigned width; /* its bytes */
	uint64_t mask;	/* the sequence numbers it tells apart */
};

/* The id of cfg's requests (rq: the thread's request bytes, for the tag's room). */
void drv_udp_id_init(struct drv_udp_id *id, const struct drv_config *cfg,
		     const struct drv_request *rq);

/* Request seq's id bytes (id->width of them) into tag; returns the id a reply must name. */
uint64_t drv_udp_id_stamp(const struct drv_udp_id *id, uint64_t seq, uint8_t tag[8]);

/* The id the n bytes of a reply at p name into *v: 0, or -1 if they name none (too short, not
 * our tag). */
int drv_udp_id_read(const struct drv_udp_id *id, const uint8_t *p, size_t n, uint64_t *v);

#endif /* LOADLENS_DRV_UDP_ID_H */
