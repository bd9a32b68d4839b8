// SPDX-License-Identifier: MIT
/*
 * RESP2/RESP3 (redis): one complete value, aggregates nested to any depth. No stack: the parser
 * keeps only how many values are still needed (an aggregate of k elements replaces itself by k,
 * a map or attribute by 2k), so a deep or wide reply costs no memory, and the count is bounded.
 * A top-level simple error (-) or blob error (!) is a resp_error; nested errors (inside EXEC's
 * array) are the reply's content, not its outcome.
 */
#include "base/errors.h"
#include "framing/frame.h"
#include "redis/redis_frame.h"

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

DRV_FRAME_STATE_FITS(struct drv_resp_state);

enum {
	R_TYPE = 0, /* the type byte of the next value */
	R_NUM,	    /* the number of a length / count line */
	R_NUM_LF,
	R_LINE,	    /* the rest of a simple line (+ - : _ # , ( ) */
	R_LINE_LF,
	R_BULK,	    /* the bytes of a bulk string */
	R_BULK_CR,
	R_BULK_LF,
};

void drv_resp_reset(struct drv_frame *f)
{
	struct drv_resp_state *s = drv_frame_state(f);

	*s = (struct drv_resp_state){.need = 1};
}

/* One value is complete; 1 when that completes the response. */
static int value_done(struct drv_resp_state *s)
{
	s->st = R_TYPE;
	return --s->need == 0;
}

/* The line of a length or count is complete. 1: response complete, 0: go on, <0: malformed. */
static int num_done(struct drv_resp_state *s)
{
	uint64_t k = s->num;

	if (!s->ndig || (s->neg && k != 1))
		return DRV_E_MALFORMED;
	switch (s->type) {
	case '$':
	case '=':
	case '!':
		if (s->neg) /* $-1: RESP2's null bulk string */
			return s->type == '$' ? value_done(s) : DRV_E_MALFORMED;
		if (k > DRV_FRAME_APP_MAX_BULK)
			return DRV_E_MALFORMED;
		s->left = k;
		s->st = k ? R_BULK : R_BULK_CR;
		return 0;
	case '%':
	case '|':
		if (s->neg)
			return DRV_E_MALFORMED;
		k *= 2;
		if (s->type == '|') /* an attribute annotates the value after it */
			k++;
		break;
	default: /* * ~ > */
		if (s->neg) /* *-1: RESP2's null array */
			return s->type == '*' ? value_done(s) : DRV_E_MALFORMED;
		break;
	}
	s->st = R_TYPE;
	s->need = s->need - 1 + k;
	if (s->need > DRV_REDIS_MAX_COUNT)
		return DRV_E_MALFORMED;
	return s->need == 0;
}

/* One step of drv_resp_feed() (drv_app_step_fn): the bytes p[0..n) from the current state. */
static size_t step(void *v, const uint8_t *p, size_t n, int *r, enum drv_app_verdict *verdict)
{
	struct drv_resp_state *s = v;
	uint8_t c = p[0];
	size_t used = 1;

	switch (s->st) {
	case R_TYPE:
		if (!s->started && (c == '-' || c == '!'))
			*verdict = DRV_APP_RESP_ERROR;
		else if (!s->started)
			*verdict = DRV_APP_OK;
		s->started = true;
		s->type = c;
		s->num = 0;
		s->ndig = 0;
		s->neg = false;
		switch (c) {
		case '+': case '-': case ':': case '_': case '#': case ',': case '(':
			s->st = R_LINE;
			break;
		case '$': case '=': case '!': case '*':
		case '~': case '>': case '%': case '|':
			s->st = R_NUM;
			break;
		default:
			*r = DRV_E_MALFORMED;
		}
		break;
	case R_NUM:
		if (c == '-' && !s->ndig && !s->neg) {
			s->neg = true;
		} else if (c >= '0' && c <= '9' && s->ndig < 19) {
			s->num = s->num * 10 + (uint64_t)(c - '0');
			s->ndig++;
		} else if (c == '\r') {
			s->st = R_NUM_LF;
		} else {
			*r = DRV_E_MALFORMED;
		}
		break;
	case R_NUM_LF:
		*r = c == '\n' ? num_done(s) : DRV_E_MALFORMED;
		break;
	case R_LINE:
		if (c == '\r')
			s->st = R_LINE_LF;
		else if (c == '\n')
			*r = DRV_E_MALFORMED;
		break;
	case R_LINE_LF:
		*r = c == '\n' ? value_done(s) : DRV_E_MALFORMED;
		break;
	case R_BULK:
	case R_BULK_CR:
	case R_BULK_LF:
		used = drv_app_block(&s->st, R_BULK, &s->left, p, n, r);
		if (*r == 1)
			*r = value_done(s);
		break;
	default:
		*r = DRV_E_MALFORMED;
	}
	return used;
}

size_t drv_resp_feed(struct drv_frame *f, const uint8_t *p, size_t n, int *res,
		     enum drv_app_verdict *verdict)
{
	return drv_app_feed(step, drv_frame_state(f), p, n, res, verdict);
}

const struct drv_frame_ext drv_redis_frame = {
	.rule = DRV_RESP_RESP, .reset = drv_resp_reset, .feed = drv_resp_feed,
};
