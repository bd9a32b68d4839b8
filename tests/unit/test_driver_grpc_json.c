// SPDX-License-Identifier: MIT
/*
 * A gRPC message's JSON held to RFC 8259 and protobuf's JSON mapping (driver/grpc/grpc_json.cc):
 * what libprotobuf 3.21 took and encoded (a trailing comma, single quotes, a key twice, "yes" for
 * a bool, a lone value for a repeated field) is refused in one line naming the field; what the
 * mapping allows still encodes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "grpc/grpc_msg.h"

static char tmpdir[] = "/tmp/ll_grpc_json_XXXXXX";
static char proto[300];

static const char kProto[] =
	"syntax = \"proto3\";\npackage t;\n"
	"import \"google/protobuf/wrappers.proto\";\n"
	"service S { rpc M(Req) returns (Req); }\n"
	"message Sub { bool on = 1; repeated string tags = 2; }\n"
	"message Req {\n"
	"  string key = 1; bool flag = 2; repeated int32 ids = 3; Sub sub = 4;\n"
	"  map<string, Sub> m = 5; repeated Sub subs = 6; uint64 big = 7; string two_words = 8;\n"
	"  oneof o { string a = 9; string b = 10; }\n"
	"  google.protobuf.BoolValue wrapped = 11;\n"
	"}\n";

/* json for /t.S/M: 0, or -EINVAL with the line in err */
static int set(const char *json, char *err, size_t errlen)
{
	struct drv_grpc_msgs *m = drv_grpc_msgs_new(proto, err, errlen);
	int r;

	if (!m)
		fail_msg("%s", err);
	r = drv_grpc_msgs_set(m, "/t.S/M", json, strlen(json), "--message", err, errlen);
	drv_grpc_msgs_free(m);
	return r;
}

static void refused(const char *json, const char *want)
{
	char err[512] = "";

	if (set(json, err, sizeof(err)) != -EINVAL)
		fail_msg("%s: accepted; expected '%s'", json, want);
	if (!strstr(err, want))
		fail_msg("%s: '%s' does not say '%s'", json, err, want);
	assert_null(strchr(err, '\n'));
}

static void accepted(const char *json)
{
	char err[512] = "";

	if (set(json, err, sizeof(err)))
		fail_msg("%s refused: %s", json, err);
}

static void test_syntax(void **state)
{
	(void)state;
	refused("{\"key\":\"a\",}", "not strict JSON (RFC 8259): string or '}' expected near '}' "
				    "at line 1 column 12");
	refused("{\"ids\":[1,]}", "not strict JSON (RFC 8259)");
	refused("{'key':'a'}", "not strict JSON (RFC 8259)");
	refused("{\"key\":\"a\"} x", "end of file expected");
	refused("{\"key\":\"a\",\"key\":\"b\"}", "duplicate object key near '\"key\"'");
	refused("{\"sub\":{\"on\":true,\"on\":false}}", "duplicate object key");
	refused("{\"key\":\"\\xff\"}", "not strict JSON");
	/* a templated number zero-padded to its width is no JSON number: the hint */
	refused("{\"ids\":[{{rand:1-100}}]}", "quote it");
}

static void test_shapes(void **state)
{
	(void)state;
	refused("{\"flag\":\"yes\"}", "flag: a bool is true or false, not the string \"yes\"");
	refused("{\"flag\":\"true\"}", "flag: a bool is true or false");
	refused("{\"flag\":1}", "flag: a bool is true or false, not a number");
	refused("{\"ids\":5}", "ids: a repeated field takes a JSON array, not a number");
	refused("{\"ids\":\"5\"}", "ids: a repeated field takes a JSON array, not the string");
	refused("{\"sub\":{\"tags\":\"x\"}}", "sub.tags: a repeated field takes a JSON array");
	refused("{\"subs\":[{},{\"on\":\"yes\"}]}", "subs[1].on: a bool is true or false");
	refused("{\"m\":[]}", "m: a map field takes a JSON object, not an array");
	refused("{\"m\":{\"k\":{\"on\":\"no\"}}}", "m[\"k\"].on: a bool is true or false");
	refused("{\"sub\":5}", "sub: a message is a JSON object, not a number");
	refused("[]", "t.Req: a message is a JSON object, not an array");
	/* one field by its two names; two members of a oneof */
	refused("{\"two_words\":\"x\",\"twoWords\":\"y\"}", "twoWords: the field two_words again");
	refused("{\"a\":\"x\",\"b\":\"y\"}", "a and b are of one oneof (o)");
}

static void test_mapping_allows(void **state)
{
	(void)state;
	accepted("{}");
	accepted(" {\"key\":\"a\", \"flag\":true, \"ids\":[1,2,\"3\"], \"sub\":{\"on\":false,"
		 "\"tags\":[\"x\"]}, \"m\":{\"k\":{}}, \"subs\":[{}], \"twoWords\":\"w\"} ");
	accepted("{\"ids\":null,\"sub\":null,\"flag\":null,\"a\":\"x\",\"b\":null}");
	accepted("{\"key\":\"\\u0000\\u00e9\"}");
	accepted("{\"big\":18446744073709551615}"); /* uint64's top: no syntax error */
	accepted("{\"big\":\"18446744073709551615\"}");
	accepted("{\"wrapped\":true}"); /* a well-known type's own form: libprotobuf's */
	accepted("{\"key\":\"k{{seq}}\",\"ids\":[{{rand:1-9}}]}");
}

static int setup(void **state)
{
	FILE *f;

	(void)state;
	if (ll_tmpdir_make(tmpdir))
		return -1;
	snprintf(proto, sizeof(proto), "%s/t.proto", tmpdir);
	f = fopen(proto, "w");
	if (!f)
		return -1;
	fputs(kProto, f);
	return fclose(f);
}

static int teardown(void **state)
{
	(void)state;
	return ll_tmpdir_remove(tmpdir);
}

LL_TEST_MAIN_GROUP(setup, teardown, test_syntax, test_shapes, test_mapping_allows)
