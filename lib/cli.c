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
	static const char *const units[] = {"us", "ms", "s"};
	double v = ns;
	int u = -1;

	if (ns < 999.5) {
		snprintf(buf, len, "%.0fns", ns < 0 ? 0 : ns);
		return buf;
	}
	/* three significant digits, never an exponent: 999.7 ms is 1.00s, not 1e+03ms */
	do {
		v /= 1e3;
		u++;
	} while (u < 2 && v >= 999.5);
	if (v < 9.995)
		snprintf(buf, len, "%.2f%s", v, units[u]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%s", v, units[u]);
	else
		snprintf(buf, len, "%.0f%s", v, units[u]);
	return buf;
}
