// SPDX-License-Identifier: MIT
/* The driver's error classes as its unit tests check them (test_driver_grpc.c,
 * test_driver_frame_grpc.c): each error's class, name, text and one-line hint. (After cmocka.h.) */
#ifndef LL_TEST_DRIVER_ERR_CLASSES_H
#define LL_TEST_DRIVER_ERR_CLASSES_H

#include <string.h>
#include "base/errors.h"
#include "results/stats.h"

/* An error, its class and name, and what its hint holds. */
struct drv_err_case {
	int err;
	enum drv_err cls;
	const char *name, *in_hint;
};

/* Each of the n errors: its class and its name; a text of its own (not strerror's, nor another
 * case's); a hint for target of one whole line (not cut at 400 bytes) holding in_hint; counted
 * once in its class of s (fresh from drv_stats_init()). */
static void check_err_classes(struct drv_stats *s, const struct drv_err_case *t, size_t n,
			      const char *target)
{
	char buf[400];
	size_t i, j;

	for (i = 0; i < n; i++) {
		assert_int_equal(drv_err_class(t[i].err), t[i].cls);
		assert_string_equal(drv_err_name(t[i].cls), t[i].name);
		assert_string_not_equal(drv_strerror(t[i].err), strerror(-t[i].err));
		for (j = 0; j < i; j++)
			assert_string_not_equal(drv_strerror(t[i].err), drv_strerror(t[j].err));
		drv_err_hint(t[i].cls, s, target, buf, sizeof(buf));
		if (!strstr(buf, t[i].in_hint))
			fail_msg("%s: hint '%s' lacks '%s'", t[i].name, buf, t[i].in_hint);
		assert_null(strchr(buf, '\n'));
		assert_true(strlen(buf) < sizeof(buf) - 1); /* whole, not cut */
		drv_stats_error(s, t[i].err);
		assert_int_equal(s->errors[t[i].cls], 1);
	}
}

#endif /* LL_TEST_DRIVER_ERR_CLASSES_H */
