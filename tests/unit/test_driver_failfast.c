// SPDX-License-Identifier: MIT
/*
 * The stop on failed negotiations (driver/scheduling/failfast.h): which errors end a negotiation,
 * when a worker may tell (every slot failed, nothing answered), when the run stops (every worker
 * told, still nothing answered), the first reason kept and counted, and the run's first failure
 * over workers and merged runs (results/result.h).
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
#include "results/result.h"
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

static void test_stop(void **state)
{
	(void)state;
	assert_false(drv_failfast_stop(1, 2, 0)); /* a worker whose slots have not all failed */
	assert_true(drv_failfast_stop(2, 2, 0));
	/* both told, then a reconnect of one was answered (a flaky server): not stopped */
	assert_false(drv_failfast_stop(2, 2, 1));
	assert_false(drv_failfast_stop(0, 0, 0)); /* no worker started */
}

static void test_why(void **state)
{
	struct drv_failfast f = {0};
	char big[400];

	(void)state;
	drv_failfast_why(&f, NULL);
	drv_failfast_why(&f, "");
	assert_string_equal(f.why, "");
	assert_int_equal(f.nwhy, 0);
	drv_failfast_why(&f, "self-signed certificate");
	drv_failfast_why(&f, "hostname mismatch"); /* the first stays */
	drv_failfast_why(&f, "self-signed certificate");
	drv_failfast_why(&f, NULL);
	assert_string_equal(f.why, "self-signed certificate");
	assert_int_equal(f.nwhy, 2); /* the failures that gave it */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	f = (struct drv_failfast){0};
	drv_failfast_why(&f, big); /* cut to fit */
	assert_int_equal(strlen(f.why), DRV_FAILFAST_WHY - 1);
	drv_failfast_why(&f, big); /* the same, as far as it was kept */
	assert_int_equal(f.nwhy, 2);
}

/* The run's first failure over its workers (run.c) and over merged runs (merge.c). */
static void test_result(void **state)
{
	struct drv_result res = {0};

	(void)state;
	drv_result_negotiation(&res, 0, "x", 3); /* no failure: nothing */
	assert_int_equal(res.neg_err, 0);
	drv_result_negotiation(&res, DRV_E_TLS, "", 0); /* a worker that kept no reason */
	assert_int_equal(res.neg_err, DRV_E_TLS);
	assert_string_equal(res.neg_why, "");
	drv_result_negotiation(&res, DRV_E_TLS, "self-signed certificate", 3); /* a reason wins */
	drv_result_negotiation(&res, DRV_E_TLS, "self-signed certificate", 2); /* the same: added */
	drv_result_negotiation(&res, DRV_E_NOT_H2, "the server's ALPN chose no h2", 4);
	drv_result_negotiation(&res, DRV_E_TLS, NULL, 7);
	assert_int_equal(res.neg_err, DRV_E_TLS);
	assert_string_equal(res.neg_why, "self-signed certificate");
	assert_int_equal(res.neg_count, 5);
}

LL_TEST_MAIN(test_errors, test_due, test_stop, test_why, test_result)
