// SPDX-License-Identifier: MIT
/* A run's result: its stop reason's name, its first negotiation failure, and freeing it. */
#include <string.h>
#include "results/result.h"

const char *drv_stop_reason_name(enum drv_stop_reason r)
{
	static const char *const names[] = {
		[DRV_STOP_REQUESTS] = "requests",
		[DRV_STOP_DURATION] = "duration",
		[DRV_STOP_SIGNAL] = "signal",
		[DRV_STOP_NEGOTIATION] = "negotiation",
	};

	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

void drv_result_fini(struct drv_result *res)
{
	drv_stats_fini(&res->total);
}

void drv_result_negotiation(struct drv_result *res, int err, const char *why, uint64_t count)
{
	size_t n;

	if (!err)
		return;
	if (!why)
		why = "";
	if (res->neg_err && (res->neg_why[0] || !why[0])) { /* kept: count the same reason */
		if (why[0] && !strncmp(res->neg_why, why, sizeof(res->neg_why) - 1))
			res->neg_count += count;
		return;
	}
	res->neg_err = err;
	res->neg_count = why[0] ? count : 0;
	n = strnlen(why, sizeof(res->neg_why) - 1);
	memcpy(res->neg_why, why, n);
	res->neg_why[n] = '\0';
}
