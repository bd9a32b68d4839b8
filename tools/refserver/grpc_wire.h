/* SPDX-License-Identifier: MIT */
/*
 * The pure parts of the refserver's gRPC (docs/refserver.md, "gRPC"): the status codes and their
 * names, --grpc-status CODE:N, the request checks (content-type, method path), the scan of a
 * request body's length-prefixed messages, and the bounded per-method call counts. No I/O, no
 * nghttp2: tests/unit/test_refserver_grpc.c tests them without a server.
 */
#ifndef LOADLENS_GRPC_WIRE_H
#define LOADLENS_GRPC_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RS_GRPC_NSTATUS 17	  /* codes 0 (OK) .. 16 (UNAUTHENTICATED) */
#define RS_GRPC_PATH_MAX 256	  /* longest method path counted by name, NUL included */
#define RS_GRPC_METHODS_MAX 64	  /* distinct method paths counted by name per worker */
#define RS_GRPC_PREFIX 5	  /* message prefix: 1-byte flag, 4-byte big-endian length */

enum {
	RS_GRPC_OK = 0,
	RS_GRPC_INVALID_ARGUMENT = 3,
	RS_GRPC_UNIMPLEMENTED = 12,
	RS_GRPC_INTERNAL = 13,
};

/* "OK", "CANCELLED", ... for 0..16; NULL for any other code. */
const char *rs_grpc_status_name(int code);

/* A code as a number (0..16) or a name (any case: "RESOURCE_EXHAUSTED"); 0 or -EINVAL. */
int rs_grpc_status_parse(const char *s, int *code);

/* --grpc-status CODE:N, N in 1..2^32-1; 0 or -EINVAL (nothing written then). */
int rs_grpc_status_every_parse(const char *s, int *code, uint64_t *every);

/* content-type application/grpc, or application/grpc+FORMAT, or with ;parameters. */
bool rs_grpc_content_type_ok(const char *v, size_t len);

/* A method path /SERVICE/METHOD: both parts non-empty, no other '/'. */
bool rs_grpc_path_ok(const char *p, size_t len);

/*
 * The length-prefixed messages of a request body, fed as it arrives in any pieces: how many
 * messages were complete, and whether the body ended between two messages
 * (rs_grpc_scan_complete) or inside one.
 */
struct rs_grpc_scan {
	uint64_t messages;
	uint32_t left; /* payload bytes of the current message still to come */
	uint8_t hdr[RS_GRPC_PREFIX];
	uint8_t have; /* prefix bytes of the next message seen so far */
};

void rs_grpc_scan_feed(struct rs_grpc_scan *s, const uint8_t *p, size_t n);
bool rs_grpc_scan_complete(const struct rs_grpc_scan *s);

/* Calls by method path: RS_GRPC_METHODS_MAX paths by name, then the rest in `other`. */
struct rs_grpc_methods {
	struct {
		char path[RS_GRPC_PATH_MAX];
		uint64_t calls;
	} m[RS_GRPC_METHODS_MAX];
	unsigned n;
	uint64_t other; /* calls to paths beyond the table, or too long to keep */
};

void rs_grpc_methods_count(struct rs_grpc_methods *t, const char *path, size_t len);
/* Add src's counts to dst's (the workers' tables merged at exit). */
void rs_grpc_methods_merge(struct rs_grpc_methods *dst, const struct rs_grpc_methods *src);

#endif /* LOADLENS_GRPC_WIRE_H */
