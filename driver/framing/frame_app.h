/* SPDX-License-Identifier: MIT */
/*
 * Application framings: where a redis (RESP2/RESP3), memcached (text protocol), DNS (over TCP,
 * 2-byte length prefix) or LDAP response ends, and whether it is an error reply. Each is a pure
 * incremental parser over a small state: feed any split of the bytes, it stops at the end of
 * one response and says how many bytes it used, so a pipelined stream can go on with the next.
 * A byte outside the framing is DRV_E_MALFORMED, never a hang: every length and count is bounded.
 * This header holds what they share (verdicts, the bulk limit, the byte-step loop, the data
 * block); each lives in its protocol's folder (redis/redis_frame.h, memcache/memcache_frame.h,
 * dns/dns_frame.h, ldap/ldap_frame.h), reached through frame_ext.h, and frame.c drives them.
 */
#ifndef LOADLENS_DRV_FRAME_APP_H
#define LOADLENS_DRV_FRAME_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/errors.h"

#define DRV_FRAME_APP_MAX_BULK (512ULL << 20) /* one bulk string / data block, at most */

/* The outcome of one complete response. */
enum drv_app_verdict {
	DRV_APP_OK = 0,
	DRV_APP_RESP_ERROR,    /* RESP: a top-level -ERR or !blob error */
	DRV_APP_MC_CLIENT,     /* memcached: CLIENT_ERROR or ERROR */
	DRV_APP_MC_SERVER,     /* memcached: SERVER_ERROR */
	DRV_APP_DNS_RCODE,     /* DNS: RCODE != 0 (the code is in rcode) */
	DRV_APP_LDAP_RESULT,   /* LDAP: resultCode != success (ldap_frame.h) */
};


/*
 * A step of a byte-at-a-time parser (redis_frame.c, memcache_frame.c): from its current state in
 * s, the bytes p[0..n) (n >= 1, *r 0 on entry); returns how many it used, with *r 0 (more to
 * come), 1 (the response is complete) or a DRV_E_* error.
 */
typedef size_t drv_app_step_fn(void *s, const uint8_t *p, size_t n, int *r,
			       enum drv_app_verdict *verdict);

/* The parser's loop: steps over p[0..n) until the end or a result (*res); returns the bytes used.
 * (Inline: the step is called directly where the parser passes its own.) */
static inline size_t drv_app_feed(drv_app_step_fn *step, void *s, const uint8_t *p, size_t n,
				  int *res, enum drv_app_verdict *verdict)
{
	size_t i = 0;
	int r = 0;

	while (i < n && !r)
		i += step(s, p + i, n - i, &r, verdict);
	*res = r;
	return i;
}

/* The bytes of a bulk string or data block in p[0..n): up to *left of them, less *left by as
 * many; returns how many. */
static inline size_t drv_app_skip(uint64_t *left, size_t n)
{
	size_t take = n < *left ? n : (size_t)*left;

	*left -= take;
	return take;
}

/*
 * A data block and the CRLF after it, as a RESP bulk string and a memcached data block end, from
 * p[0..n): *st is data while its *left bytes come, then data + 1 (its CR), then data + 2 (its
 * LF). Returns the bytes used; *r is 1 once the LF is in, DRV_E_MALFORMED for another byte where
 * CR or LF belongs (that byte used), else unchanged.
 */
size_t drv_app_block(uint8_t *st, uint8_t data, uint64_t *left, const uint8_t *p, size_t n,
		     int *r);


/* The DRV_E_* error code of a verdict (0 for DRV_APP_OK). */
static inline int drv_app_verdict_err(enum drv_app_verdict v)
{
	switch (v) {
	case DRV_APP_OK:
		return 0;
	case DRV_APP_RESP_ERROR:
		return DRV_E_RESP;
	case DRV_APP_MC_CLIENT:
		return DRV_E_MC_CLIENT;
	case DRV_APP_MC_SERVER:
		return DRV_E_MC_SERVER;
	case DRV_APP_DNS_RCODE:
		return DRV_E_DNS_RCODE;
	case DRV_APP_LDAP_RESULT:
		return DRV_E_LDAP_RESULT;
	}
	return DRV_E_MALFORMED;
}


#endif /* LOADLENS_DRV_FRAME_APP_H */
