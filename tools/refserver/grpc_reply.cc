// SPDX-License-Identifier: MIT
/* The refserver's gRPC reply message with --response-size, serialised by libprotobuf. */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <google/protobuf/unknown_field_set.h>
#include "grpc_reply.h"

#define RS_REPLY_FIELD 15

int rs_grpc_reply_encode(const char *bytes, size_t len, char **out, size_t *outlen)
{
	try {
		google::protobuf::UnknownFieldSet fields;
		std::string wire;
		char *p;

		fields.AddLengthDelimited(RS_REPLY_FIELD, std::string(bytes, len));
		if (!fields.SerializeToString(&wire))
			return -ENOMEM;
		p = static_cast<char *>(malloc(wire.size()));
		if (!p)
			return -ENOMEM;
		memcpy(p, wire.data(), wire.size());
		*out = p;
		*outlen = wire.size();
		return 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
}
