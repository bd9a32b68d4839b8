// SPDX-License-Identifier: MIT
/* Counts by code as JSON (loadlens/json_counts.h). */
#include <stdio.h>
#include "loadlens/json_counts.h"

const char *ll_code_number(unsigned code, char *buf, unsigned len)
{
	snprintf(buf, len, "%u", code);
	return buf;
}

json_t *ll_json_counts(const uint64_t *c, unsigned n, ll_code_name_fn *name)
{
	char b[LL_CODE_NAME_MAX];
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
