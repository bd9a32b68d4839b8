/* SPDX-License-Identifier: MIT */
/*
 * Application framings: where a redis (RESP2/RESP3), memcached (text protocol) or DNS (over TCP,
 * 2-byte length prefix) response ends, and whether it is an error reply. Each is a pure
 * incremental parser over a small state: feed any split of the bytes, it stops at the end of
 * one response and says how many bytes it used, so a pipelined stream can go on with the next.
 * A byte outside the framing is DRV_E_MALFORMED, never a hang: every length and count is bounded.
 */
#ifndef LOADLENS_DRV_FRAME_APP_H
#define LOADLENS_DRV_FRAME_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRV_APP_MAX_COUNT (1ULL << 32) /* RESP: values still expected, at most */
#define DRV_APP_MAX_LINE 4096	       /* memcached: bytes of one response line, at most */
#define DRV_FRAME_APP_MAX_BULK (512ULL << 20) /* one bulk string / data block, at most */

/* The outcome of one complete response. */
enum drv_app_verdict {
	DRV_APP_OK = 0,
	DRV_APP_RESP_ERROR,    /* RESP: a top-level -ERR or !blob error */
	DRV_APP_MC_CLIENT,     /* memcached: CLIENT_ERROR or ERROR */
	DRV_APP_MC_SERVER,     /* memcached: SERVER_ERROR */
	DRV_APP_DNS_RCODE,     /* DNS: RCODE != 0 (the code is in rcode) */
};

struct drv_resp_state {
	uint64_t need; /* values still to complete the response */
	uint64_t num;  /* the number on a length line */
	uint64_t left; /* bulk bytes still to skip */
	uint8_t st;
	uint8_t type;
	uint8_t ndig;
	bool neg;
	bool started;
};

struct drv_mc_state {
	uint64_t num;  /* the size token of a VALUE / VA line */
	uint64_t left; /* data block bytes still to skip (+ its CRLF) */
	uint32_t linelen;
	uint8_t st;
	uint8_t phase;	/* 0: first line, 1: inside VALUE/STAT lines (until END), 2: last data */
	uint8_t tok;	/* token index on the current line */
	uint8_t kwlen;
	uint8_t want;	/* the token holding the size, 0 = none */
	bool have_num;
	char kw[16];	/* the line's first token, truncated */
};

struct drv_dns_state {
	uint64_t left;
	uint16_t got; /* bytes of prefix + header seen */
	uint8_t pre[2];
	uint8_t hdr[4];
};

union drv_app_state {
	struct drv_resp_state resp;
	struct drv_mc_state mc;
	struct drv_dns_state dns;
};

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

/* Each parser: reset before a response; feed returns the bytes used (<= n). *res is 0 while the
 * response is incomplete, 1 once it is complete (then *verdict and *rcode are set), or
 * DRV_E_MALFORMED. */
void drv_resp_reset(struct drv_resp_state *s);
size_t drv_resp_feed(struct drv_resp_state *s, const uint8_t *p, size_t n, int *res,
		     enum drv_app_verdict *verdict);
void drv_mc_reset(struct drv_mc_state *s);
size_t drv_mc_feed(struct drv_mc_state *s, const uint8_t *p, size_t n, int *res,
		   enum drv_app_verdict *verdict);
void drv_dns_reset(struct drv_dns_state *s);
size_t drv_dns_feed(struct drv_dns_state *s, const uint8_t *p, size_t n, int *res,
		    enum drv_app_verdict *verdict, uint8_t *rcode);

/* A whole DNS message (a UDP reply): 0, with *rcode, or DRV_E_MALFORMED (short, not a reply). */
int drv_dns_message(const uint8_t *p, size_t n, uint8_t *rcode);
/* The first line of a memcached reply (a UDP reply's first datagram, after its frame header). */
enum drv_app_verdict drv_mc_first_line(const uint8_t *p, size_t n);

/*
 * memcached over UDP: every datagram starts with an 8-byte frame header (request id, sequence
 * number, datagram count, reserved; big-endian 16-bit each). A reply is complete once all its
 * datagrams are in, whatever their order.
 */
#define DRV_MCUDP_HDR 8
#define DRV_MCUDP_MAX 1024 /* datagrams of one reply, at most (~1.4 MB) */

struct drv_mcudp {
	uint16_t total; /* datagrams of the reply, 0 until the first is in */
	uint16_t got;
	uint8_t verdict; /* from the first datagram's first line */
	uint64_t seen[DRV_MCUDP_MAX / 64];
};

static inline void drv_mcudp_reset(struct drv_mcudp *m)
{
	m->total = 0;
	m->got = 0;
	m->verdict = DRV_APP_OK;
}
/* One datagram of the reply (id already matched): 1 complete, 0 more to come, 2 a datagram seen
 * before (a duplicate), DRV_E_MALFORMED (short, a count that changed, a sequence past it). */
int drv_mcudp_add(struct drv_mcudp *m, const uint8_t *p, size_t n);

/* The DRV_E_* error code of a verdict (0 for DRV_APP_OK). */
int drv_app_verdict_err(enum drv_app_verdict v);
/* DNS RCODE names: "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", ... (0..15). */
const char *drv_dns_rcode_name(unsigned rcode);

#endif /* LOADLENS_DRV_FRAME_APP_H */
