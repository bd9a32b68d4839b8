// SPDX-License-Identifier: MIT
/*
 * HTTP/2 and gRPC statuses from the server's header blocks (observer/sources/h2_status.c), fed
 * records as bpf/req_h2.bpf.h writes them: header blocks made by libnghttp2's own HPACK deflater
 * (its dynamic table on, as a server's encoder has it: after the first call a trailer is an
 * index or two), cut into frames and records the way the kernel cuts them. Each case has its
 * truth: the calls it made and their statuses.
 */
#include <stdlib.h>
#include <string.h>
#include <nghttp2/nghttp2.h>
#include "ll_test.h"
#include "loadlens/h2.h"
#include "sources/h2_status.h"
#include "sources/hpack_refs.h"

#define END_STREAM 0x1
#define END_HEADERS 0x4
#define PADDED 0x8
#define PRIORITY 0x20

/* One server connection: its HPACK encoder, and what goes to the decoder. */
struct srv {
	struct obs_h2_dec *d;
	nghttp2_hd_deflater *def;
	uint64_t sk, gen;
	uint32_t slot;
	uint32_t seq;	/* the connection's records so far */
	int drop_next;	/* the next record is lost (a gap) */
	int stopped;	/* the kernel's records stopped: none goes out, none is numbered */
	int fresh_next; /* the next record is the first after a stop (LL_H2_HB_FRESH) */
};

static void srv_init(struct srv *s, struct obs_h2_dec *d, uint64_t sk, uint32_t slot)
{
	memset(s, 0, sizeof(*s));
	s->d = d;
	s->sk = sk;
	s->gen = sk * 1000 + 7;
	s->slot = slot;
	assert_int_equal(nghttp2_hd_deflate_new(&s->def, 4096), 0);
}

static void srv_done(struct srv *s)
{
	if (s->def)
		nghttp2_hd_deflate_del(s->def);
	s->def = NULL;
}

/* A test's decoder (4 slots) and its server connection: LL_TEST_MAIN_EACH's state. */
struct fixture {
	struct obs_h2_dec *d;
	struct srv s;
};

static int fixture_new(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));

	*state = x;
	if (!x)
		return -1;
	x->d = obs_h2_dec_new(4);
	return x->d ? 0 : -1;
}

static int fixture_free(void **state)
{
	struct fixture *x = *state;

	srv_done(&x->s);
	obs_h2_dec_free(x->d);
	free(x);
	return 0;
}

static struct obs_h2_dec *decoder(void **state)
{
	return ((struct fixture *)*state)->d;
}

/* The test's server connection: socket sk, request slot slot, its records to the test's decoder. */
static struct srv *conn(void **state, uint64_t sk, uint32_t slot)
{
	struct fixture *x = *state;

	srv_init(&x->s, x->d, sk, slot);
	return &x->s;
}

/* One record: the frame header fh, n payload bytes from off. */
static void record(struct srv *s, const uint8_t fh[LL_H2_HDR], uint16_t off, const uint8_t *p,
		   uint16_t n, uint8_t flags)
{
	uint8_t buf[sizeof(struct rt_h2_hb) + LL_H2_HB_MAX];
	struct rt_h2_hb *h = (struct rt_h2_hb *)buf;

	if (s->stopped)
		return;
	if (s->fresh_next)
		flags |= LL_H2_HB_FRESH;
	s->fresh_next = 0;
	memset(buf, 0, sizeof(buf));
	h->sk = s->sk;
	h->gen = s->gen;
	h->slot = s->slot;
	h->off = off;
	h->n = n;
	memcpy(h->fh, fh, LL_H2_HDR);
	h->seq = s->seq++;
	h->flags = flags;
	if (n)
		memcpy(h->data, p, n);
	if (s->drop_next) {
		s->drop_next = 0;
		return;
	}
	obs_h2_dec_feed(s->d, buf, sizeof(*h) + n);
}

/* A frame of len payload bytes, in records of at most cut bytes (0: one). */
static void frame(struct srv *s, uint8_t type, uint8_t flags, uint32_t sid, const uint8_t *p,
		  size_t len, size_t cut)
{
	uint8_t fh[LL_H2_HDR] = {(uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len, type,
				 flags, (uint8_t)(sid >> 24), (uint8_t)(sid >> 16),
				 (uint8_t)(sid >> 8), (uint8_t)sid};
	size_t off = 0, n;

	assert_true(len <= LL_H2_HB_MAX);
	do {
		n = cut && len - off > cut ? cut : len - off;
		record(s, fh, (uint16_t)off, p + off, (uint16_t)n, 0);
		off += n;
	} while (off < len);
}

/* A header block of nv, encoded by the connection's deflater, into buf; its length. */
static size_t block(struct srv *s, const char *const *nv, size_t nnv, uint8_t *buf, size_t len)
{
	nghttp2_nv v[8];
	ssize_t n;
	size_t i;

	assert_true(nnv <= 8);
	for (i = 0; i < nnv; i++)
		v[i] = (nghttp2_nv){(uint8_t *)nv[2 * i], (uint8_t *)nv[2 * i + 1],
				    strlen(nv[2 * i]), strlen(nv[2 * i + 1]), NGHTTP2_NV_FLAG_NONE};
	n = nghttp2_hd_deflate_hd(s->def, buf, len, v, nnv);
	assert_true(n > 0);
	return (size_t)n;
}

/* A unary gRPC call's response on stream sid: headers, (DATA is not a record), trailers. */
static void grpc_call(struct srv *s, uint32_t sid, const char *status)
{
	const char *hdrs[] = {":status", "200", "content-type", "application/grpc"};
	const char *trl[] = {"grpc-status", status, "grpc-message", ""};
	uint8_t b[256];
	size_t n;

	n = block(s, hdrs, 2, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS, sid, b, n, 0);
	n = block(s, trl, 2, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS | END_STREAM, sid, b, n, 0);
}

static const struct obs_h2_status_counts *counts(struct obs_h2_dec *d, uint32_t slot)
{
	return obs_h2_dec_counts(d, slot);
}

/* c's calls without a grpc-status, stream ends and header blocks. */
static void assert_ends(const struct obs_h2_status_counts *c, uint64_t none, uint64_t ends,
			uint64_t blocks)
{
	assert_int_equal(c->grpc_none, none);
	assert_int_equal(c->ends, ends);
	assert_int_equal(c->blocks, blocks);
}

/* 1,000 calls, every 10th RESOURCE_EXHAUSTED: each counted by its code. */
static void test_grpc_calls(void **state)
{
	struct srv *s = conn(state, 0xffff8880aa000000ULL, 2);
	const struct obs_h2_status_counts *c;
	uint32_t i;

	for (i = 0; i < 1000; i++)
		grpc_call(s, 1 + 2 * i, i % 10 == 9 ? "8" : "0");
	c = counts(s->d, 2);
	assert_int_equal(c->grpc[0], 900);
	assert_int_equal(c->grpc[8], 100);
	assert_ends(c, 0, 1000, 2000);
	assert_int_equal(c->status[200 - OBS_H2_STATUS_LO], 1000);
	assert_int_equal(c->undecoded, 0);
	assert_int_equal(counts(s->d, 0)->blocks, 0);
	assert_int_equal(obs_h2_dec_live(s->d), 1);
}

/* A Trailers-Only response (an error before any message): one HEADERS with END_STREAM. And a
 * trailer with no grpc-status on a gRPC connection, and one that is not a number. */
static void test_trailers_only(void **state)
{
	struct srv *s = conn(state, 0x1000, 0);
	const char *only[] = {":status", "200", "content-type", "application/grpc+proto",
			      "grpc-status", "12", "grpc-message", "unknown method"};
	const char *none[] = {"grpc-message", "no status"};
	const char *bad[] = {"grpc-status", "x1"};
	const struct obs_h2_status_counts *c;
	uint8_t b[256];
	size_t n;

	n = block(s, only, 4, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS | END_STREAM, 1, b, n, 0);
	grpc_call(s, 3, "0");
	n = block(s, none, 1, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS | END_STREAM, 5, b, n, 0);
	n = block(s, bad, 1, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS | END_STREAM, 7, b, n, 0);
	c = counts(s->d, 0);
	assert_int_equal(c->grpc[12], 1);
	assert_int_equal(c->grpc[0], 1);
	assert_int_equal(c->grpc_none, 1);
	assert_int_equal(c->grpc[LL_GRPC_OTHER], 1);
	assert_int_equal(c->ends, 4);
}

/* A block in a HEADERS and two CONTINUATIONs, padded and with a priority, its frames cut into
 * records of 7 bytes (a payload cut by the end of a write): decoded as one. */
static void test_cut_block(void **state)
{
	struct srv *s = conn(state, 0x2000, 1);
	const char *hdrs[] = {":status", "404", "content-type", "application/grpc",
			      "x-long-header-one", "0123456789abcdef0123456789abcdef",
			      "x-long-header-two", "fedcba9876543210fedcba9876543210",
			      "grpc-status", "5"};
	const struct obs_h2_status_counts *c;
	uint8_t b[256], f[300];
	size_t n, a;

	n = block(s, hdrs, 5, b, sizeof(b));
	a = n / 3;
	/* HEADERS: pad length 3, a priority (5 bytes), the first third, 3 bytes of padding */
	f[0] = 3;
	memset(f + 1, 0, 5);
	memcpy(f + 6, b, a);
	memset(f + 6 + a, 0, 3);
	frame(s, LL_H2_HEADERS, END_STREAM | PADDED | PRIORITY, 9, f, 6 + a + 3, 7);
	frame(s, LL_H2_CONTINUATION, 0, 9, b + a, a, 7);
	frame(s, LL_H2_CONTINUATION, END_HEADERS, 9, b + 2 * a, n - 2 * a, 7);
	grpc_call(s, 11, "0"); /* the table after the cut block is still right */
	c = counts(s->d, 1);
	assert_int_equal(c->grpc[5], 1);
	assert_int_equal(c->grpc[0], 1);
	assert_int_equal(c->status[404 - OBS_H2_STATUS_LO], 1);
	assert_int_equal(c->blocks, 3);
	assert_int_equal(c->undecoded, 0);
}

/* A whole frame's record lost (the kernel stops a connection's records when the ring has no
 * room, but were one lost and more come): after it, each block is read alone, never wrongly:
 * a response's :status 200 (the static table's) is read, the content-type after it refers to
 * the table of before (cut: read in part); the trailers' grpc-status refers to it at once (not
 * read: no grpc-status counted, the ends not read). */
static void test_gap(void **state)
{
	struct srv *s = conn(state, 0x3000, 0);
	const struct obs_h2_status_counts *c;
	uint32_t i;

	for (i = 0; i < 10; i++)
		grpc_call(s, 1 + 2 * i, "0");
	s->drop_next = 1;
	/* the lost record was a response's headers, whose table entries the trailers' indexes
	 * would have needed */
	for (i = 10; i < 20; i++)
		grpc_call(s, 1 + 2 * i, i % 2 ? "14" : "0");
	c = counts(s->d, 0);
	assert_int_equal(c->grpc[0], 10);
	assert_int_equal(c->grpc[14], 0);
	assert_ends(c, 0, 10, 20);
	/* call 10's trailers (the record after the lost one), and calls 11-19's trailers */
	assert_int_equal(c->undecoded, 10);
	/* calls 11-19's headers: :status 200 read, cut at content-type */
	assert_int_equal(c->partial, 9);
	assert_int_equal(c->status[200 - OBS_H2_STATUS_LO], 19);
}

/* A payload's bytes out of place within a frame (its first piece missing): the same. */
static void test_piece_missing(void **state)
{
	struct srv *s = conn(state, 0x3100, 0);
	const char *trl[] = {"grpc-status", "0", "grpc-message", "a message long enough to cut"};
	uint8_t b[256];
	size_t n;

	grpc_call(s, 1, "0");
	n = block(s, trl, 2, b, sizeof(b));
	s->drop_next = 1;
	frame(s, LL_H2_HEADERS, END_HEADERS | END_STREAM, 3, b, n, 8);
	grpc_call(s, 5, "0");
	assert_int_equal(counts(s->d, 0)->grpc[0], 1);
	/* the cut trailers, and call 5's (its grpc-status an index into the table of before);
	 * call 5's headers read in part, their :status */
	assert_int_equal(counts(s->d, 0)->undecoded, 2);
	assert_int_equal(counts(s->d, 0)->partial, 1);
	assert_int_equal(counts(s->d, 0)->status[200 - OBS_H2_STATUS_LO], 2);
}

/* A connection whose first records were not seen (its decoder forgotten for room, say): each
 * block read alone from the next one that begins. This server's first blocks are literals
 * (its table was empty), so they read whole; a record in the middle of a frame first is passed
 * over. */
static void test_not_first(void **state)
{
	struct srv *s = conn(state, 0x4000, 0);
	const char *trl[] = {"grpc-status", "0", "grpc-message", "a message long enough to cut"};
	struct srv t;
	uint8_t b[256];
	size_t n;

	s->seq = 5;
	grpc_call(s, 1, "0");
	assert_int_equal(counts(s->d, 0)->blocks, 2);
	assert_int_equal(counts(s->d, 0)->grpc[0], 1);
	assert_int_equal(counts(s->d, 0)->undecoded, 0);
	assert_int_equal(obs_h2_dec_live(s->d), 1);
	srv_init(&t, s->d, 0x4100, 1);
	t.seq = 9;
	n = block(&t, trl, 2, b, sizeof(b));
	t.drop_next = 1;
	frame(&t, LL_H2_HEADERS, END_HEADERS | END_STREAM, 1, b, n, 8);
	assert_int_equal(counts(s->d, 1)->blocks, 0);
	assert_int_equal(obs_h2_dec_live(s->d), 1);
	srv_done(&t);
}

/*
 * The kernel's records stopped (the ring full, a fragment too big, a write gap: nothing goes out
 * and nothing is numbered) and go on at the next block, its first record marked LL_H2_HB_FRESH:
 * nginx's blocks after it read alone. :status 200 and 404 are the static table's (read, cut at
 * the server header, an index into the table of before); a 503 sent before the stop is an index
 * too (not read); one never sent before is a literal (read); a block open when the records
 * stopped is not read; no block is read wrong.
 */
static void test_fresh_after_stop(void **state)
{
	struct srv *s = conn(state, 0x8000, 3);
	const char *ok[] = {":status", "200", "server", "nginx/1.22.1"};
	const char *nf[] = {":status", "404", "server", "nginx/1.22.1"};
	const char *busy[] = {":status", "503", "server", "nginx/1.22.1"};
	const char *teapot[] = {":status", "418"};
	const struct obs_h2_status_counts *c;
	uint8_t b[256];
	size_t n;
	uint32_t i;

	for (i = 0; i < 10; i++) {
		n = block(s, i == 4 ? busy : ok, 2, b, sizeof(b));
		frame(s, LL_H2_HEADERS, END_HEADERS, 1 + 2 * i, b, n, 0);
	}
	/* a block begun (its HEADERS seen), its CONTINUATION not: the records stop */
	n = block(s, ok, 2, b, sizeof(b));
	frame(s, LL_H2_HEADERS, 0, 21, b, n / 2, 0);
	s->stopped = 1;
	frame(s, LL_H2_CONTINUATION, END_HEADERS, 21, b + n / 2, n - n / 2, 0);
	for (i = 0; i < 5; i++) { /* unseen blocks change the server's table */
		n = block(s, i % 2 ? nf : ok, 2, b, sizeof(b));
		frame(s, LL_H2_HEADERS, END_HEADERS, 23 + 2 * i, b, n, 0);
	}
	s->stopped = 0;
	s->fresh_next = 1;
	n = block(s, ok, 2, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS, 41, b, n, 0);
	n = block(s, nf, 2, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS, 43, b, n, 7); /* in records of 7 bytes */
	n = block(s, busy, 2, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS, 45, b, n, 0);
	n = block(s, teapot, 1, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS, 47, b, n, 0);
	n = block(s, ok, 2, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS, 49, b, n, 0);
	c = counts(s->d, 3);
	assert_int_equal(c->status[200 - OBS_H2_STATUS_LO], 9 + 2);
	assert_int_equal(c->status[404 - OBS_H2_STATUS_LO], 1);
	assert_int_equal(c->status[503 - OBS_H2_STATUS_LO], 1); /* before the stop only */
	assert_int_equal(c->status[418 - OBS_H2_STATUS_LO], 1);
	assert_int_equal(c->status_other, 0);
	assert_int_equal(c->blocks, 10 + 1); /* 418's is literals whole */
	assert_int_equal(c->partial, 3);
	assert_int_equal(c->undecoded, 1 + 1); /* the block the stop cut; 503's */
}

/* Two connections interleaved, each with its own table; a close frees its decoder. */
static void test_two_conns_close(void **state)
{
	struct srv *a = conn(state, 0x5000, 0);
	struct obs_h2_dec *d = decoder(state);
	uint8_t fh[LL_H2_HDR] = {0};
	struct srv b;
	uint32_t i;

	srv_init(&b, d, 0x6000, 0);
	for (i = 0; i < 50; i++) {
		grpc_call(a, 1 + 2 * i, "0");
		grpc_call(&b, 1 + 2 * i, "4");
	}
	assert_int_equal(counts(d, 0)->grpc[0], 50);
	assert_int_equal(counts(d, 0)->grpc[4], 50);
	assert_int_equal(obs_h2_dec_live(d), 2);
	record(a, fh, 0, NULL, 0, LL_H2_HB_CLOSE);
	assert_int_equal(obs_h2_dec_live(d), 1);
	grpc_call(&b, 101, "4");
	assert_int_equal(counts(d, 0)->grpc[4], 51);
	srv_done(&b);
}

/* HTTP/2 responses that are not gRPC (nginx: HEADERS, then DATA with END_STREAM), a 1xx before
 * a response, a PUSH_PROMISE (a request's headers in the server's table), an empty
 * CONTINUATION: statuses counted, no gRPC status claimed. */
static void test_plain_h2(void **state)
{
	struct srv *s = conn(state, 0x7000, 0);
	const char *ok[] = {":status", "200", "server", "nginx/1.22.1", "content-type", "text/html"};
	const char *nf[] = {":status", "404", "server", "nginx/1.22.1"};
	const char *cont[] = {":status", "100"};
	const char *push[] = {":method", "GET", ":path", "/style.css"};
	const struct obs_h2_status_counts *c;
	uint8_t b[256], f[260];
	size_t n;
	uint32_t i;

	for (i = 0; i < 30; i++) {
		n = block(s, i % 3 ? ok : nf, i % 3 ? 3 : 2, b, sizeof(b));
		frame(s, LL_H2_HEADERS, END_HEADERS, 1 + 2 * i, b, n, 0);
	}
	n = block(s, cont, 1, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS, 61, b, n, 0);
	memset(f, 0, 4);
	f[3] = 2; /* promised stream 2 */
	n = block(s, push, 2, f + 4, sizeof(f) - 4);
	frame(s, LL_H2_PUSH_PROMISE, END_HEADERS, 61, f, n + 4, 0);
	n = block(s, ok, 3, b, sizeof(b));
	frame(s, LL_H2_HEADERS, 0, 61, b, n, 0);
	frame(s, LL_H2_CONTINUATION, END_HEADERS, 61, b, 0, 0);
	c = counts(s->d, 0);
	assert_int_equal(c->status[200 - OBS_H2_STATUS_LO], 21);
	assert_int_equal(c->status[404 - OBS_H2_STATUS_LO], 10);
	assert_int_equal(c->status[100 - OBS_H2_STATUS_LO], 1);
	assert_ends(c, 0, 0, 33);
	assert_int_equal(c->undecoded, 0);
}

/* More connections than decoders: the longest idle ones go, counted; records that are not
 * records are dropped, counted. */
static void test_evict_and_bad(void **state)
{
	uint8_t junk[sizeof(struct rt_h2_hb)] = {0};
	struct rt_h2_hb *h = (struct rt_h2_hb *)junk;
	struct obs_h2_dec *d = decoder(state);
	uint32_t i;

	for (i = 0; i < OBS_H2_DECODERS + 3; i++) {
		struct srv *s = conn(state, 0x100000 + 64ULL * i, 1);

		grpc_call(s, 1, "0");
		srv_done(s);
	}
	assert_int_equal(obs_h2_dec_live(d), OBS_H2_DECODERS);
	assert_int_equal(counts(d, 1)->evicted, 3);
	assert_int_equal(counts(d, 1)->grpc[0], OBS_H2_DECODERS + 3);
	obs_h2_dec_feed(d, junk, sizeof(junk) - 1);
	h->slot = 7;
	obs_h2_dec_feed(d, junk, sizeof(junk));
	h->slot = 0;
	h->n = 10;
	obs_h2_dec_feed(d, junk, sizeof(junk));
	assert_int_equal(obs_h2_dec_bad(d), 3);
}

/* nginx 1.22's response block for a 200 (captured on loopback): its own literals are added to
 * the table (0x76 server, 0x61 date, ...), never read from it */
static const uint8_t nginx_200[] = {
	0x88, 0x76, 0x89, 0xaa, 0x63, 0x55, 0xe5, 0x80, 0xae, 0x21, 0x2e, 0x1f, 0x61, 0x96, 0xdc,
	0x34, 0xfd, 0x28, 0x27, 0x94, 0xd2, 0x7e, 0xea, 0x08, 0x02, 0x71, 0x40, 0xbd, 0x71, 0x97,
	0xee, 0x05, 0xb5, 0x31, 0x68, 0xdf, 0x5f, 0x87, 0x49, 0x7c, 0xa5, 0x8a, 0xe8, 0x19, 0xaa,
	0x5c, 0x01, 0x33};

/* References to the dynamic table, read from the representations alone. */
static void test_hpack_refers(void **state)
{
	const char *hdrs[] = {":status", "200", "content-type", "application/grpc"};
	struct srv *s = conn(state, 0x9000, 0);
	const uint8_t lit_name[] = {0x00, 0x03, 'a', 'b', 'c', 0x01, 'x'};	  /* new name */
	const uint8_t dyn_name[] = {0x0f, 0x2f, 0x01, 'x'};	  /* name index 62 (4-bit prefix) */
	const uint8_t size_upd[] = {0x3f, 0xe1, 0x1f, 0x88}; /* size 4,096, then 200 */
	const uint8_t idx0[] = {0x80};
	const uint8_t cut_str[] = {0x88, 0x0f, 0x10, 0x05, 'a'};
	const uint8_t long_int[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	uint8_t b[256];
	size_t n;

	assert_int_equal(obs_hpack_refers(nginx_200, sizeof(nginx_200)), 0);
	assert_int_equal(obs_hpack_refers(lit_name, sizeof(lit_name)), 0);
	assert_int_equal(obs_hpack_refers(dyn_name, sizeof(dyn_name)), 1);
	assert_int_equal(obs_hpack_refers(size_upd, sizeof(size_upd)), 0);
	assert_int_equal(obs_hpack_refers(idx0, sizeof(idx0)), -1);
	assert_int_equal(obs_hpack_refers(cut_str, sizeof(cut_str)), -1);
	assert_int_equal(obs_hpack_refers(long_int, sizeof(long_int)), -1);
	assert_int_equal(obs_hpack_refers(nginx_200, sizeof(nginx_200) - 1), -1);
	/* libnghttp2's deflater: the first block adds content-type, the second refers to it */
	n = block(s, hdrs, 2, b, sizeof(b));
	assert_int_equal(obs_hpack_refers(b, n), 0);
	n = block(s, hdrs, 2, b, sizeof(b));
	assert_int_equal(obs_hpack_refers(b, n), 1);
}

/* A slot's blocks go to the kernel after LL_H2_HB_QUIET_AFTER whole blocks that refer to no
 * table, and never after one that does; a deflater that uses its table never gets there. */
static void test_quiet(void **state)
{
	const char *hdrs[] = {":status", "200", "content-type", "text/html"};
	struct obs_h2_dec *d = decoder(state);
	struct srv *s = conn(state, 0xa000, 1);
	enum obs_h2_quiet q = OBS_H2_LEARN;
	uint8_t b[256];
	uint32_t i;
	size_t n;

	for (i = 0; i < LL_H2_HB_QUIET_AFTER; i++) {
		assert_int_equal(q, OBS_H2_LEARN);
		frame(s, LL_H2_HEADERS, END_HEADERS, 1 + 2 * i, nginx_200, sizeof(nginx_200), 0);
		q = obs_h2_quiet_next(q, counts(d, 1));
	}
	assert_int_equal(q, OBS_H2_QUIET);
	assert_int_equal(counts(d, 1)->plain, LL_H2_HB_QUIET_AFTER);
	assert_int_equal(counts(d, 1)->status[200 - OBS_H2_STATUS_LO], LL_H2_HB_QUIET_AFTER);
	/* the kernel reads the next ones; the next sent is fresh, and refers: never again */
	s->fresh_next = 1;
	n = block(s, hdrs, 2, b, sizeof(b));
	n = block(s, hdrs, 2, b, sizeof(b));
	frame(s, LL_H2_HEADERS, END_HEADERS, 1001, b, n, 0);
	assert_int_equal(counts(d, 1)->partial, 1);
	assert_int_equal(counts(d, 1)->status[200 - OBS_H2_STATUS_LO], LL_H2_HB_QUIET_AFTER + 1);
	q = obs_h2_quiet_next(q, counts(d, 1));
	assert_int_equal(q, OBS_H2_NEVER);
	assert_int_equal(obs_h2_quiet_next(q, &(struct obs_h2_status_counts){.plain = 1000}),
			 OBS_H2_NEVER);
	/* gRPC by libnghttp2's deflater on another slot: refers from its second block on */
	srv_done(s);
	s = conn(state, 0xb000, 2);
	for (i = 0; i < 10; i++)
		grpc_call(s, 1 + 2 * i, "0");
	assert_true(counts(d, 2)->refer > 0);
	assert_int_equal(obs_h2_quiet_next(OBS_H2_LEARN, counts(d, 2)), OBS_H2_NEVER);
}

LL_TEST_MAIN_EACH(fixture_new, fixture_free, test_grpc_calls, test_trailers_only, test_cut_block,
		  test_gap, test_piece_missing, test_not_first, test_fresh_after_stop,
		  test_two_conns_close, test_plain_h2, test_evict_and_bad, test_hpack_refers,
		  test_quiet)
