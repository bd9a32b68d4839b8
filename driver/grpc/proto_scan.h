/* SPDX-License-Identifier: MIT */
/*
 * A cheap look at a .proto before libprotobuf parses it: how deep its brackets nest.
 * libprotobuf recurses once per level and its API sets no bound (3.21: 16,000 nested messages
 * overflow the stack, SIGSEGV; its limit of 32 nested messages comes too late), so a file nested
 * deeper than DRV_PROTO_MAX_DEPTH is refused before libprotobuf reads it (proto_tree.cc).
 */
#ifndef LOADLENS_DRV_PROTO_SCAN_H
#define LOADLENS_DRV_PROTO_SCAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libprotobuf's own limits are 32 nested messages and 100 levels of an option's text-format
 * value: nothing it takes nests deeper than this */
#define DRV_PROTO_MAX_DEPTH 200
/* a .proto larger than this is no service definition */
#define DRV_PROTO_MAX_BYTES (16u << 20)

/*
 * The deepest nesting of { [ ( < in s[0..n), outside comments and string literals, counted up
 * to limit + 1: the scan stops there and *line (when given) is the 1-based line where the
 * nesting passed limit. A result of limit or less is the file's whole depth.
 */
unsigned drv_proto_depth(const char *s, size_t n, unsigned limit, unsigned *line);

#ifdef __cplusplus
}
#endif

#endif /* LOADLENS_DRV_PROTO_SCAN_H */
