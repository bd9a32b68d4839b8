/* SPDX-License-Identifier: MIT */
/*
 * Counts by code as JSON, {NAME: N, ...} of the nonzero ones (HTTP statuses, HTTP/2 RST_STREAM
 * codes, grpc-status, DNS RCODEs, LDAP resultCodes, errnos): the one way for the driver and the
 * refserver.
 */
#ifndef LOADLENS_JSON_COUNTS_H
#define LOADLENS_JSON_COUNTS_H

#include <stdint.h>
#include <jansson.h>

/* Code's name; buf (len >= LL_CODE_NAME_MAX bytes) holds one the function makes up. */
#define LL_CODE_NAME_MAX 16
typedef const char *ll_code_name_fn(unsigned code, char *buf, unsigned len);

/* The code's decimal number as its name ("404"). */
const char *ll_code_number(unsigned code, char *buf, unsigned len);

/* {name(i): c[i], ...} for the nonzero c[0..n); NULL on allocation failure. */
json_t *ll_json_counts(const uint64_t *c, unsigned n, ll_code_name_fn *name);

#endif /* LOADLENS_JSON_COUNTS_H */
