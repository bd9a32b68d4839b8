/* SPDX-License-Identifier: MIT */
/* Exit codes and one-line diagnostics shared by every loadlens binary. */
#ifndef LOADLENS_CLI_H
#define LOADLENS_CLI_H

#define LL_EXIT_OK 0
#define LL_EXIT_FAIL 1	 /* runtime failure */
#define LL_EXIT_USAGE 64 /* bad flag, value, URL, duration; missing privilege or kernel feature */
#define LL_EXIT_SKIP 77	 /* reserved for "test skipped" */

#include <stdarg.h>

#define LL_SAY_WORD_MAX 256 /* bytes of one word of a diagnostic (ll_cut_words) */
#define LL_SAY_MAX 2048 /* bytes of one diagnostic; a longer one has its middle cut (ll_quote) */

/* Print "prog: <message>" (one line, to stderr): the message through ll_quote (control
 * characters escaped, cut to LL_SAY_MAX). */
void ll_vsay(const char *prog, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* ll_vsay, then exit(LL_EXIT_USAGE). */
void ll_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/* ll_vsay. */
void ll_warn(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Human form of a duration in ns with 3 significant digits: "812ns", "1.25ms", "3.40s". */
const char *ll_fmt_ns(double ns, char *buf, unsigned long len);

#endif /* LOADLENS_CLI_H */
