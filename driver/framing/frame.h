/* SPDX-License-Identifier: MIT */
/*
 * Where a stream response ends. One rule per run (struct drv_frame_rule, read-only, shared by the
 * threads) and one small state per connection (struct drv_frame). The rules: the refserver's
 * 4-byte length prefix, a fixed length, a delimiter, an N-byte length prefix, or an HTTP/1.x
 * response parsed with http_parser, or a protocol's framing (frame_ext.h: redis, memcached, DNS,
 * LDAP).
 * Request/response only: a byte after the end of a response is a framing error; pipelining goes
 * through response.h. A framing parses and never counts: the caller records the outcome
 * (scheduling/timing.h).
 */
#ifndef LOADLENS_DRV_FRAME_H
#define LOADLENS_DRV_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <http_parser.h>
#include "config/config.h"
#include "framing/frame_app.h"
#include "framing/frame_ext.h"

#define DRV_FRAME_MAX_BODY (256ULL << 20) /* a larger length prefix is not our framing */

struct drv_frame_rule {
	enum drv_resp_rule rule;
	uint64_t fixed;
	unsigned prefix; /* bytes of the length prefix: 4 for DRV_RESP_LP4 */
	char delim[DRV_MAX_DELIM];
	size_t delim_len;
	/* KMP: the longest proper prefix of delim[0..j] that is also its suffix */
	uint8_t delim_fail[DRV_MAX_DELIM];
	bool head; /* http: the request is HEAD, so responses carry no body */
	const struct drv_frame_ext *ext; /* a protocol's framing (frame_ext.h), or NULL */
};

/* The state of the protocol's framing a rule names (frame_ext.h), its layout the protocol's. */
union drv_app_state {
	uint64_t ext[DRV_FRAME_EXT_WORDS];
};

struct drv_frame {
	uint64_t left;	   /* bytes of the body still to come */
	uint8_t got;	   /* prefix bytes received, or delimiter bytes matched (KMP state) */
	uint8_t pre[8];
	bool done;
	bool keep_alive;   /* http: the connection may carry another request */
	bool head;	   /* http: no body follows the headers */
	uint16_t status;   /* http: status code */
	http_parser hp;
	union drv_app_state app; /* a protocol's framing's (frame_ext.h) */
	uint8_t verdict;	 /* enum drv_app_verdict of the complete response */
	uint8_t rcode;		 /* dns: its RCODE */
};

/* A protocol's framing state in f (frame_ext.h), of its own type... */
static inline void *drv_frame_state(struct drv_frame *f)
{
	return f->app.ext;
}

/* ...which must fit: where the protocol defines that type. */
#define DRV_FRAME_STATE_FITS(type)                                                                 \
	_Static_assert(sizeof(type) <= sizeof(((struct drv_frame *)0)->app.ext) &&                 \
			       _Alignof(type) <= _Alignof(uint64_t),                               \
		       #type " must fit a frame's protocol state (frame_ext.h)")

void drv_frame_rule_init(struct drv_frame_rule *r, const struct drv_config *cfg);
/* The registered protocol's framing of a response rule (config/app.h's frame), or NULL. */
const struct drv_frame_ext *drv_frame_ext_for(enum drv_resp_rule rule);
/* KMP failure table of d[0..n) into fail[0..n) (n <= DRV_MAX_DELIM). */
void drv_frame_delim_table(const char *d, size_t n, uint8_t *fail);
/* Before each request. */
void drv_frame_reset(const struct drv_frame_rule *r, struct drv_frame *f);
/*
 * Feed n response bytes. Returns 0 (f->done once the response is complete), DRV_E_MALFORMED
 * (bytes outside the framing, past the end of the response, an HTTP status under 100) or
 * DRV_E_TOO_LARGE (HTTP headers over http_parser's limit, a length prefix over
 * DRV_FRAME_MAX_BODY).
 */
int drv_frame_feed(const struct drv_frame_rule *r, struct drv_frame *f, const char *p, size_t n);
/* frame.c's protocol rules (frame_ext.h), for response.c: *used bytes taken. */
int drv__frame_app_feed(const struct drv_frame_rule *r, struct drv_frame *f, const char *p,
			size_t n, size_t *used);
/* frame.c's http_parser with its callbacks, for response.c: bytes parsed. */
size_t drv__frame_http_execute(struct drv_frame *f, const char *p, size_t n);
/* The DRV_E_* code a complete response counts as (0: ok). */
static inline int drv_frame_verdict_err(const struct drv_frame *f)
{
	return drv_app_verdict_err((enum drv_app_verdict)f->verdict);
}
/* A connection slot's end: what a rule's state holds (a protocol's framing's). */
void drv_frame_free(const struct drv_frame_rule *r, struct drv_frame *f);
/* The peer closed: 0 if that completes the response (http body until close), else DRV_E_SHORT. */
int drv_frame_eof(const struct drv_frame_rule *r, struct drv_frame *f);

#endif /* LOADLENS_DRV_FRAME_H */
