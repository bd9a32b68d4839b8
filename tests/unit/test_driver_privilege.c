// SPDX-License-Identifier: MIT
/* Where a root start goes: the user behind sudo, or nobody. (The drop itself: integration.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "ll_test.h"
#include "privilege.h"

static void test_pick(void **state)
{
	uid_t u;
	gid_t g;

	assert_true(drv_priv_pick("1000", "1001", 65534, 65534, &u, &g));
	assert_int_equal(u, 1000);
	assert_int_equal(g, 1001);
	/* sudo from root, half a pair, or junk: nobody */
	assert_false(drv_priv_pick("0", "0", 65534, 65533, &u, &g));
	assert_int_equal(u, 65534);
	assert_int_equal(g, 65533);
	assert_false(drv_priv_pick("1000", NULL, 65534, 65534, &u, &g));
	assert_false(drv_priv_pick(NULL, "1000", 65534, 65534, &u, &g));
	assert_false(drv_priv_pick("10x", "1000", 65534, 65534, &u, &g));
	assert_false(drv_priv_pick("-1", "1000", 65534, 65534, &u, &g));
	assert_false(drv_priv_pick("4294967295", "1000", 65534, 65534, &u, &g));
	assert_int_equal(u, 65534);
}

LL_TEST_MAIN(test_pick)
