// SPDX-License-Identifier: MIT
/*
 * --proto ldap, what the driver reads back: the reply framing on slapd's captured replies split
 * at every byte, a Done that ends a response, the result-code table, and a bounded fuzz of the
 * framing (test_driver_ldap.c: what it sends).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "ll_test.h"
#include "apps.h"
#include "ldap/ldap_config.h"
#include "ldap/ldap_filter.h"
#include "ldap/ldap_request.h"
#include "config/parse.h"
#include "config/template.h"
#include "framing/frame.h"
#include "ldap/ldap_frame.h"
#include "framing/response.h"
#include "ldap/ldap_codes.h"

/* slapd's replies, captured: ldapsearch -x '(|(uid=user1)(uid=user2)(uid=user3))' cn */
static const char bind_ok[] = "300c02010161070a010004000400";
static const char three[] =
	"303e020102643904257569643d75736572312c6f753d70656f706c652c64633d6578616d706c652c64633d63"
	"6f6d3010300e0402636e31080406557365722031303e020102643904257569643d75736572322c6f753d70656f"
	"706c652c64633d6578616d706c652c64633d636f6d3010300e0402636e31080406557365722032303e02010264"
	"3904257569643d75736572332c6f753d70656f706c652c64633d6578616d706c652c64633d636f6d3010300e04"
	"02636e31080406557365722033300c02010265070a010004000400";
/* -z 2 over 10,000 matches: two entries, then sizeLimitExceeded */
static const char size_limit[] =
	"303e020102643904257569643d75736572302c6f753d70656f706c652c64633d6578616d706c652c64633d63"
	"6f6d3010300e0402636e31080406557365722030303e020102643904257569643d75736572312c6f753d70656f"
	"706c652c64633d6578616d706c652c64633d636f6d3010300e0402636e31080406557365722031300c02010265"
	"070a010404000400";
/* a base that does not exist: noSuchObject with the matched DN */
static const char no_such[] = "301d02010265180a0120041164633d6578616d706c652c64633d636f6d0400";
/* -w wrong: invalidCredentials */
static const char bad_pw[] = "300c02010161070a013104000400";
/* a Notice of Disconnection (messageID 0, ExtendedResponse, unavailable) */
static const char notice[] =
	"302402010078 1f0a0134 0400 0400 8a16312e332e362e312e342e312e313436362e3230303336";
/* a reference, then success */
static const char reference[] = "300f02010273 0a04086c6461703a2f2f78300c02010265070a010004000400";
/* a hostile server's: an entry whose objectName claims 200 bytes inside a 10-byte entry, then
 * success */
static const char name_past_entry[] =
	"300f020102 640a 0481c841424344454647 300c02010265070a010004000400";
/* success with a control behind it (the paged-results OID, no value) */
static const char done_control[] = "302802010265070a010004000400"
				   "a01a30180416312e322e3834302e3131333535362e312e342e333139";

struct want {
	int res;	  /* 1 complete, or the error */
	int32_t code;
	uint32_t entries, refs;
	bool notice;
};

/* the reply in two pieces, split at every byte; then one byte at a time */
static void frame_all_splits(const char *hex, int32_t msgid, bool bind, struct want w)
{
	struct drv_frame_rule r;
	struct drv_config cfg;
	struct drv_frame f;
	uint8_t b[1024];
	size_t n = ll_unhex(hex, b), cut, i;
	int err;

	drv_config_init(&cfg);
	cfg.resp_rule = DRV_RESP_LDAP;
	drv_frame_rule_init(&r, &cfg);
	memset(&f, 0, sizeof(f));
	for (cut = 0; cut <= n + 1; cut++) {
		drv_frame_reset(&r, &f);
		drv_ldap_reset(drv_ldap_of(&f), msgid, bind);
		if (cut <= n) {
			err = drv_frame_feed(&r, &f, (const char *)b, cut);
			if (!err && cut < n && !f.done)
				err = drv_frame_feed(&r, &f, (const char *)b + cut, n - cut);
		} else {
			for (i = 0, err = 0; i < n && !err; i++)
				err = drv_frame_feed(&r, &f, (const char *)b + i, 1);
		}
		if (w.res != 1) {
			if (err != w.res)
				fail_msg("%.16s... split at %zu: error %d, expected %d", hex, cut, err,
					 w.res);
			continue;
		}
		if (err || !f.done)
			fail_msg("%.16s... split at %zu: error %d, done %d", hex, cut, err, f.done);
		assert_int_equal(drv_ldap_of(&f)->code, w.code);
		assert_int_equal(drv_ldap_of(&f)->entries, w.entries);
		assert_int_equal(drv_ldap_of(&f)->refs, w.refs);
		assert_int_equal(drv_ldap_of(&f)->notice, w.notice);
		assert_int_equal(drv_frame_verdict_err(&f), w.code ? DRV_E_LDAP_RESULT : 0);
		assert_int_equal(f.keep_alive, !w.notice);
	}
	drv_frame_free(&r, &f);
	assert_null(drv_ldap_of(&f)->ber);
}

static void test_framing(void **state)
{
	(void)state;
	frame_all_splits(bind_ok, 1, true, (struct want){.res = 1, .code = 0});
	frame_all_splits(three, 2, false, (struct want){.res = 1, .code = 0, .entries = 3});
	frame_all_splits(size_limit, 2, false, (struct want){.res = 1, .code = 4, .entries = 2});
	frame_all_splits(no_such, 2, false, (struct want){.res = 1, .code = 32});
	frame_all_splits(bad_pw, 1, true, (struct want){.res = 1, .code = 49});
	frame_all_splits(notice, 2, false, (struct want){.res = 1, .code = 52, .notice = true});
	frame_all_splits(reference, 2, false, (struct want){.res = 1, .code = 0, .refs = 1});
	/* inner lengths that do not hold: the entry is not counted, the search is malformed */
	frame_all_splits(name_past_entry, 2, false, (struct want){.res = DRV_E_LDAP_MALFORMED});
	/* the protocolOp longer than its message; a byte after it; an entry with no attributes */
	frame_all_splits("300c02010265080a010004000400", 2, false,
			 (struct want){.res = DRV_E_LDAP_MALFORMED});
	frame_all_splits("300d02010265070a01000400040000", 2, false,
			 (struct want){.res = DRV_E_LDAP_MALFORMED});
	frame_all_splits("300a020102640504034142 43" "300c02010265070a010004000400", 2, false,
			 (struct want){.res = DRV_E_LDAP_MALFORMED});
	/* controls after the operation: taken when they hold, not when they do not */
	frame_all_splits(done_control, 2, false, (struct want){.res = 1, .code = 0});
	frame_all_splits("301102010265070a010004000400a003300131", 2, false,
			 (struct want){.res = DRV_E_LDAP_MALFORMED});
	/* the reply to another messageID, a search's reply to a bind and back: malformed */
	frame_all_splits(three, 3, false, (struct want){.res = DRV_E_MALFORMED});
	frame_all_splits(bind_ok, 1, false, (struct want){.res = DRV_E_MALFORMED});
	frame_all_splits(no_such, 2, true, (struct want){.res = DRV_E_MALFORMED});
	/* not an LDAPMessage: another tag, a zero length, a length over 16 MiB, no messageID */
	frame_all_splits("310c02010161070a010004000400", 1, true,
			 (struct want){.res = DRV_E_MALFORMED});
	frame_all_splits("3000", 1, true, (struct want){.res = DRV_E_MALFORMED});
	frame_all_splits("3084010000010201", 1, true, (struct want){.res = DRV_E_MALFORMED});
	frame_all_splits("300c04010161070a010004000400", 1, true,
			 (struct want){.res = DRV_E_MALFORMED});
	/* an unknown operation (not the answer); a Done without its resultCode (its inside) */
	frame_all_splits("300c02010166070a010004000400", 1, true,
			 (struct want){.res = DRV_E_MALFORMED});
	frame_all_splits("300702010265020400", 2, false,
			 (struct want){.res = DRV_E_LDAP_MALFORMED});
}

/* bytes after the Done are the next response's: used stops at the Done */
static void test_stops_at_done(void **state)
{
	struct drv_frame_rule r;
	struct drv_config cfg;
	struct drv_frame f;
	uint8_t b[1024];
	size_t n = ll_unhex(three, b), used;

	(void)state;
	n += ll_unhex(bind_ok, b + n);
	drv_config_init(&cfg);
	cfg.resp_rule = DRV_RESP_LDAP;
	drv_frame_rule_init(&r, &cfg);
	memset(&f, 0, sizeof(f));
	drv_frame_reset(&r, &f);
	drv_ldap_reset(drv_ldap_of(&f), 2, false);
	assert_int_equal(drv_frame_feed_some(&r, &f, (const char *)b, n, &used), 0);
	assert_true(f.done);
	assert_int_equal(used, n - 14);
	/* and drv_frame_feed() takes them as a framing error */
	drv_frame_reset(&r, &f);
	drv_ldap_reset(drv_ldap_of(&f), 2, false);
	assert_int_equal(drv_frame_feed(&r, &f, (const char *)b, n), DRV_E_MALFORMED);
	/* a connection broken mid-message, then a new request: nothing of the old one left */
	drv_frame_reset(&r, &f);
	drv_ldap_reset(drv_ldap_of(&f), 2, false);
	assert_int_equal(drv_frame_feed(&r, &f, (const char *)b, 30), 0);
	drv_frame_reset(&r, &f);
	drv_ldap_reset(drv_ldap_of(&f), 1, true);
	assert_int_equal(drv_frame_feed(&r, &f, (const char *)b + n - 14, 14), 0);
	assert_true(f.done);
	drv_frame_free(&r, &f);
	drv_frame_free(&r, &f); /* twice: a no-op */
}

static void test_codes(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(drv_ldap_code_name(0, b, sizeof(b)), "success");
	assert_string_equal(drv_ldap_code_name(3, b, sizeof(b)), "timeLimitExceeded");
	assert_string_equal(drv_ldap_code_name(4, b, sizeof(b)), "sizeLimitExceeded");
	assert_string_equal(drv_ldap_code_name(32, b, sizeof(b)), "noSuchObject");
	assert_string_equal(drv_ldap_code_name(49, b, sizeof(b)), "invalidCredentials");
	assert_string_equal(drv_ldap_code_name(51, b, sizeof(b)), "busy");
	assert_string_equal(drv_ldap_code_name(52, b, sizeof(b)), "unavailable");
	assert_string_equal(drv_ldap_code_name(53, b, sizeof(b)), "unwillingToPerform");
	assert_string_equal(drv_ldap_code_name(80, b, sizeof(b)), "other");
	assert_string_equal(drv_ldap_code_name(9, b, sizeof(b)), "code9");
	assert_int_equal(drv_ldap_code_slot(4096), DRV_LDAP_CODES - 1);
	assert_int_equal(drv_ldap_code_slot(-1), DRV_LDAP_CODES - 1);
	assert_int_equal(drv_ldap_code_slot(126), 126);
	assert_string_equal(drv_ldap_code_name(drv_ldap_code_slot(16654), b, sizeof(b)),
			    "code127+");
	assert_null(drv_ldap_code_hint(0));
	assert_non_null(strstr(drv_ldap_code_hint(4), "counted apart"));
	assert_non_null(strstr(drv_ldap_code_hint(3), "counted apart"));
	assert_non_null(drv_ldap_code_hint(49));
	assert_non_null(drv_ldap_code_hint(51));
	assert_non_null(drv_ldap_code_hint(52));
	assert_non_null(drv_ldap_code_hint(53));
	assert_int_equal(drv_err_class(DRV_E_LDAP_RESULT), DRV_ERR_LDAP_RESULT);
	assert_int_equal(drv_err_class(DRV_E_LDAP_BIND), DRV_ERR_LDAP_BIND);
	assert_string_equal(drv_err_name(DRV_ERR_LDAP_RESULT), "ldap_result");
	assert_string_equal(drv_err_name(DRV_ERR_LDAP_BIND), "ldap_bind");
}

static uint64_t fuzz_rng = LL_TEST_SEED;

static uint64_t rnd(void)
{
	return ll_xorshift(&fuzz_rng);
}

/* Bounded fuzz (LL_FUZZ_SECONDS, default 2): slapd's replies whole, mutated, cut or random, fed in
 * random splits: every feed takes a byte or more and at most what it got, and ends complete,
 * malformed, or waiting; never a hang or a crash, and no leak (valgrind, sanitizers). */
static void test_fuzz(void **state)
{
	static const char *const corpus[] = {three, size_limit, no_such, notice, reference};
	const char *env = getenv("LL_FUZZ_SECONDS");
	double secs = env ? atof(env) : 2.0;
	uint64_t out[3] = {0};
	struct drv_ldap_state st = {0};
	enum drv_app_verdict v;
	struct timespec t0, t;
	uint8_t buf[2048];
	size_t n, i, c, u, m;
	int res;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int batch = 0; batch < 200; batch++) {
			n = ll_unhex(corpus[rnd() % 5], buf);
			n += ll_unhex(corpus[rnd() % 5], buf + n);
			switch (rnd() % 4) {
			case 0:
				n = rnd() % 64;
				for (i = 0; i < n; i++)
					buf[i] = (uint8_t)rnd();
				break;
			case 1:
				for (m = 1 + rnd() % 3; m--;)
					buf[rnd() % n] = (uint8_t)rnd();
				break;
			case 2:
				n = rnd() % n;
				break;
			default:
				break;
			}
			drv_ldap_reset(&st, 2, false);
			for (i = 0, res = 0; i < n;) {
				c = 1 + rnd() % (n - i);
				u = drv_ldap_feed(&st, buf + i, c, &res, &v);
				assert_true(u <= c);
				assert_true(res == 0 || res == 1 || res == DRV_E_MALFORMED ||
					    res == DRV_E_LDAP_MALFORMED);
				assert_true(u >= 1 || res);
				i += u;
				if (res == 1) {
					out[0]++;
					drv_ldap_reset(&st, 2, false);
				} else if (res) {
					out[1]++;
					break;
				} else {
					assert_int_equal(u, c);
				}
			}
			out[2] += !res;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	drv_ldap_state_free(&st);
	printf("fuzz: complete %llu, malformed %llu, waiting %llu\n", (unsigned long long)out[0],
	       (unsigned long long)out[1], (unsigned long long)out[2]);
	assert_true(out[0] > 0 && out[1] > 0 && out[2] > 0);
}

/* --proto ldap's tables, as main() registers them (apps.h) */
static int register_apps(void **state)
{
	(void)state;
	drv_apps_register();
	return 0;
}

LL_TEST_MAIN_GROUP(register_apps, NULL, test_framing, test_stops_at_done, test_codes, test_fuzz)
