// SPDX-License-Identifier: MIT
/* Parsing of durations, numbers, URLs and addresses, including bad input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/parse.h"

static void test_durations(void **state)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} good[] = {
		{"30s", 30000000000ULL}, {"250ms", 250000000ULL}, {"2m", 120000000000ULL},
		{"1h", 3600000000000ULL}, {"500us", 500000ULL}, {"100ns", 100ULL},
		{"1.5s", 1500000000ULL}, {"0", 0}, {"2", 2000000000ULL}, {"0.25ms", 250000ULL},
	};
	static const char *bad[] = {"", "s", "ms", "-1s", "+1s", "1x", "5parsecs", "1 s",
				    " 1s", "1s ", "nan", "inf", "1e30s", "1sms", "--", "0x10s", "1.2.3s", ".5s"};
	uint64_t ns;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ns = 12345;
		assert_int_equal(ll_parse_duration(good[i].in, &ns), 0);
		assert_int_equal(ns, good[i].ns);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!ll_parse_duration(bad[i], &ns))
			fail_msg("duration '%s' was accepted as %llu", bad[i],
				 (unsigned long long)ns);
	}
	assert_int_not_equal(ll_parse_duration(NULL, &ns), 0);
}

static void test_numbers(void **state)
{
	uint64_t v;
	double d;

	assert_int_equal(ll_parse_u64("10", 1, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(ll_parse_u64("10k", 1, 1000000, &v), 0);
	assert_int_equal(v, 10000);
	assert_int_equal(ll_parse_u64("2M", 1, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2000000);
	assert_int_equal(ll_parse_u64("0", 1, 100, &v), -ERANGE);
	assert_int_equal(ll_parse_u64("101", 1, 100, &v), -ERANGE);
	assert_int_equal(ll_parse_u64("99999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(ll_parse_u64("20000000000G", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(ll_parse_u64("-1", 0, 100, &v), -EINVAL);
	assert_int_equal(ll_parse_u64("1.5", 0, 100, &v), -EINVAL);
	assert_int_equal(ll_parse_u64("abc", 0, 100, &v), -EINVAL);
	assert_int_equal(ll_parse_u64("", 0, 100, &v), -EINVAL);
	assert_int_equal(ll_parse_u64("10kk", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(ll_parse_u64(" 5", 0, 100, &v), -EINVAL);
	assert_int_equal(ll_parse_double("0.5", 0, 1, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(ll_parse_double("1.5", 0, 1, &d), -ERANGE);
	assert_int_equal(ll_parse_double("x", 0, 1, &d), -EINVAL);
	assert_int_equal(ll_parse_double("1x", 0, 10, &d), -EINVAL);
}

/* "HEAD:REST" at the last ':', HEAD bounded by its buffer. */
static void test_pair(void **state)
{
	char head[8];

	(void)state;
	assert_string_equal(ll_parse_pair("8:10", head, sizeof(head)), "10");
	assert_string_equal(head, "8");
	assert_string_equal(ll_parse_pair("1s:2s:3s", head, sizeof(head)), "3s");
	assert_string_equal(head, "1s:2s");
	assert_string_equal(ll_parse_pair(":x", head, sizeof(head)), "x");
	assert_string_equal(head, "");
	assert_string_equal(ll_parse_pair("ab:", head, sizeof(head)), "");
	assert_null(ll_parse_pair("no colon", head, sizeof(head)));
	assert_null(ll_parse_pair("toolonghead:1", head, sizeof(head)));
	assert_null(ll_parse_pair("12345678:1", head, sizeof(head))); /* 8 bytes, no room for NUL */
	assert_non_null(ll_parse_pair("1234567:1", head, sizeof(head)));
	assert_null(ll_parse_pair(NULL, head, sizeof(head)));
}

static void test_urls(void **state)
{
	struct ll_url u;
	static const char *bad[] = {
		"",		     "tcp://",		 "tcp://host",	      "tcp://:80",
		"tcp://h:0",	     "tcp://h:65536",	 "tcp://h:80x",	      "tcp://h:80/path",
		"ftp://h:21",	     "http://",		 "http://h:abc/",     "http://h:/",
		"http://h/a b",	     "udp://[::1]",	 "tcp://[::1:80",     "tcp://h h:80",
		"http://user@h/",    "TCP://h:1",	 "tcp://h:-1",	      "//h:80",
		"https://",	     "https://h:0/",	 "https://h:65536",   "https://h/a b",
		"https:/h/",	     "HTTPS://h/",	 "httpss://h/",	      "https//h/",
		"grpc://h/kv.S/M",   "grpc://",		 "grpcs://h:0/",      "grpc://h:1/a b",
	};
	/* NULL or 0: not checked */
	static const struct {
		const char *url;
		enum ll_scheme scheme;
		const char *host;
		uint16_t port;
		const char *path;
	} good[] = {
		{"tcp://127.0.0.1:8000", LL_SCHEME_TCP, "127.0.0.1", 8000, NULL},
		{"udp://localhost:53", LL_SCHEME_UDP, "localhost", 0, NULL},
		{"http://[::1]:8080/a/b?c=d", LL_SCHEME_HTTP, "::1", 8080, "/a/b?c=d"},
		{"http://example.test", 0, NULL, 80, "/"},
		{"tcp://h:80/", 0, NULL, 0, NULL},
		/* https: port 443 by default, otherwise like http */
		{"https://example.test", LL_SCHEME_HTTPS, "example.test", 443, "/"},
		{"https://127.0.0.1:8443/x?y=1", LL_SCHEME_HTTPS, NULL, 8443, "/x?y=1"},
		/* http:// keeps port 80 next to https:// */
		{"http://example.test/", LL_SCHEME_HTTP, NULL, 80, NULL},
		/* grpc: the port named; grpcs: 443 by default; the path is the method */
		{"grpc://127.0.0.1:50051/kv.Store/Put", LL_SCHEME_GRPC, NULL, 50051, "/kv.Store/Put"},
		{"grpcs://example.test/kv.Store/Get", LL_SCHEME_GRPCS, NULL, 443, "/kv.Store/Get"},
		{"https://[::1]/", 0, "::1", 443, NULL},
	};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (ll_parse_url(good[i].url, &u))
			fail_msg("URL '%s' was refused", good[i].url);
		if (good[i].scheme && u.scheme != good[i].scheme)
			fail_msg("%s: scheme %s", good[i].url, ll_scheme_name(u.scheme));
		if (good[i].host && strcmp(u.host, good[i].host))
			fail_msg("%s: host '%s'", good[i].url, u.host);
		if (good[i].port && u.port != good[i].port)
			fail_msg("%s: port %u", good[i].url, u.port);
		if (good[i].path && strcmp(u.path, good[i].path))
			fail_msg("%s: path '%s'", good[i].url, u.path);
	}
	assert_string_equal(ll_scheme_name(u.scheme), "https");
	assert_true(ll_scheme_is_http(LL_SCHEME_HTTPS) && ll_scheme_is_http(LL_SCHEME_HTTP));
	assert_false(ll_scheme_is_http(LL_SCHEME_TCP) || ll_scheme_is_http(LL_SCHEME_UDP));
	assert_true(ll_scheme_is_grpc(LL_SCHEME_GRPC) && ll_scheme_has_path(LL_SCHEME_GRPCS));
	assert_false(ll_scheme_is_http(LL_SCHEME_GRPC) || ll_scheme_is_grpc(LL_SCHEME_HTTP));
	assert_string_equal(ll_scheme_name(LL_SCHEME_GRPCS), "grpcs");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!ll_parse_url(bad[i], &u))
			fail_msg("URL '%s' was accepted", bad[i]);
	}
}

static void test_hostport(void **state)
{
	char host[LL_HOST_MAX];
	uint16_t port;

	assert_int_equal(ll_parse_hostport("127.0.0.1:8000", host, sizeof(host), &port), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 8000);
	assert_int_equal(ll_parse_hostport("[::1]:9", host, sizeof(host), &port), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 9);
	assert_int_equal(ll_parse_hostport(":7000", host, sizeof(host), &port), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(ll_parse_hostport("7001", host, sizeof(host), &port), 0);
	assert_int_equal(port, 7001);
	assert_int_not_equal(ll_parse_hostport("nonsense", host, sizeof(host), &port), 0);
	assert_int_not_equal(ll_parse_hostport("h:", host, sizeof(host), &port), 0);
	assert_int_not_equal(ll_parse_hostport("h:70000", host, sizeof(host), &port), 0);
	assert_int_not_equal(ll_parse_hostport("", host, sizeof(host), &port), 0);
}

static void test_resolve(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[64];

	assert_int_equal(ll_resolve("127.0.0.1", 80, SOCK_STREAM, &ss, &len), 0);
	ll_format_addr((struct sockaddr *)&ss, buf, sizeof(buf));
	assert_string_equal(buf, "127.0.0.1:80");
	assert_int_equal(ll_resolve("::1", 443, SOCK_STREAM, &ss, &len), 0);
	ll_format_addr((struct sockaddr *)&ss, buf, sizeof(buf));
	assert_string_equal(buf, "[::1]:443");
	/* .invalid is reserved never to resolve (RFC 6761) */
	assert_int_not_equal(ll_resolve("no-such-host.invalid", 80, SOCK_STREAM, &ss, &len), 0);
}

/* One spelling of an address everywhere, as ss prints it. */
static void test_format_ip(void **state)
{
	const uint8_t v4[4] = {127, 0, 0, 1}, lo6[16] = {[15] = 1},
		      mapped[16] = {[10] = 0xff, [11] = 0xff, 127, 0, 0, 1};
	char buf[64];

	(void)state;
	assert_string_equal(ll_format_ip(AF_INET, v4, -1, buf, sizeof(buf)), "127.0.0.1");
	assert_string_equal(ll_format_ip(AF_INET, v4, 8080, buf, sizeof(buf)), "127.0.0.1:8080");
	assert_string_equal(ll_format_ip(AF_INET6, lo6, -1, buf, sizeof(buf)), "[::1]");
	assert_string_equal(ll_format_ip(AF_INET6, lo6, 8080, buf, sizeof(buf)), "[::1]:8080");
	assert_string_equal(ll_format_ip(AF_INET6, mapped, 0, buf, sizeof(buf)),
			    "[::ffff:127.0.0.1]:0");
	assert_string_equal(ll_format_ip(AF_UNIX, v4, 1, buf, sizeof(buf)), "?:1");
	/* truncated, never overrun */
	assert_string_equal(ll_format_ip(AF_INET6, lo6, 8080, buf, 6), "[::1]");
}

LL_TEST_MAIN(test_durations, test_numbers, test_pair, test_urls, test_hostport, test_resolve,
	     test_format_ip)
