// SPDX-License-Identifier: MIT
/*
 * TLS plaintext's pure steps (include/loadlens/ssl.h, run by bpf/req_ssl.bpf.h on the bytes
 * SSL_read returns and SSL_write is handed): a connection's protocol from its first plaintext
 * read (h2load's first SSL_read as nginx sees it, an HTTP/1.1 request), and HTTP/1.1's turns of
 * the plaintext: a request per read after a response, a response recorded at its first write,
 * its last write at the next request or the close, a request never answered at the close.
 */
#include <string.h>
#include "ll_test.h"
#include "loadlens/reqtime.h"
#include "loadlens/ssl.h"

/* h2load -c 1 -m 2 -n 2 over TLS: its first plaintext (the preface, SETTINGS, WINDOW_UPDATE) */
static const char H2_FIRST[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
			       "\x00\x00\x0c\x04\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00"
			       "\x00\x04\x3f\xff\xff\xff";
static const char H1_GET[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: h2load\r\n\r\n";

static __u8 proto_of(const char *b, size_t n)
{
	__u64 w[3] = {0};

	if (n >= sizeof(w))
		memcpy(w, b, sizeof(w));
	return ll_ssl_proto(w, (__u32)n);
}

static void test_proto(void **state)
{
	(void)state;
	assert_int_equal(proto_of(H2_FIRST, sizeof(H2_FIRST) - 1), LL_SSL_PROTO_H2);
	/* the preface alone, in a read of its own */
	assert_int_equal(proto_of(H2_FIRST, LL_H2_PREFACE_LEN), LL_SSL_PROTO_H2);
	assert_int_equal(proto_of(H1_GET, sizeof(H1_GET) - 1), LL_SSL_PROTO_H1);
	/* a preface cut short by the read is taken for HTTP/1.1 (docs/observer/tls-http2.md) */
	assert_int_equal(proto_of(H2_FIRST, 16), LL_SSL_PROTO_H1);
	/* the server's first write on an HTTP/2 connection: SETTINGS on stream 0, which
	 * req_ssl.bpf.h walks before the client's preface is read */
	{
		const __u8 settings[9] = {0, 0, 18, 4, 0, 0, 0, 0, 0};
		__u32 sid = 1, tf = 0;

		assert_int_equal(ll_h2_frame(settings, &sid, &tf), 18);
		assert_int_equal(tf & 0xff, 4);
		assert_int_equal(sid, 0);
	}
}

/* Keep-alive: read, more of it, the response in two writes, the next request. */
static void test_h1_turns(void **state)
{
	struct ll_ssl_h1 t = {0}, done = {0};

	(void)state;
	assert_int_equal(ll_ssl_h1_read(&t, 100, 90, &done), 0);
	assert_int_equal(t.state, RT_READING);
	assert_int_equal(t.arrival_ns, 90);
	/* more of the same request: its read time stays */
	assert_int_equal(ll_ssl_h1_read(&t, 110, 105, &done), 0);
	assert_int_equal(t.read_ns, 100);
	assert_int_equal(ll_ssl_h1_write(&t, 300), LL_SSL_H1_RECORD);
	assert_int_equal(t.write_ns, 300);
	assert_int_equal(ll_ssl_h1_write(&t, 350), 0);
	assert_int_equal(t.multi, 1);
	/* the next request closes out the response in two writes */
	assert_int_equal(ll_ssl_h1_read(&t, 400, 395, &done), LL_SSL_H1_MULTI_DONE);
	assert_int_equal(done.read_ns, 100);
	assert_int_equal(done.write_ns, 300);
	assert_int_equal(done.last_write_ns, 350);
	assert_int_equal(t.read_ns, 400);
	assert_int_equal(t.multi, 0);
	/* answered in one write: nothing more at the next request */
	assert_int_equal(ll_ssl_h1_write(&t, 500), LL_SSL_H1_RECORD);
	assert_int_equal(ll_ssl_h1_read(&t, 600, 0, &done), 0);
	assert_int_equal(t.arrival_ns, 0); /* unknown: no queue wait for it */
}

static void test_h1_close(void **state)
{
	struct ll_ssl_h1 t = {0}, done = {0};

	(void)state;
	/* a request read, the connection closes: unanswered, once */
	ll_ssl_h1_read(&t, 100, 90, &done);
	assert_int_equal(ll_ssl_h1_close(&t, &done), LL_SSL_H1_UNANSWERED);
	assert_int_equal(ll_ssl_h1_close(&t, &done), 0);
	/* a response in two writes, then the close: complete */
	ll_ssl_h1_read(&t, 200, 190, &done);
	ll_ssl_h1_write(&t, 300);
	ll_ssl_h1_write(&t, 320);
	assert_int_equal(ll_ssl_h1_close(&t, &done), LL_SSL_H1_MULTI_DONE);
	assert_int_equal(done.last_write_ns, 320);
	/* answered in one write, then the close: nothing */
	ll_ssl_h1_read(&t, 400, 390, &done);
	ll_ssl_h1_write(&t, 500);
	assert_int_equal(ll_ssl_h1_close(&t, &done), 0);
	/* a write with no request before it (a greeting) */
	assert_int_equal(ll_ssl_h1_write(&t, 600), LL_SSL_H1_UNSOLICITED);
}

LL_TEST_MAIN(test_proto, test_h1_turns, test_h1_close)
