// SPDX-License-Identifier: MIT
/* A run's result: its stop reason's name, and freeing it. */
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
