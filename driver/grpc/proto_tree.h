/* SPDX-License-Identifier: MIT */
/*
 * Where libprotobuf reads the user's .proto files from (C++, for grpc_msg.cc): the file's own
 * folder, each --import-path, then /usr/include (google/protobuf/ imports), every file read
 * whole and refused before libprotobuf parses it when it is larger than DRV_PROTO_MAX_BYTES or
 * nested deeper than DRV_PROTO_MAX_DEPTH (proto_scan.h); and libprotobuf's own log lines kept
 * off stderr while it loads, so that a refusal is our one line.
 */
#ifndef LOADLENS_DRV_PROTO_TREE_H
#define LOADLENS_DRV_PROTO_TREE_H

#include <string>
#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/stubs/logging.h>

namespace drv {

class BoundedSourceTree : public google::protobuf::compiler::SourceTree {
public:
	/* Folders in lookup order, as protoc's -I (an empty virtual path each). */
	void MapPath(const std::string &dir)
	{
		disk_.MapPath("", dir);
	}
	google::protobuf::io::ZeroCopyInputStream *Open(const std::string &name) override;
	std::string GetLastErrorMessage() override
	{
		return last_;
	}

private:
	google::protobuf::compiler::DiskSourceTree disk_;
	std::string last_;
};

/* While one lives, libprotobuf's GOOGLE_LOG lines (the parser's "No syntax specified" WARNING)
 * are dropped: what matters reaches the error collector. Load time only (one thread). */
class QuietProtobufLogs {
public:
	QuietProtobufLogs();
	~QuietProtobufLogs();
	QuietProtobufLogs(const QuietProtobufLogs &) = delete;
	QuietProtobufLogs &operator=(const QuietProtobufLogs &) = delete;

private:
	google::protobuf::LogHandler *prev_;
};

} // namespace drv

#endif /* LOADLENS_DRV_PROTO_TREE_H */
