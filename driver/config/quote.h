/* SPDX-License-Identifier: MIT */
/* User text made safe for one line of output (loadlens/quote.h), and parser error messages. */
#ifndef LOADLENS_DRV_QUOTE_H
#define LOADLENS_DRV_QUOTE_H

#include <stddef.h>
#include "loadlens/quote.h"

/* An error message for a parser's caller: fmt into err (when err and len), returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int drv_errf(char *err, size_t len, const char *fmt, ...);

#endif /* LOADLENS_DRV_QUOTE_H */
