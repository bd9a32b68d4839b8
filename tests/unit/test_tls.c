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

struct x__run {
	__u8 ph;
	int hs_over, v13, resumed, requests;
};

/*
 * A connection as the server sees it, after its ClientHello: 'W' the server writes, '|' a new
 * read, and the records of each read: 'H' handshake, 'C' ChangeCipherSpec, 'A' application
 * data, 'L' alert. A read stops at the record where a request begins, as the kernel's walk does.
 */
static struct x__run x__play(const char *script)
{
	struct x__run r = {.ph = RT_TLS_HELLO};
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

/* TLS 1.2, full: key exchange, ChangeCipherSpec and Finished; the server's Finished; two
 * requests on the connection; the client's close_notify. */
static void test_tls12_full(void **state)
{
	struct x__run r = x__play("W|HCH|W|A|W|A|W|L");

	(void)state;
	assert_int_equal(r.hs_over, 1);
	assert_int_equal(r.v13, 0);
	assert_int_equal(r.resumed, 0);
	assert_int_equal(r.requests, 2);
	assert_int_equal(r.ph, RT_TLS_CLOSING);
	/* the client leaves after the server's Finished, with no request: a handshake all the same */
	r = x__play("W|HCH|W|L");
	assert_int_equal(r.hs_over, 1);
	assert_int_equal(r.requests, 0);
}

/* TLS 1.2, resumed: the server's first flight holds its Finished; the client's ChangeCipherSpec
 * and Finished, with the request in the same read, or alone. */
static void test_tls12_resumed(void **state)
{
	struct x__run r = x__play("W|CHA|W");

	(void)state;
	assert_int_equal(r.hs_over, 1);
	assert_int_equal(r.resumed, 1);
	assert_int_equal(r.requests, 1);
	assert_int_equal(r.ph, RT_TLS_DONE);
	r = x__play("W|CH|A|W|A|W");
	assert_int_equal(r.hs_over, 1);
	assert_int_equal(r.resumed, 1);
	assert_int_equal(r.requests, 2);
}

/* TLS 1.3: the client's Finished is the first application-data record; with the request in the
 * same read, the server's tickets come after it (LATE); alone, the tickets are written first. */
static void test_tls13(void **state)
{
	struct x__run r = x__play("W|CAA|W");

	(void)state;
	assert_int_equal(r.hs_over, 1);
	assert_int_equal(r.v13, 1);
	assert_int_equal(r.requests, 1);
	assert_int_equal(r.ph, RT_TLS_LATE);
	r = x__play("W|CA|W|A|W|A|W");
	assert_int_equal(r.hs_over, 1);
	assert_int_equal(r.v13, 1);
	assert_int_equal(r.requests, 2);
	assert_int_equal(r.ph, RT_TLS_DONE);
	/* no middlebox ChangeCipherSpec */
	r = x__play("W|A|W|A|W");
	assert_int_equal(r.hs_over, 1);
	assert_int_equal(r.requests, 1);
	/* the handshake's records in no request count, however they are read */
	r = x__play("W|C|A|A");
	assert_int_equal(r.hs_over, 1);
	assert_int_equal(r.requests, 1);
}

/* A handshake the client abandons (a certificate it does not trust) is no handshake timed. */
static void test_failed(void **state)
{
	struct x__run r = x__play("W|L");

	(void)state;
	assert_int_equal(r.hs_over, 0);
	assert_int_equal(r.requests, 0);
	assert_int_equal(r.ph, RT_TLS_CLOSING);
	/* nothing after an alert */
	r = x__play("W|L|A|W");
	assert_int_equal(r.requests, 0);
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
