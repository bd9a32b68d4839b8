// SPDX-License-Identifier: MIT
/* Parser error messages (quote.h); the escaping itself is lib/quote.c's ll_quote. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include "config/quote.h"

int drv_errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}
