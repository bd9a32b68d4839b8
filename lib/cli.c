// SPDX-License-Identifier: MIT
/* One-line diagnostics and small formatting helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "loadlens/cli.h"

static void x__vsay(const char *prog, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ll_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	x__vsay(prog, fmt, ap);
	va_end(ap);
	exit(LL_EXIT_USAGE);
}

void ll_warn(const char *prog, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	x__vsay(prog, fmt, ap);
	va_end(ap);
}

const char *ll_fmt_ns(double ns, char *buf, unsigned long len)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3gms", ns / 1e6);
	else
		snprintf(buf, len, "%.3gs", ns / 1e9);
	return buf;
}
