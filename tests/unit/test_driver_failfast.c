// SPDX-License-Identifier: MIT
/*
 * The stop on failed negotiations (driver/scheduling/failfast.h): which errors end a negotiation,
 * when a worker may tell (every slot failed, nothing answered), and the first reason kept.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "base/errors.h"
#include "scheduling/failfast.h"

static void test_errors(void **state)
{
	(void)state;
	assert_true(drv_failfast_err(DRV_E_TLS));
	assert_true(drv_failfast_err(DRV_E_NOT_H2));
	/* a refused connect, a reset mid-handshake, a timeout, a protocol error: not negotiation */
	assert_false(drv_failfast_err(-ECONNREFUSED));
	assert_false(drv_failfast_err(-ECONNRESET));
	assert_false(drv_failfast_err(-ETIMEDOUT));
	assert_false(drv_failfast_err(DRV_E_H2_PROTOCOL));
	assert_false(drv_failfast_err(DRV_E_HTTP_STATUS));
	assert_false(drv_failfast_err(0));
}

static void test_due(void **state)
{
	(void)state;
	assert_false(drv_failfast_due(3, 4, 0));  /* a slot still to fail */
	assert_true(drv_failfast_due(4, 4, 0));
	assert_false(drv_failfast_due(4, 4, 1));  /* one answer: the server can work */
	assert_false(drv_failfast_due(0, 0, 0));  /* a worker of no slots tells nothing */
	assert_true(drv_failfast_due(1, 1, 0));
}

static void test_why(void **state)
{
	struct drv_failfast f = {0};
	char big[400];

	(void)state;
	drv_failfast_why(&f, NULL);
	drv_failfast_why(&f, "");
	assert_string_equal(f.why, "");
	drv_failfast_why(&f, "self-signed certificate");
	drv_failfast_why(&f, "hostname mismatch"); /* the first stays */
	assert_string_equal(f.why, "self-signed certificate");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	f = (struct drv_failfast){0};
	drv_failfast_why(&f, big); /* cut to fit */
	assert_int_equal(strlen(f.why), DRV_FAILFAST_WHY - 1);
}

LL_TEST_MAIN(test_errors, test_due, test_why)
