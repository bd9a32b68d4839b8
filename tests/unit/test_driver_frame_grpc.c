// SPDX-License-Identifier: MIT
/*
 * A unary gRPC reply's checks (grpc/grpc_frame.c): each rule a hostile server can break, its
 * DATA split at every byte, the healthy replies ok; and each new error class with its name and
 * one-line hint.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_err_classes.h"
#include "base/errors.h"
#include "grpc/grpc_frame.h"
#include "loadlens/grpc_status.h"
#include "results/stats.h"

/* One reply as a server sends it. */
struct call {
	const char *ctype;  /* the response headers' content-type; NULL: none */
	const char *data;   /* the DATA, hex; NULL: none (a trailers-only reply) */
	const char *status; /* grpc-status of the block that ends the stream; NULL: none */
	bool on_data;	    /* the stream ends on its DATA: no trailers */
};

static void hdr(struct drv_grpc_reply *r, bool response, const char *name, const char *value)
{
	drv_grpc_reply_header(r, response, (const uint8_t *)name, strlen(name),
			      (const uint8_t *)value, strlen(value));
}

/* The reply fed with its DATA cut at cut (bytes in two pieces): its verdict and *status. */
static int run(const struct call *c, size_t cut, int *status)
{
	struct drv_grpc_reply r;
	uint8_t b[64];
	size_t n = c->data ? ll_unhex(c->data, b) : 0;

	drv_grpc_reply_init(&r);
	drv_grpc_reply_block(&r, true);
	if (c->ctype)
		hdr(&r, true, "content-type", c->ctype);
	if (!c->data && !c->on_data) { /* trailers-only: the status in the response headers */
		if (c->status)
			hdr(&r, true, "grpc-status", c->status);
		return drv_grpc_reply_end(&r, true, status);
	}
	if (cut > n)
		cut = n;
	drv_grpc_reply_data(&r, b, cut);
	drv_grpc_reply_data(&r, b + cut, n - cut);
	if (c->on_data)
		return drv_grpc_reply_end(&r, false, status);
	drv_grpc_reply_block(&r, false);
	hdr(&r, false, "content-type", "text/html"); /* in the trailers: not the reply's */
	if (c->status)
		hdr(&r, false, "grpc-status", c->status);
	return drv_grpc_reply_end(&r, true, status);
}

/* The same verdict at every cut of the DATA, and one byte at a time. */
static void expect(const struct call *c, int want, int want_status)
{
	struct drv_grpc_reply r;
	uint8_t b[64];
	size_t n = c->data ? ll_unhex(c->data, b) : 0, cut, i;
	int got, st;

	for (cut = 0; cut <= n; cut++) {
		got = run(c, cut, &st);
		if (got != want || st != want_status)
			fail_msg("data %s, cut at %zu: verdict %d status %d, expected %d %d",
				 c->data ? c->data : "-", cut, got, st, want, want_status);
	}
	if (!c->data || c->on_data || !c->status)
		return;
	drv_grpc_reply_init(&r);
	drv_grpc_reply_block(&r, true);
	if (c->ctype)
		hdr(&r, true, "content-type", c->ctype);
	for (i = 0; i < n; i++)
		drv_grpc_reply_data(&r, b + i, 1);
	drv_grpc_reply_block(&r, false);
	hdr(&r, false, "grpc-status", c->status);
	assert_int_equal(drv_grpc_reply_end(&r, true, &st), want);
}

#define G "application/grpc"
/* a reply with trailers (or trailers-only); one that ends on its DATA */
#define R(ctype, data, status) (&(struct call){ctype, data, status, false})
#define NT(ctype, data) (&(struct call){ctype, data, NULL, true})

static void test_healthy(void **state)
{
	(void)state;
	/* one message "abc", trailers OK */
	expect(R(G, "0000000003616263", "0"), 0, LL_GRPC_OK);
	/* one empty message (proto3's default value) */
	expect(R(G, "0000000000", "0"), 0, LL_GRPC_OK);
	/* content-types gRPC takes */
	expect(R("application/grpc+proto", "0000000000", "0"), 0, LL_GRPC_OK);
	expect(R("Application/GRPC;charset=utf-8", "0000000000", "0"), 0, 0);
	/* an error status: with no message (trailers-only), or with one */
	expect(R(G, NULL, "8"), DRV_E_GRPC, 8);
	expect(R(G, "", "14"), DRV_E_GRPC, 14);
	expect(R(G, "0000000003616263", "13"), DRV_E_GRPC, 13);
	/* a number gRPC does not define: a status all the same, counted "other" */
	expect(R(G, "0000000000", "17"), DRV_E_GRPC, LL_GRPC_OTHER);
}

static void test_framing(void **state)
{
	(void)state;
	/* a prefix of 100 with 3 bytes behind it */
	expect(R(G, "0000000064616263", "0"), DRV_E_GRPC_FRAMING, -1);
	/* a prefix of 1 with 6 bytes: the 5 after the message, a flag byte of 'b' */
	expect(R(G, "0000000001616263646566", "0"), DRV_E_GRPC_FRAMING, -1);
	/* a 2-byte prefix, and 4 of its 5 */
	expect(R(G, "0000", "0"), DRV_E_GRPC_FRAMING, -1);
	expect(R(G, "00000000", "0"), DRV_E_GRPC_FRAMING, -1);
	/* 16 MiB and 4 GiB - 1 declared, 3 bytes sent */
	expect(R(G, "0001000000616263", "0"), DRV_E_GRPC_FRAMING, -1);
	expect(R(G, "00ffffffff616263", "0"), DRV_E_GRPC_FRAMING, -1);
	/* a flag byte that is neither 0 nor 1 */
	expect(R(G, "0200000000", "0"), DRV_E_GRPC_FRAMING, -1);
	/* framing before the status: a cut message with an error status is still cut */
	expect(R(G, "0000000064", "8"), DRV_E_GRPC_FRAMING, -1);
}

static void test_compressed(void **state)
{
	(void)state;
	expect(R(G, "0100000003616263", "0"), DRV_E_GRPC_COMPRESSED, -1);
	/* the second message compressed */
	expect(R(G, "00000000000100000000", "0"), DRV_E_GRPC_COMPRESSED, -1);
}

static void test_messages(void **state)
{
	(void)state;
	/* two messages in a unary reply; a 1-byte prefix with 6 bytes whose tail is an empty one */
	expect(R(G, "0000000001610000000000", "0"), DRV_E_GRPC_MESSAGES, -1);
	expect(R(G, "00000000000000000000", "0"), DRV_E_GRPC_MESSAGES, -1);
	expect(R(G, "00000000000000000000", "8"), DRV_E_GRPC_MESSAGES, -1);
	/* none, with status OK: trailers-only, or an empty DATA */
	expect(R(G, NULL, "0"), DRV_E_GRPC_MESSAGES, -1);
	expect(R(G, "", "0"), DRV_E_GRPC_MESSAGES, -1);
	/* two messages and no trailers: the count is the first rule broken */
	expect(NT(G, "00000000000000000000"), DRV_E_GRPC_MESSAGES, -1);
}

static void test_content_type(void **state)
{
	struct drv_grpc_reply r;
	int st;

	(void)state;
	expect(R("text/html", "0000000000", "0"), DRV_E_GRPC_CONTENT_TYPE, -1);
	expect(R(NULL, "0000000000", "0"), DRV_E_GRPC_CONTENT_TYPE, -1);
	expect(R("application/grpcx", "0000000000", "0"), DRV_E_GRPC_CONTENT_TYPE, -1);
	expect(R("application/grp", NULL, "8"), DRV_E_GRPC_CONTENT_TYPE, -1);
	/* first of the rules: a web page's bytes are not judged as messages */
	expect(NT("text/html", "3c68746d6c3e"), DRV_E_GRPC_CONTENT_TYPE, -1);
	/* nginx's add_header beside its default type: two content-types, one answer is not */
	drv_grpc_reply_init(&r);
	drv_grpc_reply_block(&r, true);
	hdr(&r, true, "content-type", "text/plain");
	hdr(&r, true, "content-type", G);
	drv_grpc_reply_data(&r, (const uint8_t *)"\0\0\0\0\0", 5);
	drv_grpc_reply_block(&r, false);
	hdr(&r, false, "grpc-status", "0");
	assert_int_equal(drv_grpc_reply_end(&r, true, &st), DRV_E_GRPC_CONTENT_TYPE);
	/* after a 1xx (no content-type), the final response's counts */
	drv_grpc_reply_init(&r);
	drv_grpc_reply_block(&r, true);
	drv_grpc_reply_block(&r, true);
	hdr(&r, true, "content-type", G);
	drv_grpc_reply_data(&r, (const uint8_t *)"\0\0\0\0\0", 5);
	drv_grpc_reply_block(&r, false);
	hdr(&r, false, "grpc-status", "0");
	assert_int_equal(drv_grpc_reply_end(&r, true, &st), 0);
	assert_true(drv_grpc_content_type_ok((const uint8_t *)G "+json", 21));
	assert_false(drv_grpc_content_type_ok((const uint8_t *)G, 15));
	assert_false(drv_grpc_content_type_ok((const uint8_t *)"", 0));
}

static void test_trailers(void **state)
{
	struct drv_grpc_reply r;
	int st;

	(void)state;
	/* no grpc-status; one that is not a number */
	expect(R(G, "0000000000", NULL), DRV_E_GRPC_TRAILERS, -1);
	expect(R(G, "0000000000", "OK"), DRV_E_GRPC_TRAILERS, -1);
	expect(R(G, "0000000000", "-1"), DRV_E_GRPC_TRAILERS, -1);
	expect(R(G, "0000000000", ""), DRV_E_GRPC_TRAILERS, -1);
	expect(R(G, NULL, NULL), DRV_E_GRPC_TRAILERS, -1);
	/* the stream ended on its DATA: no trailers at all */
	expect(NT(G, "0000000000"), DRV_E_GRPC_TRAILERS, -1);
	/* grpc-status in the response headers, none in the trailers: the last block's counts */
	drv_grpc_reply_init(&r);
	drv_grpc_reply_block(&r, true);
	hdr(&r, true, "content-type", G);
	hdr(&r, true, "grpc-status", "0");
	drv_grpc_reply_data(&r, (const uint8_t *)"\0\0\0\0\0", 5);
	drv_grpc_reply_block(&r, false);
	assert_int_equal(drv_grpc_reply_end(&r, true, &st), DRV_E_GRPC_TRAILERS);
	assert_int_equal(st, -1);
	/* two grpc-status in the trailers */
	drv_grpc_reply_block(&r, false);
	hdr(&r, false, "grpc-status", "0");
	hdr(&r, false, "grpc-status", "0");
	assert_int_equal(drv_grpc_reply_end(&r, true, &st), DRV_E_GRPC_TRAILERS);
	drv_grpc_reply_block(&r, false);
	hdr(&r, false, "grpc-status", "0");
	assert_int_equal(drv_grpc_reply_end(&r, true, &st), 0);
	assert_int_equal(st, 0);
}

/* Random DATA (prefix-like bytes, mostly small) fed whole and in random pieces: the same verdict,
 * whatever the split. */
static void test_random_splits(void **state)
{
	uint64_t rng = LL_TEST_SEED;
	struct drv_grpc_reply a, b;
	uint8_t d[48];
	size_t n, i, k, c;
	int va, vb, sa, sb, round;

	(void)state;
	for (round = 0; round < 50000; round++) {
		n = ll_xorshift(&rng) % sizeof(d);
		for (i = 0; i < n; i++)
			d[i] = (uint8_t)(ll_xorshift(&rng) % 4 ? ll_xorshift(&rng) % 3
								: ll_xorshift(&rng));
		drv_grpc_reply_init(&a);
		drv_grpc_reply_init(&b);
		hdr(&a, true, "content-type", G);
		hdr(&b, true, "content-type", G);
		drv_grpc_reply_data(&a, d, n);
		for (i = 0; i < n; i += k) {
			c = n - i;
			k = 1 + ll_xorshift(&rng) % c;
			drv_grpc_reply_data(&b, d + i, k);
		}
		drv_grpc_reply_block(&a, false);
		drv_grpc_reply_block(&b, false);
		hdr(&a, false, "grpc-status", "0");
		hdr(&b, false, "grpc-status", "0");
		va = drv_grpc_reply_end(&a, true, &sa);
		vb = drv_grpc_reply_end(&b, true, &sb);
		assert_int_equal(va, vb);
		assert_int_equal(sa, sb);
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

/* Each class: its own name, text and one-line hint, counted where it belongs. */
static void test_classes(void **state)
{
	static const struct drv_err_case t[] = {
		{DRV_E_GRPC_FRAMING, DRV_ERR_GRPC_FRAMING, "grpc_framing", "prefix"},
		{DRV_E_GRPC_COMPRESSED, DRV_ERR_GRPC_COMPRESSED, "grpc_compressed", "compress"},
		{DRV_E_GRPC_MESSAGES, DRV_ERR_GRPC_MESSAGES, "grpc_messages", "streaming"},
		{DRV_E_GRPC_CONTENT_TYPE, DRV_ERR_GRPC_CONTENT_TYPE, "grpc_content_type",
		 "127.0.0.1:50051"},
		{DRV_E_GRPC_TRAILERS, DRV_ERR_GRPC_TRAILERS, "grpc_trailers", "trailers"},
		{DRV_E_LDAP_MALFORMED, DRV_ERR_LDAP_MALFORMED, "ldap_malformed", "BER"},
	};
	struct drv_stats s;

	(void)state;
	assert_int_equal(drv_stats_init(&s), 0);
	check_err_classes(&s, t, sizeof(t) / sizeof(t[0]), "127.0.0.1:50051");
	drv_stats_fini(&s);
}

LL_TEST_MAIN(test_healthy, test_framing, test_compressed, test_messages, test_content_type,
	     test_trailers, test_random_splits, test_classes)
