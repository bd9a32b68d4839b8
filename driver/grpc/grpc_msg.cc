// SPDX-License-Identifier: MIT
/* gRPC request messages from a .proto and JSON templates, encoded by libprotobuf (grpc_msg.h). */
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#include <sys/stat.h>
#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver_util.h>

extern "C" {
#include "config/reqmix.h"
#include "config/template.h"
#include "config/quote.h"
}
#include "grpc/grpc_msg.h"
#include "grpc/grpc_json.h"
#include "grpc/proto_tree.h"

namespace pb = google::protobuf;

namespace {

const char kTypeUrlPrefix[] = "type.googleapis.com";

enum class How { Static, Patched, Encoded };

struct Record {
	std::string path;		/* "/kv.Store/Put" */
	std::string what;		/* what the JSON came from, for messages */
	const pb::Descriptor *type = nullptr; /* the input type, or none (no .proto) */
	const pb::Message *proto = nullptr;   /* its prototype (the factory's) */
	std::string type_url;
	const struct drv_tpl *tpl = nullptr;	/* the JSON template (own_tpl or the mix's) */
	struct drv_tpl own_tpl = {};
	bool owns_tpl = false;
	How how = How::Static;
	std::string bytes;		/* Static and Patched: the message */
	size_t pos[DRV_TPL_MAX_FIELDS] = {}; /* Patched: where field i's digits go in bytes */
	size_t max_len = 0;
};

/* protoc's first error, as protoc prints it: FILE:LINE:COL: message. */
class FirstError : public pb::compiler::MultiFileErrorCollector {
public:
	void AddError(const std::string &file, int line, int col, const std::string &msg) override
	{
		if (!first.empty())
			return;
		first = line < 0 ? file + ": " + msg
				 : file + ":" + std::to_string(line + 1) + ":" +
					   std::to_string(col + 1) + ": " + msg;
	}
	std::string first;
};

/* drv_errf's message cut to its first line: libprotobuf's JSON errors may point at the column
 * below the text. Returns r. */
int first_line(char *err, size_t errlen, int r)
{
	if (err && errlen)
		err[strcspn(err, "\n")] = '\0';
	return r;
}

/* An error message (quote.h's drv_errf), on one line; returns -EINVAL. */
#define fail(err, errlen, ...) first_line(err, errlen, drv_errf(err, errlen, __VA_ARGS__))

/* A status's message on one line. */
std::string one_line(const pb::util::Status &s)
{
	std::string m(s.message());

	return m.substr(0, m.find('\n'));
}

/* A field's digits at a probe: A "1234567891...", B each digit of A plus one ("2345678902..."),
 * so that the two differ at every digit; or its lowest or highest real value. */
enum Probe { PROBE_A, PROBE_B, PROBE_LO, PROBE_HI };

void probe_field(const struct drv_tpl_field *f, Probe p, char *out)
{
	uint64_t v = p == PROBE_LO ? f->lo : f->hi;
	int d;

	if (p == PROBE_A || p == PROBE_B) {
		for (d = 0; d < f->width; d++)
			out[d] = (char)('0' + (1 + d % 9 + (p == PROBE_B)) % 10);
		return;
	}
	if (f->kind == DRV_TPL_SEQ)
		v = p == PROBE_LO ? 0 : 9999999999ULL;
	for (d = f->width - 1; d >= 0; d--) {
		out[d] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* The template with every field at probe p, field only at probe q (when only >= 0). */
std::string probe_json(const struct drv_tpl *t, Probe p, int only = -1, Probe q = PROBE_A)
{
	std::string s(t->text, t->len);

	for (unsigned i = 0; i < t->nfields; i++)
		probe_field(&t->f[i], (int)i == only ? q : p, &s[t->f[i].at]);
	return s;
}

/* A syntax error at byte at falls in a template field (or just after it). */
bool in_field(const struct drv_tpl *t, size_t at)
{
	for (unsigned i = 0; at != std::string::npos && i < t->nfields; i++)
		if (at >= t->f[i].at && at <= t->f[i].at + t->f[i].width + 1)
			return true;
	return false;
}

} // namespace

struct drv_grpc_msgs {
	std::string file; /* as given, for messages */
	std::unique_ptr<drv::BoundedSourceTree> tree;
	std::unique_ptr<FirstError> errors;
	std::unique_ptr<pb::compiler::Importer> importer;
	const pb::FileDescriptor *fd = nullptr;
	std::unique_ptr<pb::DynamicMessageFactory> factory;
	std::unique_ptr<pb::util::TypeResolver> resolver; /* read-only: shared by the threads */
	std::vector<Record> recs;
	const struct drv_reqmix *mix = nullptr;
	size_t max_len = 0;
	size_t max_json = 0;

	~drv_grpc_msgs()
	{
		clear();
	}

	/* The records gone (a record's own template is freed here: records are copied around) */
	void clear()
	{
		for (Record &r : recs)
			if (r.owns_tpl)
				drv_tpl_free(&r.own_tpl);
		recs.clear();
		mix = nullptr;
		max_len = max_json = 0;
	}

	/* json → the message through a DynamicMessage (canonical: as protoc encodes it). */
	bool encode(const Record &r, const std::string &json, std::string *out,
		    std::string *why) const
	{
		std::unique_ptr<pb::Message> msg(r.proto->New());
		pb::util::Status s = pb::util::JsonStringToMessage(json, msg.get());

		if (!s.ok()) {
			*why = one_line(s);
			return false;
		}
		out->clear();
		if (!msg->SerializeToString(out)) {
			*why = "a required field is missing";
			return false;
		}
		return true;
	}

	int method(Record &r, char *err, size_t errlen) const;
	int message(Record &r, char *err, size_t errlen) const;
	bool patchable(Record &r) const;
};

struct drv_grpc_msgs *drv_grpc_msgs_new(const char *proto_path, char *err, size_t errlen)
{
	return drv_grpc_msgs_new_with(proto_path, nullptr, 0, err, errlen);
}

struct drv_grpc_msgs *drv_grpc_msgs_new_with(const char *proto_path,
					     const char *const *import_paths, unsigned n,
					     char *err, size_t errlen)
{
	std::unique_ptr<drv_grpc_msgs> m;
	std::string dir, base;
	struct stat st;
	size_t slash;

	try {
		drv::QuietProtobufLogs quiet; /* our one line, not libprotobuf's too */

		m.reset(new drv_grpc_msgs);
		if (!proto_path) {
			errno = 0;
			return m.release();
		}
		m->file = proto_path;
		if (stat(proto_path, &st)) {
			fail(err, errlen, "--proto-file %s: %s", proto_path, strerror(errno));
			errno = EINVAL;
			return nullptr;
		}
		if (!S_ISREG(st.st_mode)) {
			fail(err, errlen, "--proto-file %s: not a regular file", proto_path);
			errno = EINVAL;
			return nullptr;
		}
		slash = m->file.rfind('/');
		dir = slash == std::string::npos ? "." : m->file.substr(0, slash ? slash : 1);
		base = slash == std::string::npos ? m->file : m->file.substr(slash + 1);
		m->tree.reset(new drv::BoundedSourceTree);
		m->tree->MapPath(dir);
		for (unsigned i = 0; i < n; i++) /* --import-path, protoc's -I */
			m->tree->MapPath(import_paths[i]);
		/* google/protobuf/ imports (libprotobuf-dev) */
		m->tree->MapPath("/usr/include");
		m->errors.reset(new FirstError);
		m->importer.reset(new pb::compiler::Importer(m->tree.get(), m->errors.get()));
		m->fd = m->importer->Import(base);
		if (!m->fd) {
			fail(err, errlen, "--proto-file %s: %s", proto_path,
			     m->errors->first.empty() ? "does not parse"
						      : m->errors->first.c_str());
			errno = EINVAL;
			return nullptr;
		}
		m->factory.reset(new pb::DynamicMessageFactory(m->importer->pool()));
		m->resolver.reset(pb::util::NewTypeResolverForDescriptorPool(
			kTypeUrlPrefix, m->importer->pool()));
	} catch (const std::bad_alloc &) {
		fail(err, errlen, "--proto-file %s: out of memory", proto_path);
		errno = ENOMEM;
		return nullptr;
	}
	return m.release();
}

void drv_grpc_msgs_free(struct drv_grpc_msgs *m)
{
	delete m;
}

/* r.path → its method's input type; unary only. */
int drv_grpc_msgs::method(Record &r, char *err, size_t errlen) const
{
	const std::string &p = r.path;
	size_t cut = p.rfind('/');
	const pb::ServiceDescriptor *svc;
	const pb::MethodDescriptor *md;
	std::string svc_name, name, have;

	if (p.size() < 4 || p[0] != '/' || cut == 0 || cut + 1 == p.size() ||
	    p.find('/', 1) != cut)
		return fail(err, errlen, "'%s': expected a method path /package.Service/Method",
			    p.c_str());
	if (!fd)
		return 0; /* no .proto: empty messages, any method */
	svc_name = p.substr(1, cut - 1);
	name = p.substr(cut + 1);
	svc = importer->pool()->FindServiceByName(svc_name);
	if (!svc) {
		for (int i = 0; i < fd->service_count(); i++)
			have += (i ? ", " : "") + fd->service(i)->full_name();
		return fail(err, errlen, "%s: no service %s in %s (it has %s)", p.c_str(),
			    svc_name.c_str(), file.c_str(), have.empty() ? "none" : have.c_str());
	}
	md = svc->FindMethodByName(name);
	if (!md) {
		for (int i = 0; i < svc->method_count(); i++)
			have += (i ? ", " : "") + svc->method(i)->name();
		return fail(err, errlen, "%s: no method %s in service %s (it has %s)", p.c_str(),
			    name.c_str(), svc_name.c_str(), have.empty() ? "none" : have.c_str());
	}
	if (md->client_streaming() || md->server_streaming())
		return fail(err, errlen, "%s is a %s-streaming method: the driver makes unary "
			    "calls only", p.c_str(),
			    md->client_streaming() && md->server_streaming() ? "bidirectional"
			    : md->client_streaming() ? "client" : "server");
	r.type = md->input_type();
	r.proto = factory->GetPrototype(r.type);
	r.type_url = std::string(kTypeUrlPrefix) + "/" + r.type->full_name();
	return 0;
}

/* Patched: every field's digits land verbatim in the encoding (a string's bytes), proved by
 * changing one field at a time from probe A to probe B, then by the lowest and highest values. */
bool drv_grpc_msgs::patchable(Record &r) const
{
	const struct drv_tpl *t = r.tpl;
	std::string a, b, want, why;
	size_t i, j, first, last;
	char digits[UINT8_MAX + 1]; /* any width a field's uint8_t can hold (20 at most in use) */

	if (!encode(r, probe_json(t, PROBE_A), &a, &why))
		return false;
	for (i = 0; i < t->nfields; i++) {
		const struct drv_tpl_field *f = &t->f[i];

		if (!encode(r, probe_json(t, PROBE_A, (int)i, PROBE_B), &b, &why) ||
		    b.size() != a.size())
			return false;
		first = a.size();
		last = 0;
		for (j = 0; j < a.size(); j++) {
			if (a[j] != b[j]) {
				first = j < first ? j : first;
				last = j;
			}
		}
		if (first == a.size() || last - first + 1 != f->width)
			return false;
		probe_field(f, PROBE_A, digits);
		if (memcmp(&a[first], digits, f->width))
			return false;
		probe_field(f, PROBE_B, digits);
		if (memcmp(&b[first], digits, f->width))
			return false;
		r.pos[i] = first;
	}
	for (Probe p : {PROBE_LO, PROBE_HI}) {
		b = a;
		for (i = 0; i < t->nfields; i++)
			probe_field(&t->f[i], p, &b[r.pos[i]]);
		if (!encode(r, probe_json(t, p), &want, &why) || want != b)
			return false;
	}
	r.bytes = a;
	return true;
}

/* r.tpl → how its message is made per request. */
int drv_grpc_msgs::message(Record &r, char *err, size_t errlen) const
{
	const struct drv_tpl *t = r.tpl;
	std::string json(t->text, t->len), out, why;

	if (!r.type) { /* no .proto: the empty message */
		if (json.find_first_not_of(" \t\r\n{}") != std::string::npos ||
		    std::count(json.begin(), json.end(), '{') > 1)
			return fail(err, errlen, "%s: a message other than {} needs --proto-file",
				    r.path.c_str());
		why = drv::strict_json(nullptr, json, nullptr);
		if (!why.empty())
			return fail(err, errlen, "%s: %s: %s", r.path.c_str(), r.what.c_str(),
				    why.c_str());
		r.bytes.clear();
		r.max_len = 0;
		return 0;
	}
	if (!t->nfields) {
		why = drv::strict_json(r.type, json, nullptr);
		if (!why.empty() || !encode(r, json, &r.bytes, &why))
			return fail(err, errlen, "%s: %s from %s: %s", r.path.c_str(),
				    r.type->full_name().c_str(), r.what.c_str(), why.c_str());
		r.max_len = r.bytes.size();
		return 0;
	}
	/* every field at its lowest, then at its highest value must be strict JSON and encode */
	for (Probe p : {PROBE_LO, PROBE_HI}) {
		size_t at;

		json = probe_json(t, p);
		why = drv::strict_json(r.type, json, &at);
		if (why.empty() && encode(r, json, &out, &why))
			continue;
		return fail(err, errlen, "%s: %s from %s (fields at their %s values): %s%s",
			    r.path.c_str(), r.type->full_name().c_str(), r.what.c_str(),
			    p == PROBE_LO ? "lowest" : "highest", why.c_str(),
			    in_field(t, at) || why.find("Octal") != std::string::npos
			    ? " (a field is zero-padded to a fixed width: for a number, "
			      "quote it, \"{{rand:1-100}}\")" : "");
	}
	if (patchable(r)) {
		r.how = How::Patched;
		r.max_len = r.bytes.size();
		return 0;
	}
	r.how = How::Encoded;
	/* lengths vary with varints: 10 bytes more per field at most */
	r.max_len = out.size() + 10 * t->nfields;
	return 0;
}

static int add(struct drv_grpc_msgs *m, Record &r, char *err, size_t errlen)
{
	int e = m->method(r, err, errlen);

	if (!e)
		e = m->message(r, err, errlen);
	if (e)
		return e;
	if (r.max_len > m->max_len)
		m->max_len = r.max_len;
	if (r.tpl->len > m->max_json)
		m->max_json = r.tpl->len;
	return 0;
}

int drv_grpc_msgs_set(struct drv_grpc_msgs *m, const char *path, const char *json, size_t len,
		      const char *what, char *err, size_t errlen)
{
	char msg[256];

	try {
		m->clear();
		m->recs.emplace_back(); /* one record: its tpl pointer never moves */
		Record &r = m->recs.back();

		r.path = path ? path : "";
		r.what = what ? what : "JSON";
		if (!json || !len) {
			json = "{}";
			len = 2;
		}
		if (drv_tpl_parse(&r.own_tpl, json, len, msg, sizeof(msg))) {
			fail(err, errlen, "%s: %s", r.what.c_str(), msg);
			m->clear(); /* r with it: nothing of it used after */
			return -EINVAL;
		}
		r.owns_tpl = true;
		r.tpl = &r.own_tpl;
		return add(m, r, err, errlen);
	} catch (const std::bad_alloc &) {
		return fail(err, errlen, "out of memory");
	}
}

int drv_grpc_msgs_set_mix(struct drv_grpc_msgs *m, const struct drv_reqmix *mix, char *err,
			  size_t errlen)
{
	char msg[512];

	try {
		m->clear();
		m->recs.resize(mix->n);
		m->mix = mix;
		for (uint32_t i = 0; i < mix->n; i++) {
			Record &r = m->recs[i];
			const char *label = mix->rec[i].label;

			r.path.assign(label, strcspn(label, " \t"));
			r.what = "its JSON";
			r.tpl = &mix->rec[i].tpl;
			if (add(m, r, msg, sizeof(msg)))
				return fail(err, errlen, "record %u: %s", i + 1, msg);
		}
		if (mix->max_len > m->max_json)
			m->max_json = mix->max_len;
		return 0;
	} catch (const std::bad_alloc &) {
		return fail(err, errlen, "out of memory");
	}
}

size_t drv_grpc_msg_max(const struct drv_grpc_msgs *m)
{
	return m ? m->max_len : 0;
}

uint32_t drv_grpc_msgs_count(const struct drv_grpc_msgs *m)
{
	return m ? (uint32_t)m->recs.size() : 0;
}

const char *drv_grpc_msgs_path(const struct drv_grpc_msgs *m, uint32_t rec)
{
	return m && rec < m->recs.size() ? m->recs[rec].path.c_str() : nullptr;
}

const char *drv_grpc_msgs_how(const struct drv_grpc_msgs *m, uint32_t rec)
{
	static const char *const names[] = {"static", "patched", "encoded"};

	return m && rec < m->recs.size() ? names[(int)m->recs[rec].how] : nullptr;
}

size_t drv_grpc_msg_next(const struct drv_grpc_msgs *m, struct drv_mix_ctx *ctx, char *buf,
			 size_t cap, const char **path, uint32_t *rec)
{
	/* per thread: the expanded JSON and, when encoded again, its message */
	static thread_local std::string json, bin;
	static thread_local pb::Arena arena;
	const Record *r;
	uint32_t i = 0;
	size_t n = LL_GRPC_MSG_FAILED;

	*path = nullptr;
	*rec = LL_GRPC_NO_REC;
	if (!m)
		return 0;
	try {
		if (json.size() < m->max_json)
			json.resize(m->max_json);
		if (m->mix)
			drv_reqmix_next(m->mix, ctx, &json[0], &i);
		r = &m->recs[i];
		*rec = m->mix ? i : LL_GRPC_NO_REC;
		*path = r->path.c_str();
		if (!m->mix && r->how != How::Static)
			drv_tpl_expand(r->tpl, &ctx->tc, &json[0]);
		if (r->how != How::Encoded) {
			if (r->bytes.size() > cap)
				return LL_GRPC_MSG_FAILED;
			memcpy(buf, r->bytes.data(), r->bytes.size());
			for (unsigned f = 0; r->how == How::Patched && f < r->tpl->nfields; f++)
				memcpy(buf + r->pos[f], &json[r->tpl->f[f].at], r->tpl->f[f].width);
			return r->bytes.size();
		}
		/* libprotobuf's JSON → wire, then through the message for its canonical form (field
		 * order, defaults left out), on an arena emptied each time */
		pb::Message *msg = r->proto->New(&arena);

		bin.clear();
		pb::StringPiece in(json.data(), r->tpl->len);

		if (pb::util::JsonToBinaryString(m->resolver.get(), r->type_url, in, &bin).ok() &&
		    msg->ParseFromString(bin) && msg->ByteSizeLong() <= cap) {
			n = msg->ByteSizeLong();
			msg->SerializeWithCachedSizesToArray((uint8_t *)buf);
		}
		arena.Reset();
	} catch (const std::bad_alloc &) {
		n = LL_GRPC_MSG_FAILED;
	}
	return n;
}
