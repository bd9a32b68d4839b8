// SPDX-License-Identifier: MIT
/* The user's .proto files read whole and bounded before libprotobuf parses them (proto_tree.h). */
#include <memory>
#include <string>
#include <utility>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

extern "C" {
#include "grpc/proto_scan.h"
}
#include "grpc/proto_tree.h"

namespace pb = google::protobuf;

namespace {

/* An input stream over bytes it owns. */
class OwnedStream : public pb::io::ZeroCopyInputStream {
public:
	explicit OwnedStream(std::string &&bytes)
		: bytes_(std::move(bytes)), in_(bytes_.data(), (int)bytes_.size())
	{
	}
	bool Next(const void **data, int *size) override
	{
		return in_.Next(data, size);
	}
	void BackUp(int count) override
	{
		in_.BackUp(count);
	}
	bool Skip(int count) override
	{
		return in_.Skip(count);
	}
	int64_t ByteCount() const override
	{
		return in_.ByteCount();
	}

private:
	std::string bytes_; /* before in_, which points into it */
	pb::io::ArrayInputStream in_;
};

} // namespace

namespace drv {

pb::io::ZeroCopyInputStream *BoundedSourceTree::Open(const std::string &name)
{
	std::unique_ptr<pb::io::ZeroCopyInputStream> in(disk_.Open(name));
	std::string bytes;
	const void *data;
	unsigned line = 0;
	int size;

	if (!in) {
		last_ = disk_.GetLastErrorMessage();
		return nullptr;
	}
	while (in->Next(&data, &size)) {
		if (bytes.size() + (size_t)size > DRV_PROTO_MAX_BYTES) {
			last_ = "larger than " + std::to_string(DRV_PROTO_MAX_BYTES >> 20) +
				" MiB: not read";
			return nullptr;
		}
		bytes.append((const char *)data, (size_t)size);
	}
	if (drv_proto_depth(bytes.data(), bytes.size(), DRV_PROTO_MAX_DEPTH, &line) >
	    DRV_PROTO_MAX_DEPTH) {
		last_ = "nested more than " + std::to_string(DRV_PROTO_MAX_DEPTH) +
			" levels deep (line " + std::to_string(line) +
			"): refused before parsing, libprotobuf would overflow its stack";
		return nullptr;
	}
	return new OwnedStream(std::move(bytes));
}

QuietProtobufLogs::QuietProtobufLogs() : prev_(pb::SetLogHandler(nullptr)) /* nullptr: dropped */
{
}

QuietProtobufLogs::~QuietProtobufLogs()
{
	pb::SetLogHandler(prev_);
}

} // namespace drv
