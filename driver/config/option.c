// SPDX-License-Identifier: MIT
/* One option's value: a number in range, or one line saying what is wrong. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "loadlens/parse.h"
#include "config/option.h"
#include "config/quote.h"

int drv__config_fail(char *err, size_t errlen, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	if (!err || !errlen)
		return -EINVAL;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		snprintf(err, errlen, "bad arguments (no memory to say which)");
		return -EINVAL;
	}
	/* arguments are the user's: no raw control characters, no 100 KB lines */
	if (errlen >= 64)
		ll_quote(line, err, errlen);
	else
		snprintf(err, errlen, "%s", line);
	free(line);
	return -EINVAL;
}

int drv__config_num(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		     char *err, size_t errlen)
{
	int r = ll_parse_u64(s, min, max, out);

	if (r == -ERANGE)
		return drv__config_fail(err, errlen, "%s %s: out of range, must be %llu..%llu", opt, s,
			       (unsigned long long)min, (unsigned long long)max);
	if (r)
		return drv__config_fail(err, errlen, "%s %s: not a number", opt, s);
	return 0;
}
