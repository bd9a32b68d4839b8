// SPDX-License-Identifier: MIT
/* A run's result: its stop reason's name, and freeing it. */
#include "results/result.h"

const char *drv_stop_reason_name(enum drv_stop_reason r)
{
	switch (r) {
	case DRV_STOP_REQUESTS:
		return "requests";
	case DRV_STOP_DURATION:
		return "duration";
	case DRV_STOP_SIGNAL:
		return "signal";
	}
	return "?";
}

void drv_result_fini(struct drv_result *res)
{
	drv_stats_fini(&res->total);
}
