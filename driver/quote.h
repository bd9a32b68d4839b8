/* SPDX-License-Identifier: MIT */
/* User text made safe for one line of output (error lines, the banner). */
#ifndef LOADLENS_DRV_QUOTE_H
#define LOADLENS_DRV_QUOTE_H

#include <stddef.h>

/*
 * s for one terminal line, into buf (len >= 64): control characters as \r, \n, \t or \xNN,
 * and when that is longer than len - 1 bytes, its middle cut out and counted:
 * "head...[N bytes cut]...tail". Returns buf.
 */
const char *drv_quote(const char *s, char *buf, size_t len);

/* An error message for a parser's caller: fmt into err (when err and len), returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int drv_errf(char *err, size_t len, const char *fmt, ...);

#endif /* LOADLENS_DRV_QUOTE_H */
