/* SPDX-License-Identifier: MIT */
/*
 * A gRPC call's request message (grpc:// and grpcs:// targets). The user's .proto is parsed at
 * run time by libprotobuf (compiler::Importer), the method named by a path
 * `/package.Service/Method` is looked up and must be unary, and its input message is given as
 * JSON (protobuf's JSON mapping), optionally templated ({{seq}}, {{rand:LO-HI}}, {{zipf:N:S}},
 * template.h). libprotobuf encodes it: a JSON without fields once at load; a templated one per
 * request, either by writing the fields' digits into the message libprotobuf encoded at load
 * (when every field lands verbatim in a string, which load proves by encoding probe values) or
 * by encoding the expanded JSON again. The HTTP/2 engine (h2/h2_stream.c) writes the
 * 5-byte gRPC prefix (compressed flag, big-endian length) before it. Several records
 * (--requests-file lines `weight=N /kv.Store/Put {"key":"k{{seq}}"}`) are chosen as reqmix.h
 * chooses (weights, --seed) and counted per record. Implemented in C++ (grpc_msg.cc) behind
 * this C interface.
 */
#ifndef LOADLENS_LL_GRPC_MSG_H
#define LOADLENS_LL_GRPC_MSG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LL_GRPC_NO_REC UINT32_MAX /* drv_grpc_msg_next(): the call is no record of a mix */
#define LL_GRPC_MSG_FAILED SIZE_MAX /* drv_grpc_msg_next(): no message (count the call failed) */

struct drv_reqmix;
struct drv_mix_ctx;
struct drv_grpc_msgs;

/*
 * proto_path's services and messages (its folder and /usr/include on the import path, for
 * google/protobuf/ imports), or none when proto_path is NULL: then every call sends an empty
 * message (valid for any proto3 type). NULL with one line in err, errno set.
 */
struct drv_grpc_msgs *drv_grpc_msgs_new(const char *proto_path, char *err, size_t errlen);
/* The same with n more folders to look imports up in, after proto_path's own (--import-path,
 * protoc's -I; before /usr/include). A file nested too deep is refused (proto_scan.h). */
struct drv_grpc_msgs *drv_grpc_msgs_new_with(const char *proto_path,
					     const char *const *import_paths, unsigned n,
					     char *err, size_t errlen);
/* drv_grpc_msgs_free(NULL) is a no-op. */
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
 * `/package.Service/Method JSON`, its template the JSON (grpc_config.c). Errors as for _set, with the
 * record's number.
 */
int drv_grpc_msgs_set_mix(struct drv_grpc_msgs *m, const struct drv_reqmix *mix, char *err,
			  size_t errlen);
/* The longest message drv_grpc_msg_next() writes (0 for NULL: the empty message only). */
size_t drv_grpc_msg_max(const struct drv_grpc_msgs *m);
/* Records (1 without a mix), and record rec's method path ("/kv.Store/Put"). */
uint32_t drv_grpc_msgs_count(const struct drv_grpc_msgs *m);
const char *drv_grpc_msgs_path(const struct drv_grpc_msgs *m, uint32_t rec);
/* How record rec is made per request: "static", "patched" or "encoded" (tests, -v). */
const char *drv_grpc_msgs_how(const struct drv_grpc_msgs *m, uint32_t rec);

/*
 * The next call, on a worker thread with its own ctx (reqmix.h, drv_mix_ctx_init): its serialized
 * message into buf (cap >= drv_grpc_msg_max()), its method path into *path ("/package.Service/
 * Method", stable for the run; NULL: the target URL's), and the --requests-file record it came
 * from into *rec (LL_GRPC_NO_REC: none, so no per-record count). Returns the message's length
 * (m NULL: the empty message, 0), or LL_GRPC_MSG_FAILED when it could not be made: a cap under
 * drv_grpc_msg_max(), or an expanded JSON that did not encode (load encoded every field at its
 * lowest and highest value, so only a value between them that its type refuses, or no memory).
 */
size_t drv_grpc_msg_next(const struct drv_grpc_msgs *m, struct drv_mix_ctx *ctx, char *buf,
			 size_t cap, const char **path, uint32_t *rec);

#ifdef __cplusplus
}
#endif

#endif /* LOADLENS_LL_GRPC_MSG_H */
