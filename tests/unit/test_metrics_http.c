// SPDX-License-Identifier: MIT
/* --metrics ADDR:PORT parsing (observer/metrics/metrics_http.c): loopback unless an address
 * is given. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>
#include "ll_test.h"
#include "metrics/metrics_http.h"

static int parse(const char *spec, struct sockaddr_storage *ss, bool *loop)
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
	assert_int_equal(parse("9435", &ss, &loop), 0);
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
	assert_int_equal(parse("0.0.0.0:9435", &ss, &loop), 0);
	assert_false(loop);
	assert_int_equal(parse("127.0.0.2:1", &ss, &loop), 0);
	assert_true(loop);
	assert_int_equal(parse("[::1]:9435", &ss, &loop), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_true(loop);
	assert_int_equal(parse("localhost:9435", &ss, &loop), 0);
	assert_true(loop);
	assert_int_equal(parse("127.0.0.1:0", &ss, &loop), 0); /* any free port */
}

static void test_bad_specs(void **state)
{
	struct sockaddr_storage ss;
	bool loop;

	(void)state;
	assert_int_equal(parse("127.0.0.1:99999", &ss, &loop), -EINVAL);
	assert_int_equal(parse(":9435", &ss, &loop), -EINVAL);
	assert_int_equal(parse("12x", &ss, &loop), -EINVAL);
	assert_int_equal(parse("127.0.0.1:", &ss, &loop), -EINVAL);
	assert_int_equal(parse("", &ss, &loop), -EINVAL);
	assert_int_equal(parse("-1", &ss, &loop), -EINVAL);
}

/* A wait whose end has already passed (the tick before it overran its interval) still serves
 * the connections and sees a pending signal once: slow ticks starve neither. In-process, on a
 * loopback port the kernel picks. */
static void test_wait_past_its_end(void **state)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	struct obs_mxhttp *h;
	sigset_t set, old;
	char buf[512];
	const char *addr;
	ssize_t n;
	int fd, i;

	(void)state;
	h = obs_mxhttp_new("test", "127.0.0.1:0");
	assert_non_null(h);
	addr = strrchr(obs_mxhttp_addr(h), ':');
	sa.sin_port = htons((uint16_t)atoi(addr + 1));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	/* unanswered: a failure in 2 s, not a hang */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){2, 0}, sizeof(struct timeval));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 28), 28);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	/* until = 1 ns after boot: long past. A pass accepts, the next reads and answers. */
	for (i = 0; i < 3; i++)
		assert_false(obs_mxhttp_wait(h, &set, 1));
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n > 12);
	buf[n] = '\0';
	assert_memory_equal(buf, "HTTP/1.1 200", 12);
	raise(SIGUSR1);
	assert_true(obs_mxhttp_wait(h, &set, 1));
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fd);
	obs_mxhttp_free(h);
}

LL_TEST_MAIN(test_bare_port_is_loopback, test_given_addresses, test_bad_specs,
	     test_wait_past_its_end)
