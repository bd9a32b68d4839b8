// SPDX-License-Identifier: MIT
/*
 * memcached's text protocol: a response is one line (STORED, NOT_FOUND, DELETED, TOUCHED, OK,
 * EXISTS, NOT_STORED, VERSION x, a number for incr/decr, the meta commands' HD/NF/NS/EX/EN/MN),
 * or VALUE lines each followed by its data block and then END (get, gets, gat), or STAT lines
 * then END (stats), or VA <size> with one data block (meta get). ERROR and CLIENT_ERROR count as
 * memcache_client_error, SERVER_ERROR as memcache_server_error. Lines are bounded in length.
 */
#include <string.h>
#include "base/errors.h"
#include "framing/frame.h"
#include "memcache/memcache_frame.h"

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

DRV_FRAME_STATE_FITS(struct drv_mc_state);

enum {
	M_LINE = 0, /* inside a line */
	M_LF,	    /* after its CR */
	M_DATA,	    /* a data block */
	M_DATA_CR,
	M_DATA_LF,
};

void drv_mc_reset(struct drv_frame *f)
{
	struct drv_mc_state *s = drv_frame_state(f);

	memset(s, 0, sizeof(*s));
}

static bool is_kw(const struct drv_mc_state *s, const char *kw)
{
	size_t n = strlen(kw);

	return s->kwlen == n && !memcmp(s->kw, kw, n);
}

enum drv_app_verdict drv_mc_first_line(const uint8_t *p, size_t n)
{
	if (n >= 12 && !memcmp(p, "SERVER_ERROR", 12))
		return DRV_APP_MC_SERVER;
	if ((n >= 12 && !memcmp(p, "CLIENT_ERROR", 12)) ||
	    (n >= 5 && !memcmp(p, "ERROR", 5) && (n == 5 || p[5] == '\r' || p[5] == ' ')))
		return DRV_APP_MC_CLIENT;
	return DRV_APP_OK;
}

/* A line is complete. 1: response complete, 0: go on, <0: malformed. */
static int line(struct drv_mc_state *s, enum drv_app_verdict *verdict)
{
	bool first = s->phase == 0, have_num = s->have_num;

	/* the next line starts afresh */
	s->linelen = 0;
	s->tok = 0;
	s->want = 0;
	s->have_num = false;
	s->left = s->num;
	s->num = 0;
	if (!s->kwlen)
		return DRV_E_MALFORMED;
	if (is_kw(s, "VALUE") || (first && is_kw(s, "VA"))) {
		if (!have_num || s->left > DRV_FRAME_APP_MAX_BULK)
			return DRV_E_MALFORMED;
		s->st = s->left ? M_DATA : M_DATA_CR;
		s->phase = is_kw(s, "VA") ? 2 : 1;
		s->kwlen = 0;
		*verdict = DRV_APP_OK;
		return 0;
	}
	s->st = M_LINE;
	if (is_kw(s, "STAT")) {
		s->phase = 1;
		s->kwlen = 0;
		*verdict = DRV_APP_OK;
		return 0;
	}
	if (is_kw(s, "END"))
		return *verdict = DRV_APP_OK, 1;
	if (!first)
		return DRV_E_MALFORMED;
	if (is_kw(s, "SERVER_ERROR"))
		*verdict = DRV_APP_MC_SERVER;
	else if (is_kw(s, "CLIENT_ERROR") || is_kw(s, "ERROR"))
		*verdict = DRV_APP_MC_CLIENT;
	else
		*verdict = DRV_APP_OK;
	return 1;
}

/* One byte of a line other than CR. */
static int line_byte(struct drv_mc_state *s, uint8_t c)
{
	if (++s->linelen > DRV_MC_MAX_LINE || c == '\n')
		return DRV_E_MALFORMED;
	if (c == ' ') {
		if (s->tok == 0 && !s->kwlen)
			return DRV_E_MALFORMED;
		if (s->tok == 0)
			s->want = is_kw(s, "VALUE") ? 3 : is_kw(s, "VA") ? 1 : 0;
		s->tok++;
		return 0;
	}
	if (s->tok == 0) {
		/* a keyword is upper case (or the digits of incr/decr's value) */
		if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
			return DRV_E_MALFORMED;
		if (s->kwlen < sizeof(s->kw)) /* longer: truncated, no keyword we know */
			s->kw[s->kwlen++] = (char)c;
		return 0;
	}
	if (s->want && s->tok == s->want) {
		if (c < '0' || c > '9' || s->num > DRV_FRAME_APP_MAX_BULK)
			return DRV_E_MALFORMED;
		s->num = s->num * 10 + (uint64_t)(c - '0');
		s->have_num = true;
	}
	return 0;
}

/* One step of drv_mc_feed() (drv_app_step_fn): the bytes p[0..n) from the current state. */
static size_t step(void *v, const uint8_t *p, size_t n, int *r, enum drv_app_verdict *verdict)
{
	struct drv_mc_state *s = v;
	uint8_t c = p[0];
	size_t used = 1;

	switch (s->st) {
	case M_LINE:
		if (c == '\r')
			s->st = M_LF;
		else
			*r = line_byte(s, c);
		break;
	case M_LF:
		*r = c == '\n' ? line(s, verdict) : DRV_E_MALFORMED;
		break;
	case M_DATA:
	case M_DATA_CR:
	case M_DATA_LF:
		used = drv_app_block(&s->st, M_DATA, &s->left, p, n, r);
		if (*r == 1) {
			s->st = M_LINE;
			*r = s->phase == 2; /* meta get: one data block ends it */
		}
		break;
	default:
		*r = DRV_E_MALFORMED;
	}
	return used;
}

size_t drv_mc_feed(struct drv_frame *f, const uint8_t *p, size_t n, int *res,
		   enum drv_app_verdict *verdict)
{
	return drv_app_feed(step, drv_frame_state(f), p, n, res, verdict);
}

static int frame_datagram(const uint8_t *p, size_t n, enum drv_app_verdict *verdict,
			  uint8_t *rcode)
{
	(void)rcode;
	*verdict = drv_mc_first_line(p, n);
	return 0;
}

const struct drv_frame_ext drv_memcache_frame = {
	.rule = DRV_RESP_MEMCACHE, .reset = drv_mc_reset, .feed = drv_mc_feed,
	.datagram = frame_datagram,
};
