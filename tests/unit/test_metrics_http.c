// SPDX-License-Identifier: MIT
/* --metrics ADDR:PORT parsing (observer/metrics_http.c): loopback unless an address is given. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>
#include "metrics_http.h"

static int x__parse(const char *spec, struct sockaddr_storage *ss, bool *loop)
{
	socklen_t len;
	char err[160];

	return obs_mxhttp_parse(spec, ss, &len, loop, err, sizeof(err));
}

static void test_bare_port_is_loopback(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	bool loop = false;

	(void)state;
	assert_int_equal(x__parse("9435", &ss, &loop), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohl(s4->sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(ntohs(s4->sin_port), 9435);
	assert_true(loop);
}

static void test_given_addresses(void **state)
{
	struct sockaddr_storage ss;
	bool loop = true;

	(void)state;
	assert_int_equal(x__parse("0.0.0.0:9435", &ss, &loop), 0);
	assert_false(loop);
	assert_int_equal(x__parse("127.0.0.2:1", &ss, &loop), 0);
	assert_true(loop);
	assert_int_equal(x__parse("[::1]:9435", &ss, &loop), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_true(loop);
	assert_int_equal(x__parse("localhost:9435", &ss, &loop), 0);
	assert_true(loop);
	assert_int_equal(x__parse("127.0.0.1:0", &ss, &loop), 0); /* any free port */
}

static void test_bad_specs(void **state)
{
	struct sockaddr_storage ss;
	bool loop;

	(void)state;
	assert_int_equal(x__parse("127.0.0.1:99999", &ss, &loop), -EINVAL);
	assert_int_equal(x__parse(":9435", &ss, &loop), -EINVAL);
	assert_int_equal(x__parse("12x", &ss, &loop), -EINVAL);
	assert_int_equal(x__parse("127.0.0.1:", &ss, &loop), -EINVAL);
	assert_int_equal(x__parse("", &ss, &loop), -EINVAL);
	assert_int_equal(x__parse("-1", &ss, &loop), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_port_is_loopback),
		cmocka_unit_test(test_given_addresses),
		cmocka_unit_test(test_bad_specs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
