// SPDX-License-Identifier: MIT
/* A run whose every connection fails its negotiation stops at once (failfast.h). */
#include <string.h>
#include "base/errors.h"
#include "scheduling/failfast.h"

bool drv_failfast_err(int err)
{
	enum drv_err e = drv_err_class(err);

	return e == DRV_ERR_TLS || e == DRV_ERR_NOT_H2;
}

bool drv_failfast_due(uint32_t failed, uint32_t nslots, uint64_t answered)
{
	return nslots && failed >= nslots && !answered;
}

bool drv_failfast_stop(uint32_t told, uint32_t nworkers, uint64_t answered)
{
	return nworkers && told >= nworkers && !answered;
}

void drv_failfast_why(struct drv_failfast *f, const char *why)
{
	size_t n;

	if (!why || !why[0])
		return;
	if (f->why[0]) { /* the same reason (as far as it was kept) counts */
		f->nwhy += !strncmp(f->why, why, sizeof(f->why) - 1);
		return;
	}
	f->nwhy = 1;
	n = strlen(why);
	if (n >= sizeof(f->why))
		n = sizeof(f->why) - 1;
	memcpy(f->why, why, n);
	f->why[n] = '\0';
}
