// SPDX-License-Identifier: MIT
/*
 * TLS handshakes told apart from requests (include/loadlens/tls.h: the code the kernel runs on
 * the record headers a server reads): TLS 1.2 full and resumed, TLS 1.3 with and without a
 * request sent with the client's Finished, alerts, failed handshakes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/tls.h"

struct run {
	__u8 ph;
	int hs_over, v13, resumed, requests;
};

/*
 * A connection as the server sees it, after its ClientHello: 'W' the server writes, '|' a new
 * read, and the records of each read: 'H' handshake, 'C' ChangeCipherSpec, 'A' application
 * data, 'L' alert. A read stops at the record where a request begins, as the kernel's walk does.
 */
static struct run play(const char *script)
{
	struct run r = {.ph = RT_TLS_HELLO};
	bool stop = false;
	__u32 ev;
	__u8 t;

	for (; *script; script++) {
		if (*script == 'W') {
			r.ph = ll_tls_wrote(r.ph);
			continue;
		}
		if (*script == '|') {
			stop = false;
			continue;
		}
		if (stop)
			continue;
		t = *script == 'H' ? LL_TLS_HANDSHAKE
		    : *script == 'C' ? LL_TLS_CCS
		    : *script == 'A' ? LL_TLS_APP
				     : LL_TLS_ALERT;
		ev = 0;
		r.ph = ll_tls_step(r.ph, t, &ev);
		r.hs_over += !!(ev & LL_TLS_EV_HS_OVER);
		r.v13 += !!(ev & LL_TLS_EV_V13);
		r.resumed += !!(ev & LL_TLS_EV_RESUMED);
		if (ev & LL_TLS_EV_REQUEST) {
			r.requests++;
			stop = true;
		}
	}
	return r;
}

/* What a script must give; ANY where a figure is not checked. */
#define ANY (-1)
struct test_tls_want {
	const char *script;
	int hs_over, v13, resumed, requests, ph;
};

static void figure(const char *script, const char *name, int got, int want)
{
	if (want != ANY && got != want)
		fail_msg("%s: %s %d, expected %d", script, name, got, want);
}

static void expect(const struct test_tls_want *w, size_t n)
{
	for (; n--; w++) {
		struct run r = play(w->script);

		figure(w->script, "hs_over", r.hs_over, w->hs_over);
		figure(w->script, "v13", r.v13, w->v13);
		figure(w->script, "resumed", r.resumed, w->resumed);
		figure(w->script, "requests", r.requests, w->requests);
		figure(w->script, "phase", r.ph, w->ph);
	}
}
#define X_EXPECT(...)                                                            \
	do {                                                                     \
		static const struct test_tls_want w[] = {__VA_ARGS__};                 \
		expect(w, sizeof(w) / sizeof(w[0]));                          \
	} while (0)

/* TLS 1.2, full: key exchange, ChangeCipherSpec and Finished; the server's Finished; two
 * requests on the connection; the client's close_notify. */
static void test_tls12_full(void **state)
{
	(void)state;
	X_EXPECT({"W|HCH|W|A|W|A|W|L", 1, 0, 0, 2, RT_TLS_CLOSING},
		 /* the client leaves after the server's Finished, with no request: a handshake all
		  * the same */
		 {"W|HCH|W|L", 1, ANY, ANY, 0, ANY});
}

/* TLS 1.2, resumed: the server's first flight holds its Finished; the client's ChangeCipherSpec
 * and Finished, with the request in the same read, or alone. */
static void test_tls12_resumed(void **state)
{
	(void)state;
	X_EXPECT({"W|CHA|W", 1, ANY, 1, 1, RT_TLS_DONE}, {"W|CH|A|W|A|W", 1, ANY, 1, 2, ANY});
}

/* TLS 1.3: the client's Finished is the first application-data record; with the request in the
 * same read, the server's tickets come after it (LATE); alone, the tickets are written first. */
static void test_tls13(void **state)
{
	(void)state;
	X_EXPECT({"W|CAA|W", 1, 1, ANY, 1, RT_TLS_LATE},
		 {"W|CA|W|A|W|A|W", 1, 1, ANY, 2, RT_TLS_DONE},
		 /* no middlebox ChangeCipherSpec */
		 {"W|A|W|A|W", 1, ANY, ANY, 1, ANY},
		 /* the handshake's records in no request count, however they are read */
		 {"W|C|A|A", 1, ANY, ANY, 1, ANY});
}

/* A handshake the client abandons (a certificate it does not trust) is no handshake timed. */
static void test_failed(void **state)
{
	(void)state;
	X_EXPECT({"W|L", 0, ANY, ANY, 0, RT_TLS_CLOSING},
		 /* nothing after an alert */
		 {"W|L|A|W", ANY, ANY, ANY, 0, ANY});
}

static void test_alert_and_hello(void **state)
{
	static const __u8 ch10[] = {22, 3, 1}, ch12[] = {22, 3, 3}, bad[] = {22, 3, 5},
			  app[] = {23, 3, 3}, get[] = {'G', 'E', 'T'};

	(void)state;
	assert_true(ll_tls_alert(LL_TLS_ALERT, 26));
	assert_true(ll_tls_alert(LL_TLS_APP, 19)); /* TLS 1.3 close_notify, AES-GCM */
	assert_true(ll_tls_alert(LL_TLS_APP, 11)); /* AES-CCM-8 */
	assert_false(ll_tls_alert(LL_TLS_APP, 20)); /* 3 bytes of data: a request */
	assert_false(ll_tls_alert(LL_TLS_HANDSHAKE, 19));
	assert_true(ll_tls_hello(ch10));
	assert_true(ll_tls_hello(ch12));
	assert_false(ll_tls_hello(bad));
	assert_false(ll_tls_hello(app));
	assert_false(ll_tls_hello(get));
}

LL_TEST_MAIN(test_tls12_full, test_tls12_resumed, test_tls13, test_failed, test_alert_and_hello)
