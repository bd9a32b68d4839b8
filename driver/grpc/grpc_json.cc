// SPDX-License-Identifier: MIT
/* Strict message JSON: jansson's parse, then a walk against the descriptor (grpc_json.h). */
#include <map>
#include <memory>
#include <string>
#include <jansson.h>
#include "grpc/grpc_json.h"

namespace pb = google::protobuf;

namespace {

struct JsonFree {
	void operator()(json_t *j) const
	{
		json_decref(j);
	}
};

/* What a value is, for a message: `the string "yes"`, `a number`, `an array`. */
std::string describe(const json_t *v)
{
	std::string s;

	switch (json_typeof(v)) {
	case JSON_STRING:
		s.assign(json_string_value(v), json_string_length(v));
		if (s.size() > 40)
			s = s.substr(0, 40) + "...";
		return "the string \"" + s + "\"";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	default:
		return "null";
	}
}

/* The well-known types (Timestamp, Duration, Struct, Any, wrappers...) have JSON forms of their
 * own: libprotobuf checks them. */
bool well_known(const pb::Descriptor *d)
{
	return d->file()->name().compare(0, 16, "google/protobuf/") == 0;
}

/* A key names a field by its JSON name or its own, as libprotobuf reads them. */
const pb::FieldDescriptor *find_field(const pb::Descriptor *d, const char *key)
{
	for (int i = 0; i < d->field_count(); i++)
		if (d->field(i)->json_name() == key)
			return d->field(i);
	return d->FindFieldByName(key);
}

std::string walk(const pb::Descriptor *d, const json_t *obj, const std::string &at);

/* One value of field f (an element, for a repeated field; the value, for a map). */
std::string value(const pb::FieldDescriptor *f, const json_t *v, const std::string &at)
{
	if (json_is_null(v))
		return "";
	if (f->type() == pb::FieldDescriptor::TYPE_BOOL && !json_is_boolean(v))
		return at + ": a bool is true or false, not " + describe(v);
	if (f->type() == pb::FieldDescriptor::TYPE_MESSAGE ||
	    f->type() == pb::FieldDescriptor::TYPE_GROUP)
		return walk(f->message_type(), v, at);
	return "";
}

std::string field(const pb::FieldDescriptor *f, const json_t *v, const std::string &at)
{
	const char *key;
	json_t *e;
	size_t i;
	std::string why;

	if (json_is_null(v))
		return "";
	if (f->is_map()) {
		if (!json_is_object(v))
			return at + ": a map field takes a JSON object, not " + describe(v);
		json_object_foreach(const_cast<json_t *>(v), key, e)
		{
			why = value(f->message_type()->map_value(), e, at + "[\"" + key + "\"]");
			if (!why.empty())
				return why;
		}
		return "";
	}
	if (f->is_repeated()) {
		if (!json_is_array(v))
			return at + ": a repeated field takes a JSON array, not " + describe(v);
		json_array_foreach(v, i, e)
		{
			why = value(f, e, at + "[" + std::to_string(i) + "]");
			if (!why.empty())
				return why;
		}
		return "";
	}
	return value(f, v, at);
}

/* An object for message type d: each field once, one member of a oneof, each value's shape. */
std::string walk(const pb::Descriptor *d, const json_t *obj, const std::string &at)
{
	std::map<int, std::string> named;	 /* field number: the key that named it */
	std::map<const void *, std::string> oneofs; /* oneof: its member's key */
	const pb::FieldDescriptor *f;
	const std::string where = at.empty() ? "" : at + ".";
	const char *key;
	json_t *v;
	std::string why;

	if (!d || well_known(d))
		return "";
	if (!json_is_object(obj))
		return (at.empty() ? d->full_name() : at) + ": a message is a JSON object, not " +
		       describe(obj);
	json_object_foreach(const_cast<json_t *>(obj), key, v)
	{
		f = find_field(d, key);
		if (!f)
			continue; /* libprotobuf names it: "Cannot find field" */
		if (named.count(f->number()))
			return where + key + ": the field " + f->name() + " again (as \"" +
			       named[f->number()] + "\" before)";
		named[f->number()] = key;
		if (f->real_containing_oneof() && !json_is_null(v)) {
			const void *o = f->real_containing_oneof();

			if (oneofs.count(o))
				return where + key + ": " + oneofs[o] + " and " + key +
				       " are of one oneof (" + f->real_containing_oneof()->name() +
				       "): give one";
			oneofs[o] = key;
		}
		why = field(f, v, where + key);
		if (!why.empty())
			return why;
	}
	return "";
}

} // namespace

namespace drv {

std::string strict_json(const pb::Descriptor *type, const std::string &json, size_t *at)
{
	json_error_t e;
	/* any top-level value (a well-known type may be a string); \u0000 is a string's right;
	 * numbers as doubles, so that uint64's range is no syntax error (libprotobuf reads them) */
	std::unique_ptr<json_t, JsonFree> root(json_loadb(
		json.data(), json.size(),
		JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL,
		&e));

	if (at)
		*at = std::string::npos;
	if (!root) {
		if (at && e.position >= 0)
			*at = (size_t)e.position;
		return std::string("not strict JSON (RFC 8259): ") + e.text + " at line " +
		       std::to_string(e.line) + " column " + std::to_string(e.column);
	}
	return walk(type, root.get(), "");
}

} // namespace drv
