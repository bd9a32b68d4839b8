// SPDX-License-Identifier: MIT
/*
 * Counts by code in the summary and the JSON, one way for each kind of code (HTTP/2 RST_STREAM,
 * grpc-status, DNS RCODE, LDAP resultCode): the nonzero ones, each under its name (report.h).
 */
#include <stdio.h>
#include "results/report.h"

void drv_report_counts(FILE *f, const uint64_t *c, unsigned n, drv_code_name_fn *name)
{
	char b[DRV_CODE_NAME_MAX];
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

json_t *drv_report_json_counts(const uint64_t *c, unsigned n, drv_code_name_fn *name)
{
	char b[DRV_CODE_NAME_MAX];
	json_t *o = json_object();
	unsigned i;

	for (i = 0; o && i < n; i++) {
		if (c[i] && json_object_set_new(o, name(i, b, sizeof(b)),
						json_integer((json_int_t)c[i]))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}
