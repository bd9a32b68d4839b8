/* SPDX-License-Identifier: MIT */
/*
 * A gRPC call's request message (grpc:// and grpcs:// targets). The user's .proto is parsed at
 * run time by libprotobuf (compiler::Importer), the method named by a path
 * `/package.Service/Method` is looked up and must be unary, and its input message is given as
 * JSON (protobuf's JSON mapping), optionally templated ({{seq}}, {{rand:LO-HI}}, {{zipf:N:S}},
 * template.h). libprotobuf encodes it: a JSON without fields once at load; a templated one per
 * request, either by writing the fields' digits into the message libprotobuf encoded at load
 * (when every field lands verbatim in a string, which load proves by encoding probe values) or
 * by encoding the expanded JSON again. Each message goes out with its gRPC prefix (a compressed
 * flag 0 and a 4-byte big-endian length). Several records (--requests-file lines
 * `weight=N /kv.Store/Put {"key":"k{{seq}}"}`) are chosen as reqmix.h chooses (weights, --seed)
 * and counted per record. Implemented in C++ (grpc_msg.cc) behind this C interface.
 */
#ifndef LOADLENS_DRV_GRPC_MSG_H
#define LOADLENS_DRV_GRPC_MSG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DRV_GRPC_PREFIX 5 /* a message's prefix: compressed flag, 4-byte big-endian length */

struct drv_reqmix;
struct drv_mix_ctx;
struct drv_grpc_msgs;

/*
 * proto_path's services and messages (its folder and /usr/include on the import path, for
 * google/protobuf/ imports), or none when proto_path is NULL: then every call sends an empty
 * message (valid for any proto3 type). NULL with one line in err, errno set.
 */
struct drv_grpc_msgs *drv_grpc_msgs_new(const char *proto_path, char *err, size_t errlen);
void drv_grpc_msgs_free(struct drv_grpc_msgs *m);
/*
 * One message for every call: the method path and its JSON (len bytes, a template; NULL or
 * empty: "{}"), what names the JSON in messages ("--message"). 0, or -EINVAL with one line in
 * err: a bad path, an unknown service or method, a streaming method, JSON that does not match
 * the input type (the field named), a bad template field.
 */
int drv_grpc_msgs_set(struct drv_grpc_msgs *m, const char *path, const char *json, size_t len,
		      const char *what, char *err, size_t errlen);
/*
 * A --requests-file mix instead (borrowed: it outlives m): each record's label is
 * `/package.Service/Method JSON`, its template the JSON (reqmix.c). Errors as for _set, with the
 * record's number.
 */
int drv_grpc_msgs_set_mix(struct drv_grpc_msgs *m, const struct drv_reqmix *mix, char *err,
			  size_t errlen);
/* The bytes a buffer needs for any message of m, prefix included. */
size_t drv_grpc_msgs_max_len(const struct drv_grpc_msgs *m);
/* Records (1 without a mix), and record rec's method path ("/kv.Store/Put"). */
uint32_t drv_grpc_msgs_count(const struct drv_grpc_msgs *m);
const char *drv_grpc_msgs_path(const struct drv_grpc_msgs *m, uint32_t rec);
/* How record rec is made per request: "static", "patched" or "encoded" (tests, -v). */
const char *drv_grpc_msgs_how(const struct drv_grpc_msgs *m, uint32_t rec);

/*
 * Per request, from any thread with its own ctx (reqmix.h, drv_mix_ctx_init): the next call's
 * record, its method path, and its prefixed message in buf. Returns the length, or 0 when cap is
 * too small or the expanded JSON did not encode (a template value out of its field's range:
 * count it as an error; load checked each field's lowest and highest value).
 */
size_t drv_grpc_msg_next(const struct drv_grpc_msgs *m, struct drv_mix_ctx *ctx, char *buf,
			 size_t cap, const char **path, uint32_t *rec);

#ifdef __cplusplus
}
#endif

#endif /* LOADLENS_DRV_GRPC_MSG_H */
