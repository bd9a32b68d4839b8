// SPDX-License-Identifier: MIT
/*
 * What counts as a read of several client writes (include/loadlens/reqtime.h,
 * rt_client_writes(): the kernel's count behind the arrivals' pipelining note): a request read
 * with the peer's FIN is one write; TLS records are never several requests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/reqtime.h"

static void test_client_writes(void **state)
{
	(void)state;
	assert_int_equal(rt_client_writes(1, 0, 0), 1);
	/* two requests written apart, read at once: pipelining */
	assert_int_equal(rt_client_writes(2, 0, 0), 2);
	/* a request and the FIN (pgbench -C's Terminate, an HTTP/1.0 half-close): one */
	assert_int_equal(rt_client_writes(2, 1, 0), 1);
	/* two requests and the FIN: still two */
	assert_int_equal(rt_client_writes(3, 1, 0), 2);
	/* a FIN alone never makes a read of 0 writes */
	assert_int_equal(rt_client_writes(1, 1, 0), 1);
	/* TLS: ChangeCipherSpec, Finished and a request, each its own write: one */
	assert_int_equal(rt_client_writes(3, 0, 1), 1);
	assert_int_equal(rt_client_writes(2, 1, 1), 1);
}

LL_TEST_MAIN(test_client_writes)
