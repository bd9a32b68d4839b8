// SPDX-License-Identifier: MIT
/* HTTP/2 and gRPC statuses from the server's header blocks (h2_status.h): the decoder and the
 * reader of the ring buffer; the counts' pure functions are h2_status_counts.c, their output
 * output/h2_status_report.c. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <nghttp2/nghttp2.h>
#include "loadlens/h2.h"
#include "sources/h2_status.h"
#include "sources/hpack_refs.h"
#include "sources/poll_thread.h"

#define TABLE (2 * OBS_H2_DECODERS) /* open addressing, a power of two */
#define H2_PADDED 0x8
#define H2_PRIORITY 0x20
#define H2_END_HEADERS 0x4
/* the largest HPACK table a server may use: its client's SETTINGS_HEADER_TABLE_SIZE, which the
 * observer does not read (4,096 by default; 65,536 covers the usual settings) */
#define HPACK_TABLE_MAX 65536

/* A connection's decoder: its inflater and the frame being put together. */
struct conn {
	uint64_t sk, gen;
	uint64_t used; /* the decoder's clock at its last record: the longest idle goes first */
	uint32_t seq;  /* the record due next */
	nghttp2_hd_inflater *inf;
	uint32_t slot;
	uint32_t sid;	   /* the open header block's stream */
	uint16_t got;	   /* bytes of the current frame's payload so far */
	bool in_block;	   /* a header block is open (no END_HEADERS yet) */
	bool end;	   /* its HEADERS ended the stream */
	bool push;	   /* it is a PUSH_PROMISE's (a request's headers: no status) */
	bool grpc;	   /* a response of the connection was application/grpc */
	bool broken;	   /* a gap, or an HPACK error: nothing decoded until the next block */
	bool fresh;	   /* its HPACK table is unknown (blocks were not seen): each block is
			    * decoded alone, with an inflater of its own */
	int status;	   /* the block's :status (0: none; -1: not a number) */
	int grpc_status;   /* its grpc-status (-1: none) */
	uint8_t frame[LL_H2_HB_MAX];
};

struct obs_h2_dec {
	size_t nslots;
	struct conn **tab; /* TABLE entries */
	size_t live;
	uint64_t clock;
	uint64_t bad;
	struct obs_h2_status_counts zero;
	struct obs_h2_status_counts c[]; /* nslots */
};

struct obs_h2_dec *obs_h2_dec_new(size_t nslots)
{
	struct obs_h2_dec *d = calloc(1, sizeof(*d) + nslots * sizeof(d->c[0]));

	if (!d)
		return NULL;
	d->nslots = nslots;
	d->tab = calloc(TABLE, sizeof(d->tab[0]));
	if (!d->tab) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

static void conn_free(struct conn *c)
{
	if (!c)
		return;
	if (c->inf)
		nghttp2_hd_inflate_del(c->inf);
	free(c);
}

/* A new inflater for c (its table empty): 0, or -1 with none. */
static int inflater_new(struct conn *c)
{
	if (c->inf)
		nghttp2_hd_inflate_del(c->inf);
	c->inf = NULL;
	if (nghttp2_hd_inflate_new(&c->inf))
		return -1;
	if (!nghttp2_hd_inflate_change_table_size(c->inf, HPACK_TABLE_MAX))
		return 0;
	nghttp2_hd_inflate_del(c->inf);
	c->inf = NULL;
	return -1;
}

void obs_h2_dec_free(struct obs_h2_dec *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < TABLE; i++)
		conn_free(d->tab[i]);
	free(d->tab);
	free(d);
}

static size_t home(uint64_t sk, uint64_t gen)
{
	uint64_t h = (sk ^ (gen * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return (size_t)(h >> 40) & (TABLE - 1);
}

/* The entry of (sk, gen), or the empty one where it would go. */
static size_t find(const struct obs_h2_dec *d, uint64_t sk, uint64_t gen)
{
	size_t i = home(sk, gen);

	while (d->tab[i] && (d->tab[i]->sk != sk || d->tab[i]->gen != gen))
		i = (i + 1) & (TABLE - 1);
	return i;
}

/* Empty entry i, moving back the entries after it that belong before it (no tombstones). */
static void take_out(struct obs_h2_dec *d, size_t i)
{
	size_t j = i, k;

	conn_free(d->tab[i]);
	d->tab[i] = NULL;
	d->live--;
	for (;;) {
		j = (j + 1) & (TABLE - 1);
		if (!d->tab[j])
			return;
		k = home(d->tab[j]->sk, d->tab[j]->gen);
		/* j's entry may move to i if its home is not cyclically within (i, j] */
		if ((i <= j) ? (k <= i || k > j) : (k <= i && k > j)) {
			d->tab[i] = d->tab[j];
			d->tab[j] = NULL;
			i = j;
		}
	}
}

/* Room for one more: the longest idle decoder goes (counted on its slot). */
static void evict(struct obs_h2_dec *d)
{
	size_t i, old = TABLE;

	for (i = 0; i < TABLE; i++)
		if (d->tab[i] && (old == TABLE || d->tab[i]->used < d->tab[old]->used))
			old = i;
	if (old == TABLE)
		return;
	d->c[d->tab[old]->slot].evicted++;
	take_out(d, old);
}

static struct conn *conn_new(struct obs_h2_dec *d, uint64_t sk, uint64_t gen, uint32_t slot)
{
	struct conn *c;
	size_t i;

	if (d->live >= OBS_H2_DECODERS)
		evict(d);
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (inflater_new(c)) {
		conn_free(c);
		return NULL;
	}
	c->sk = sk;
	c->gen = gen;
	c->slot = slot;
	i = find(d, sk, gen);
	d->tab[i] = c;
	d->live++;
	return c;
}

static bool name_is(const nghttp2_nv *nv, const char *name)
{
	size_t n = strlen(name);

	return nv->namelen == n && !memcmp(nv->name, name, n);
}

/* One header of the open block. */
static void header(struct conn *c, const nghttp2_nv *nv)
{
	static const char grpc_type[] = "application/grpc";
	size_t i;

	if (name_is(nv, ":status")) {
		c->status = nv->valuelen == 3 ? 0 : -1;
		for (i = 0; i < nv->valuelen && c->status >= 0; i++)
			c->status = nv->value[i] >= '0' && nv->value[i] <= '9'
					    ? c->status * 10 + (nv->value[i] - '0')
					    : -1;
	} else if (name_is(nv, "content-type")) {
		/* application/grpc, application/grpc+proto, application/grpc;... */
		if (nv->valuelen >= sizeof(grpc_type) - 1 &&
		    !strncasecmp((const char *)nv->value, grpc_type, sizeof(grpc_type) - 1) &&
		    (nv->valuelen == sizeof(grpc_type) - 1 || nv->value[sizeof(grpc_type) - 1] == '+' ||
		     nv->value[sizeof(grpc_type) - 1] == ';'))
			c->grpc = true;
	} else if (name_is(nv, "grpc-status")) {
		c->grpc_status = ll_grpc_status_parse(nv->value, nv->valuelen);
		if (c->grpc_status < 0)
			c->grpc_status = LL_GRPC_OTHER; /* not a number: gRPC reads it as UNKNOWN */
	}
}

/* A block's fragment into the inflater (final: END_HEADERS). 0, or -1 on an HPACK error. */
static int inflate(struct conn *c, const uint8_t *in, size_t len, bool final)
{
	nghttp2_nv nv;
	ssize_t rv;
	int fl;

	for (;;) {
		fl = 0;
		rv = nghttp2_hd_inflate_hd2(c->inf, &nv, &fl, in, len, final);
		if (rv < 0)
			return -1;
		in += rv;
		len -= (size_t)rv;
		if (fl & NGHTTP2_HD_INFLATE_EMIT)
			header(c, &nv);
		if (fl & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(c->inf);
			return 0;
		}
		if (!len && !(fl & NGHTTP2_HD_INFLATE_EMIT))
			return 0;
	}
}

/* The block's :status, if it had one. */
static void count_status(struct obs_h2_status_counts *k, const struct conn *c)
{
	if (c->status >= OBS_H2_STATUS_LO && c->status < OBS_H2_STATUS_LO + OBS_H2_STATUS_N)
		k->status[c->status - OBS_H2_STATUS_LO]++;
	else if (c->status)
		k->status_other++;
}

/* A whole header block: its statuses. */
static void block_done(struct obs_h2_status_counts *k, const struct conn *c)
{
	k->blocks++;
	if (c->push)
		return;
	count_status(k, c);
	if (!c->end)
		return;
	k->ends++;
	if (c->grpc_status >= 0)
		k->grpc[c->grpc_status]++;
	else if (c->grpc)
		k->grpc_none++;
}

static void broken(struct obs_h2_status_counts *k, struct conn *c)
{
	if (c->in_block)
		k->undecoded++;
	c->broken = true;
	c->in_block = false;
}

/* A block decoded alone (c->fresh) met a reference to the table of before: what came before it
 * is read (a response's :status comes first), the rest not, so an ending block's grpc-status is
 * not counted as read. Its other frames are passed over (broken, not counted again). */
static void block_cut(struct obs_h2_status_counts *k, struct conn *c)
{
	if (!c->push && c->status) {
		k->partial++;
		count_status(k, c);
	} else {
		k->undecoded++;
	}
	c->in_block = false;
	c->broken = true;
}

/* A whole frame of the connection (type t, flags f, stream sid, len bytes at p). */
static void frame(struct obs_h2_status_counts *k, struct conn *c, uint8_t t, uint8_t f,
		  uint32_t sid, const uint8_t *p, size_t len)
{
	uint8_t pad;

	if (t == LL_H2_HEADERS || t == LL_H2_PUSH_PROMISE) {
		if (c->in_block) {
			broken(k, c); /* a block before the last one ended: not HTTP/2 as we know */
			k->undecoded++;
			return;
		}
		c->in_block = true;
		if (f & H2_PADDED) {
			pad = len ? p[0] : 0;
			if (!len || pad >= len)
				goto bad;
			p++;
			len -= 1u + pad;
		}
		if (t == LL_H2_HEADERS && (f & H2_PRIORITY)) {
			if (len < 5)
				goto bad;
			p += 5;
			len -= 5;
		}
		if (t == LL_H2_PUSH_PROMISE) {
			if (len < 4)
				goto bad;
			p += 4;
			len -= 4;
		}
		/* evidence for reading the slot's blocks in the kernel: whole ones only */
		if (f & H2_END_HEADERS) {
			int refers = obs_hpack_refers(p, len);

			k->refer += refers == 1;
			k->plain += refers == 0;
		}
		c->sid = sid;
		c->end = t == LL_H2_HEADERS && (f & LL_H2_END_STREAM);
		c->push = t == LL_H2_PUSH_PROMISE;
		c->status = 0;
		c->grpc_status = -1;
		if (c->fresh && inflater_new(c))
			goto bad;
	} else if (!c->in_block || sid != c->sid) {
		goto bad; /* a CONTINUATION of no block */
	}
	if (inflate(c, p, len, f & H2_END_HEADERS)) {
		if (c->fresh) {
			block_cut(k, c);
			return;
		}
		goto bad;
	}
	if (f & H2_END_HEADERS) {
		c->in_block = false;
		block_done(k, c);
	}
	return;
bad:
	c->in_block = true;
	broken(k, c);
}

void obs_h2_dec_feed(struct obs_h2_dec *d, const void *rec, size_t size)
{
	const struct rt_h2_hb *h = rec;
	struct obs_h2_status_counts *k;
	uint32_t flen, sid;
	uint8_t t;
	struct conn *c;
	bool start;
	size_t i;

	if (size < sizeof(*h) || h->slot >= d->nslots || size < sizeof(*h) + h->n) {
		d->bad++;
		return;
	}
	k = &d->c[h->slot];
	i = find(d, h->sk, h->gen);
	c = d->tab[i];
	if (h->flags & LL_H2_HB_CLOSE) {
		if (c)
			take_out(d, i);
		return;
	}
	flen = ((uint32_t)h->fh[0] << 16) | ((uint32_t)h->fh[1] << 8) | h->fh[2];
	t = h->fh[3];
	sid = (((uint32_t)h->fh[5] & 0x7f) << 24) | ((uint32_t)h->fh[6] << 16) |
	      ((uint32_t)h->fh[7] << 8) | h->fh[8];
	if (flen > LL_H2_HB_MAX || (uint32_t)h->off + h->n > flen) {
		d->bad++;
		return;
	}
	start = !h->off && (t == LL_H2_HEADERS || t == LL_H2_PUSH_PROMISE);
	if (c && !h->seq) {
		take_out(d, i); /* (the same socket and generation again: begin anew) */
		c = NULL;
	}
	if (c && (h->flags & LL_H2_HB_FRESH) && !c->broken)
		broken(k, c); /* the records stopped (an open block is not read) and go on here */
	if (!c) {
		/* a record after the first: its earlier ones were not seen (the decoder forgotten
		 * for room, or the first records lost): from the next block, each read alone */
		if (h->seq && !start)
			return;
		c = conn_new(d, h->sk, h->gen, h->slot);
		if (!c) {
			if (start)
				k->undecoded++;
			return;
		}
		c->fresh = h->seq || (h->flags & LL_H2_HB_FRESH);
		c->seq = h->seq;
	}
	c->used = ++d->clock;
	if (c->broken && start) {
		/* a block begins: read alone, the table of before unknown */
		c->broken = false;
		c->fresh = true;
		c->got = 0;
		c->seq = h->seq;
	}
	if (h->seq != c->seq++ && !c->broken) {
		c->in_block = true;
		broken(k, c); /* a record of the connection was not seen */
	}
	if (c->broken)
		return;
	if (h->off != c->got) {
		c->in_block = true;
		broken(k, c); /* bytes of the frame were not seen */
		return;
	}
	memcpy(c->frame + h->off, (const uint8_t *)rec + sizeof(*h), h->n);
	c->got = (uint16_t)(c->got + h->n);
	if (c->got < flen)
		return;
	c->got = 0;
	frame(k, c, t, h->fh[4], sid, c->frame, flen);
}

const struct obs_h2_status_counts *obs_h2_dec_counts(const struct obs_h2_dec *d, size_t i)
{
	return i < d->nslots ? &d->c[i] : &d->zero;
}

uint64_t obs_h2_dec_bad(const struct obs_h2_dec *d)
{
	return d->bad;
}

size_t obs_h2_dec_live(const struct obs_h2_dec *d)
{
	return d->live;
}

size_t obs_h2_dec_nslots(const struct obs_h2_dec *d)
{
	return d->nslots;
}

/* ---- the reader: a thread that drains the ring buffer ---- */

struct obs_h2_status {
	struct obs_h2_dec *dec;
	struct ring_buffer *rb;
	pthread_mutex_t lock; /* the decoder's counts, between the thread and the readers */
	volatile uint32_t *idle; /* the BPF side's h2_hb_idle (NULL: always poll) */
	volatile uint8_t *quiet; /* the BPF side's h2_hb_quiet[] (NULL: every block sent) */
	enum obs_h2_quiet *qstate; /* each slot's */
	int empty;		 /* empty drains in a row, up to OBS_H2_STATUS_IDLE_POLLS */
	struct obs_poll_thread reader;
};

static int on_rec(void *ctx, void *data, size_t size)
{
	obs_h2_dec_feed(ctx, data, size);
	return 0;
}

/* The slots' h2_hb_quiet flags, after the records read (under the lock). */
static void quiet_update(struct obs_h2_status *s)
{
	enum obs_h2_quiet q;
	size_t i, n = obs_h2_dec_nslots(s->dec);

	for (i = 0; s->quiet && i < n; i++) {
		q = obs_h2_quiet_next(s->qstate[i], obs_h2_dec_counts(s->dec, i));
		if (q != s->qstate[i])
			__atomic_store_n(&s->quiet[i], q == OBS_H2_QUIET, __ATOMIC_RELAXED);
		s->qstate[i] = q;
	}
}

/* Records consumed (0: the ring was empty). */
static int drain(struct obs_h2_status *s)
{
	int n;

	pthread_mutex_lock(&s->lock);
	n = ring_buffer__consume(s->rb);
	if (n > 0)
		quiet_update(s);
	pthread_mutex_unlock(&s->lock);
	return n;
}

/*
 * The records come without a wakeup (BPF_RB_NO_WAKEUP: a wakeup per response would cost the
 * server more than the record), so while they come the ring is drained on a timer, every
 * OBS_H2_STATUS_POLL_MS. After OBS_H2_STATUS_IDLE_POLLS empty drains in a row (no HTTP/2 at all,
 * most often) the thread sleeps in epoll instead, with the BPF side's h2_hb_idle set: the next
 * record wakes it (one wakeup at the start of a burst), and a thread that woke 100 times a second
 * no longer takes the CPU from the server it watches. A record committed as the flag is set
 * may wake nobody: it waits at most OBS_H2_STATUS_IDLE_MS.
 */
static void step(void *arg)
{
	static const struct timespec period = {0, OBS_H2_STATUS_POLL_MS * 1000000L};
	struct obs_h2_status *s = arg;
	struct epoll_event ev;

	if (drain(s) > 0)
		s->empty = 0;
	else if (s->empty < OBS_H2_STATUS_IDLE_POLLS)
		s->empty++;
	if (s->empty < OBS_H2_STATUS_IDLE_POLLS || !s->idle) {
		nanosleep(&period, NULL);
		return;
	}
	__atomic_store_n(s->idle, 1, __ATOMIC_SEQ_CST);
	if (!drain(s))
		(void)epoll_wait(ring_buffer__epoll_fd(s->rb), &ev, 1, OBS_H2_STATUS_IDLE_MS);
	__atomic_store_n(s->idle, 0, __ATOMIC_SEQ_CST);
	/* the next step drains at once: records (woken) poll again, none sleep again */
}

struct obs_h2_status *obs_h2_status_new(int ring_fd, volatile uint32_t *idle,
					volatile uint8_t *quiet, size_t nslots)
{
	struct obs_h2_status *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->idle = idle;
	s->quiet = quiet;
	s->dec = obs_h2_dec_new(nslots);
	s->qstate = calloc(nslots ? nslots : 1, sizeof(*s->qstate));
	if (!s->dec || !s->qstate) {
		err = -ENOMEM;
		goto cleanup;
	}
	s->rb = ring_buffer__new(ring_fd, on_rec, s->dec, NULL);
	if (!s->rb) {
		err = -errno;
		goto cleanup;
	}
	err = obs_poll_thread_start(&s->reader, step, s);
	if (err)
		goto cleanup;
	return s;

cleanup:
	obs_h2_status_free(s);
	errno = -err;
	return NULL;
}

void obs_h2_status_stop(struct obs_h2_status *s)
{
	if (!s || !obs_poll_thread_stop(&s->reader))
		return;
	drain(s);
}

void obs_h2_status_free(struct obs_h2_status *s)
{
	if (!s)
		return;
	obs_h2_status_stop(s);
	ring_buffer__free(s->rb);
	obs_h2_dec_free(s->dec);
	free(s->qstate);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void obs_h2_status_read(struct obs_h2_status *s, size_t i, struct obs_h2_status_counts *out)
{
	pthread_mutex_lock(&s->lock);
	*out = *obs_h2_dec_counts(s->dec, i);
	pthread_mutex_unlock(&s->lock);
}
