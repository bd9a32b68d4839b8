/* SPDX-License-Identifier: MIT */
/* DNS's --requests-file records (dns_request.c): dnsperf's `NAME TYPE` made into a query,
 * --response dns's record hook (config/app.h). */
#ifndef LOADLENS_DRV_DNS_REQUEST_H
#define LOADLENS_DRV_DNS_REQUEST_H

#include <stddef.h>

struct drv_config;

/* With --response dns, a line `NAME TYPE` (A, AAAA, MX, TXT, NS, ...): its query (id 0, RD;
 * over tcp:// after its 2-byte length) into *src (malloc'd, *n bytes) and 1; 0 for another rule;
 * -EINVAL with one line in err. */
int drv_dns_record(const struct drv_config *cfg, char *line, char **src, size_t *n, char *err,
		   size_t errlen);

#endif /* LOADLENS_DRV_DNS_REQUEST_H */
