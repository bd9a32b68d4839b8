// SPDX-License-Identifier: MIT
/* One-line diagnostics and small formatting helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "loadlens/cli.h"
#include "loadlens/quote.h"

/* Every diagnostic passes ll_quote: whatever it names (an argument, a process name, a path), it
 * stays one line with no control character, and at most LL_SAY_MAX bytes; a word of it longer
 * than LL_SAY_WORD_MAX (a 100 KB --port) is cut in its middle first, so the rest stays whole. */
void ll_vsay(const char *prog, const char *fmt, va_list ap)
{
	char small[LL_SAY_MAX], out[LL_SAY_MAX], *msg = small;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	/* a longer message whole, so that its end (what was expected) survives the cut */
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1)))
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
	else
		msg = small;
	ll_cut_words(msg, LL_SAY_WORD_MAX);
	fprintf(stderr, "%s: %s\n", prog, ll_quote(msg, out, sizeof(out)));
	if (msg != small)
		free(msg);
}

/* ll_vsay on the variadic arguments after fmt, in a function whose last named one is fmt. */
#define SAY_ARGS(prog, fmt)						\
	do {								\
		va_list ap_;						\
									\
		va_start(ap_, fmt);					\
		ll_vsay(prog, fmt, ap_);				\
		va_end(ap_);						\
	} while (0)

void ll_usage_error(const char *prog, const char *fmt, ...)
{
	SAY_ARGS(prog, fmt);
	exit(LL_EXIT_USAGE);
}

void ll_warn(const char *prog, const char *fmt, ...)
{
	SAY_ARGS(prog, fmt);
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
