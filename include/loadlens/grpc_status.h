/* SPDX-License-Identifier: MIT */
/*
 * gRPC's status codes (grpc/doc/statuscodes.md) as the driver and the observer count them: their
 * names (the JSON keys), a hint for each, the value of a grpc-status header, and --timeout as a
 * grpc-timeout header (grpc/doc/PROTOCOL-HTTP2.md). Pure; tests/unit/test_driver_grpc.c.
 */
#ifndef LOADLENS_GRPC_STATUS_H
#define LOADLENS_GRPC_STATUS_H

#include <stddef.h>
#include <stdint.h>

#define LL_GRPC_OK 0
#define LL_GRPC_UNKNOWN 2
#define LL_GRPC_CODES 17 /* 0 OK .. 16 UNAUTHENTICATED; a code past them is counted as "other" */
#define LL_GRPC_OTHER LL_GRPC_CODES

/* "OK", "CANCELLED", ... "UNAUTHENTICATED"; "other" for LL_GRPC_OTHER; NULL beyond. */
const char *ll_grpc_status_name(unsigned code);
/* The same as an ll_code_name_fn (loadlens/json_counts.h): buf is not used. */
const char *ll_grpc_status_key(unsigned code, char *buf, unsigned len);
/* A code by number ("8") or name ("RESOURCE_EXHAUSTED", any case): 0..16, or -1. */
int ll_grpc_status_from_name(const char *s);
/* What a code from the server usually means and what to check. */
const char *ll_grpc_status_hint(unsigned code);
/*
 * A grpc-status header's value (len bytes, not NUL-terminated): the code's index in the counts
 * (0..16, LL_GRPC_OTHER for a larger number), or -1 when it is not a decimal number.
 */
int ll_grpc_status_parse(const uint8_t *v, size_t len);
/*
 * ns as a grpc-timeout value into buf: at most 8 digits and a unit (n u m S M H), the finest unit
 * that holds it, rounded up so the server never gets less time than asked. Returns its length
 * (0 when ns is 0: no header).
 */
size_t ll_grpc_timeout(uint64_t ns, char *buf, size_t len);

#endif /* LOADLENS_GRPC_STATUS_H */
