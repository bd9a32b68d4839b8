// SPDX-License-Identifier: MIT
/*
 * Counts by code in the summary, one way for each kind of code (HTTP/2 RST_STREAM, grpc-status,
 * DNS RCODE, LDAP resultCode): the nonzero ones, each under its name (report.h); the JSON's are
 * ll_json_counts()'s.
 */
#include <stdio.h>
#include "results/report.h"

void drv_report_counts(FILE *f, const uint64_t *c, unsigned n, ll_code_name_fn *name)
{
	char b[LL_CODE_NAME_MAX];
	unsigned i;
	int first = 1;

	for (i = 0; i < n; i++) {
		if (!c[i])
			continue;
		fprintf(f, "%s %s: %llu", first ? "" : ",", name(i, b, sizeof(b)),
			(unsigned long long)c[i]);
		first = 0;
	}
	fprintf(f, "%s\n", first ? " none" : "");
}
