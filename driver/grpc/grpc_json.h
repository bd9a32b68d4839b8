/* SPDX-License-Identifier: MIT */
/*
 * A gRPC message's JSON held to RFC 8259 and protobuf's JSON mapping before libprotobuf encodes
 * it (C++, for grpc_msg.cc). libprotobuf 3.21's JSON parser takes a trailing comma, single
 * quotes, a key given twice (the last wins), "yes" for a bool and a lone value for a repeated
 * field; here the text is parsed by jansson (duplicate keys refused), then walked against the
 * message's descriptor: a bool is true or false, a repeated field an array, a map and a message
 * an object, a field named once (by its JSON name or its own), one member per oneof. What the
 * walk leaves (unknown fields, strings and numbers, enums, base64, the well-known types' own
 * forms) libprotobuf checks as it encodes.
 */
#ifndef LOADLENS_DRV_GRPC_JSON_H
#define LOADLENS_DRV_GRPC_JSON_H

#include <cstddef>
#include <string>
#include <google/protobuf/descriptor.h>

namespace drv {

/*
 * "" when json is strict JSON fit for type (NULL: any strict JSON); else one line saying what is
 * wrong and where. *at (when given): the byte offset of a syntax error, or std::string::npos.
 */
std::string strict_json(const google::protobuf::Descriptor *type, const std::string &json,
			size_t *at);

} // namespace drv

#endif /* LOADLENS_DRV_GRPC_JSON_H */
