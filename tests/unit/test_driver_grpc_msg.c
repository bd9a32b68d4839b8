// SPDX-License-Identifier: MIT
/*
 * gRPC request messages (driver/grpc/grpc_msg.cc): the bytes equal protoc's own encoding,
 * templates expand per request (patched in place, or encoded again), a --requests-file mix keeps
 * its weights, and every bad input is refused with its one line.
 *
 * The expected bytes below were made by protoc from tests/data/kv.proto, e.g.
 *   printf 'key: "k1" value: "val"' | protoc --encode=kv.PutRequest -I tests/data kv.proto | xxd -i
 * and when protoc is on PATH each test runs it again (protoc_encode) and compares.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <errno.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_apps.h"
#include "config/config.h"
#include "config/parse.h"
#include "grpc/grpc_msg.h"
#include "config/reqmix.h"

#define KV LL_TEST_DATA "/kv.proto"

static char tmpdir[] = "/tmp/ll_grpc_msg_XXXXXX";

/* A file under tmpdir with text; its path in a static buffer of n slots. */
static const char *tmpfile_with(const char *name, const char *text)
{
	static char paths[8][256];
	static unsigned k;
	char *p = paths[k++ % 8];
	FILE *f;

	snprintf(p, 256, "%s/%s", tmpdir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* protoc's encoding of a text-format message into out; -1 when protoc is not on PATH. */
static long protoc_encode(const char *dir, const char *file, const char *type, const char *text,
			  uint8_t *out, size_t cap)
{
	char cmd[1024];
	const char *in = tmpfile_with("protoc_in.txt", text);
	FILE *p;
	size_t n;

	if (system("command -v protoc >/dev/null 2>&1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "protoc --encode=%s -I %s %s/%s < %s", type, dir, dir, file,
		 in);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, cap, p);
	assert_int_equal(pclose(p), 0);
	return (long)n;
}

/* buf holds exactly want[0..n). */
static void assert_message(const char *buf, size_t len, const uint8_t *want, size_t n)
{
	assert_int_equal(len, n);
	if (n)
		assert_memory_equal(buf, want, n);
}

/* The same against protoc, when it is there. */
static void assert_protoc(const char *buf, size_t len, const char *type, const char *text)
{
	uint8_t want[512];
	long n = protoc_encode(LL_TEST_DATA, "kv.proto", type, text, want, sizeof(want));

	if (n >= 0)
		assert_message(buf, len, want, (size_t)n);
}

static struct drv_grpc_msgs *kv(const char *path, const char *json)
{
	char err[512];
	struct drv_grpc_msgs *m = drv_grpc_msgs_new(KV, err, sizeof(err));

	if (!m)
		fail_msg("%s", err);
	if (drv_grpc_msgs_set(m, path, json, json ? strlen(json) : 0, "--message", err,
			      sizeof(err)))
		fail_msg("%s", err);
	return m;
}

static void test_static_matches_protoc(void **state)
{
	static const uint8_t put[] = {0x0a, 0x02, 0x6b, 0x31, 0x12, 0x03, 0x76, 0x61, 0x6c};
	static const uint8_t get[] = {0x0a, 0x07, 0x75, 0x73, 0x65, 0x72, 0x3a, 0x34, 0x32};
	struct drv_mix_ctx c = {0};
	struct drv_grpc_msgs *m;
	const char *path;
	char buf[64], err[256];
	const char *json;
	uint32_t rec = 9;
	size_t n;

	(void)state;
	/* "dmFs" is "val" in base64, protobuf's JSON for bytes */
	m = kv("/kv.Store/Put", "{\"key\": \"k1\", \"value\": \"dmFs\"}");
	assert_string_equal(drv_grpc_msgs_how(m, 0), "static");
	assert_int_equal(drv_grpc_msg_max(m), sizeof(put));
	n = drv_grpc_msg_next(m, &c, buf, sizeof(buf), &path, &rec);
	assert_string_equal(path, "/kv.Store/Put");
	assert_int_equal(rec, LL_GRPC_NO_REC); /* one message: no mix, no per-record count */
	assert_message(buf, n, put, sizeof(put));
	assert_protoc(buf, n, "kv.PutRequest", "key: \"k1\" value: \"val\"");
	/* too small a buffer: no message, said apart from the empty one */
	assert_true(drv_grpc_msg_next(m, &c, buf, n - 1, &path, &rec) == LL_GRPC_MSG_FAILED);
	drv_grpc_msgs_free(m);

	/* field order in the JSON does not matter: the message is canonical */
	m = kv("/kv.Store/Get", "{\"key\":\"user:42\"}");
	n = drv_grpc_msg_next(m, &c, buf, sizeof(buf), &path, &rec);
	assert_message(buf, n, get, sizeof(get));
	assert_protoc(buf, n, "kv.GetRequest", "key: \"user:42\"");
	drv_grpc_msgs_free(m);
	m = kv("/kv.Store/Put", "{\"value\":\"dmFs\",\"key\":\"k1\"}");
	n = drv_grpc_msg_next(m, &c, buf, sizeof(buf), &path, &rec);
	assert_message(buf, n, put, sizeof(put));
	drv_grpc_msgs_free(m);

	/* no JSON: {} (the empty message, 0 bytes) */
	m = kv("/kv.Store/Put", NULL);
	n = drv_grpc_msg_next(m, &c, buf, sizeof(buf), &path, &rec);
	assert_message(buf, n, put, 0);
	/* set again: the new message replaces the old; a refused one leaves none */
	json = "{\"key\":\"user:{{seq}}\"}";
	assert_int_equal(drv_grpc_msgs_set(m, "/kv.Store/Get", json, strlen(json), "--message",
					   err, sizeof(err)), 0);
	assert_int_equal(drv_grpc_msgs_count(m), 1);
	assert_string_equal(drv_grpc_msgs_path(m, 0), "/kv.Store/Get");
	json = "{\"key\":\"{{bad}}\"}";
	assert_int_equal(drv_grpc_msgs_set(m, "/kv.Store/Get", json, strlen(json), "--message",
					   err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--message: {{bad}}: expected"));
	assert_int_equal(drv_grpc_msgs_count(m), 0);
	drv_grpc_msgs_free(m);
	drv_grpc_msgs_free(NULL);
}

/* {{seq}} in a string: the message libprotobuf encoded once, its digits rewritten per call. */
static void test_template_patched(void **state)
{
	static const uint8_t k0[] = {0x0a, 0x0b, 0x6b, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30,
				     0x30, 0x30, 0x30, 0x30, 0x12, 0x03, 0x76, 0x61, 0x6c};
	struct drv_mix_ctx c = {.tc = {.rng = 1, .seq = 0, .stride = 1}};
	struct drv_grpc_msgs *m;
	uint8_t want[sizeof(k0)];
	char buf[64], text[64];
	const char *path;
	uint32_t rec;
	size_t n;
	unsigned i;

	(void)state;
	m = kv("/kv.Store/Put", "{\"key\":\"k{{seq}}\",\"value\":\"dmFs\"}");
	assert_string_equal(drv_grpc_msgs_how(m, 0), "patched");
	for (i = 0; i < 12; i++) {
		n = drv_grpc_msg_next(m, &c, buf, sizeof(buf), &path, &rec);
		memcpy(want, k0, sizeof(k0));
		snprintf(text, sizeof(text), "%010u", i);
		memcpy(want + 3, text, 10);
		assert_message(buf, n, want, sizeof(want));
		if (i == 0 || i == 11) {
			snprintf(text, sizeof(text), "key: \"k%010u\" value: \"val\"", i);
			assert_protoc(buf, n, "kv.PutRequest", text);
		}
	}
	drv_grpc_msgs_free(m);

	/* two fields, rand and zipf, each in range */
	m = kv("/kv.Store/Get", "{\"key\":\"u{{rand:5-250}}:{{zipf:1000:1.1}}\"}");
	assert_string_equal(drv_grpc_msgs_how(m, 0), "patched");
	for (i = 0; i < 1000; i++) {
		long a, b;

		n = drv_grpc_msg_next(m, &c, buf, sizeof(buf) - 1, &path, &rec);
		assert_int_equal(n, 2 + 9);
		buf[n] = '\0';
		assert_memory_equal(buf, "\x0a\x09u", 3);
		assert_int_equal(buf[6], ':');
		a = strtol(buf + 3, NULL, 10);
		b = strtol(buf + 7, NULL, 10);
		assert_true(a >= 5 && a <= 250);
		assert_true(b >= 1 && b <= 1000);
	}
	drv_grpc_msgs_free(m);
}

/* A number field cannot be patched (a varint): the expanded JSON is encoded again per call. */
static void test_template_encoded(void **state)
{
	const char *proto = tmpfile_with("num.proto",
		"syntax = \"proto3\";\npackage t;\n"
		"import \"google/protobuf/timestamp.proto\";\n"
		"message Req { int32 n = 1; string s = 2; google.protobuf.Timestamp at = 3; }\n"
		"message Rep {}\nservice S { rpc Call(Req) returns (Rep); }\n");
	struct drv_mix_ctx c = {.tc = {.rng = 7, .seq = 0, .stride = 1}};
	const char *json = "{\"n\": {{rand:1-9}}, \"s\": \"x{{seq}}\", "
			   "\"at\": \"2024-01-02T03:04:05Z\"}";
	uint8_t want[64];
	char buf[64], err[512], text[128];
	struct drv_grpc_msgs *m;
	const char *path;
	uint32_t rec;
	size_t n;
	unsigned i, seen = 0;
	long pn;

	(void)state;
	m = drv_grpc_msgs_new(proto, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	if (drv_grpc_msgs_set(m, "/t.S/Call", json, strlen(json), "--message", err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(drv_grpc_msgs_how(m, 0), "encoded");
	for (i = 0; i < 200; i++) {
		n = drv_grpc_msg_next(m, &c, buf, sizeof(buf), &path, &rec);
		assert_string_equal(path, "/t.S/Call");
		/* n: 08 N; s: 12 0b 'x' 10 digits; at: 1a 06 08 <seconds varint> */
		assert_true(n > 15);
		assert_memory_equal(buf, "\x08", 1);
		pn = buf[1];
		assert_true(pn >= 1 && pn <= 9);
		seen |= 1u << pn;
		snprintf(text, sizeof(text), "\x12\x0bx%010u", i);
		assert_memory_equal(buf + 2, text, 13);
		if (i < 3) {
			snprintf(text, sizeof(text),
				 "n: %ld s: \"x%010u\" at { seconds: 1704164645 }", pn, i);
			long k = protoc_encode(tmpdir, "num.proto", "t.Req", text, want,
					       sizeof(want));
			if (k >= 0)
				assert_message(buf, n, want, (size_t)k);
		}
	}
	assert_int_equal(seen, 0x3fe); /* every value of 1-9 drawn */
	assert_true(drv_grpc_msg_max(m) >= n);
	drv_grpc_msgs_free(m);
}

/* drv_config_parse() of "loadlens-driver" and the arguments in ap (up to a NULL). */
static int vparse(struct drv_config *cfg, char *err, size_t errlen, va_list ap)
{
	char *argv[32] = {"loadlens-driver"};
	int argc = 1;

	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	argv[argc] = NULL;
	return drv_config_parse(cfg, argc, argv, err, errlen);
}

static int parse(struct drv_config *cfg, char *err, size_t errlen, ...)
{
	va_list ap;
	int rc;

	va_start(ap, errlen);
	rc = vparse(cfg, err, errlen, ap);
	va_end(ap);
	return rc;
}

/* --requests-file: Put:Get 1:9, by weight (round-robin exact, --seed within its spread). */
static void test_mix_weights(void **state)
{
	const char *mix = tmpfile_with("mix.txt",
		"# Put:Get 1:9\n"
		"weight=1 /kv.Store/Put {\"key\":\"k{{seq}}\",\"value\":\"dmFs\"}\n"
		"weight=9 /kv.Store/Get {\"key\":\"k{{rand:0-999}}\"}\n");
	struct drv_config cfg;
	struct drv_mix_ctx c;
	uint64_t count[2] = {0};
	char err[512], buf[64];
	const char *path;
	uint32_t rec;
	size_t n;
	unsigned i, round;

	(void)state;
	for (round = 0; round < 2; round++) {
		if (round == 0 ? parse(&cfg, err, sizeof(err), "grpc://127.0.0.1:1", "-n", "1",
				       "--proto-file", KV, "--requests-file", mix, NULL)
			       : parse(&cfg, err, sizeof(err), "grpc://127.0.0.1:1", "-n", "1",
				       "--proto-file", KV, "--requests-file", mix, "--seed", "7",
				       NULL))
			fail_msg("%s", err);
		assert_int_equal(drv_grpc_msgs_count(cfg.grpc_msgs), 2);
		assert_string_equal(drv_grpc_msgs_path(cfg.grpc_msgs, 0), "/kv.Store/Put");
		assert_string_equal(drv_grpc_msgs_path(cfg.grpc_msgs, 1), "/kv.Store/Get");
		assert_string_equal(drv_grpc_msgs_how(cfg.grpc_msgs, 1), "patched");
		drv_mix_ctx_init(&c, &cfg, 0, 1);
		count[0] = count[1] = 0;
		for (i = 0; i < 10000; i++) {
			n = drv_grpc_msg_next(cfg.grpc_msgs, &c, buf, sizeof(buf), &path, &rec);
			assert_true(rec < 2);
			count[rec]++;
			assert_string_equal(path, drv_grpc_msgs_path(cfg.grpc_msgs, rec));
			/* Put: key 11 bytes and value 3; Get: key 4 bytes */
			assert_int_equal(n, rec ? 6 : 18);
			assert_memory_equal(buf, rec ? "\x0a\x04k" : "\x0a\x0bk", 3);
		}
		if (round == 0) {
			assert_int_equal(count[0], 1000);
			assert_int_equal(count[1], 9000);
		} else { /* binomial, sd 30: within 5 sd */
			assert_true(count[0] > 850 && count[0] < 1150);
		}
		drv_config_fini(&cfg);
	}
}

/* Each bad input: its one line, naming what is wrong. */
static void expect_refusal(const char *want, ...)
{
	struct drv_config cfg;
	char err[512];
	va_list ap;
	int rc;

	va_start(ap, want);
	rc = vparse(&cfg, err, sizeof(err), ap);
	va_end(ap);
	if (!rc)
		fail_msg("accepted; expected '%s'", want);
	drv_config_fini(&cfg);
	if (!strstr(err, want))
		fail_msg("'%s' does not say '%s'", err, want);
	assert_null(strchr(err, '\n'));
}

static void test_errors(void **state)
{
	const char *bad = tmpfile_with("bad.proto", "syntax = \"proto3\";\npackage b;\n"
						    "message M { string s = 1 }\n");
	const char *stream = tmpfile_with("stream.proto",
		"syntax = \"proto3\";\npackage s;\nmessage M {}\n"
		"service W { rpc Watch(M) returns (stream M); rpc Up(stream M) returns (M);\n"
		"  rpc Chat(stream M) returns (stream M); }\n");
	const char *json = tmpfile_with("msg.json", "{\"key\": \"a\", \"vlaue\": \"x\"}\n");
	const char *mix = tmpfile_with("badmix.txt", "/kv.Store/Put {\"key\":\"a\"}\n"
						     "/kv.Store/Get {\"key\":2}\n");
	const char *u = "grpc://127.0.0.1:1/kv.Store/Put";

	(void)state;
	expect_refusal("bad.proto:3:26: Expected \";\".", "grpc://127.0.0.1:1/b.S/M", "-n", "1",
		       "--proto-file", bad, NULL);
	expect_refusal("--proto-file /nonexistent.proto: No such file or directory", u, "-n", "1",
		       "--proto-file", "/nonexistent.proto", NULL);
	expect_refusal("--proto-file /tmp: not a regular file", u, "-n", "1", "--proto-file",
		       "/tmp", NULL);
	expect_refusal("no service kv.Stor in", "grpc://127.0.0.1:1/kv.Stor/Put", "-n", "1",
		       "--proto-file", KV, NULL);
	expect_refusal("no method Pt in service kv.Store (it has Put, Get)",
		       "grpc://127.0.0.1:1/kv.Store/Pt", "-n", "1", "--proto-file", KV, NULL);
	expect_refusal("expected a method path /package.Service/Method",
		       "grpc://127.0.0.1:1/kvStorePut", "-n", "1", "--proto-file", KV, NULL);
	expect_refusal("name the method", "grpc://127.0.0.1:1", "-n", "1", NULL);
	expect_refusal("/s.W/Watch is a server-streaming method", "grpc://127.0.0.1:1/s.W/Watch",
		       "-n", "1", "--proto-file", stream, NULL);
	expect_refusal("/s.W/Up is a client-streaming method", "grpc://127.0.0.1:1/s.W/Up", "-n",
		       "1", "--proto-file", stream, NULL);
	expect_refusal("/s.W/Chat is a bidirectional-streaming method",
		       "grpc://127.0.0.1:1/s.W/Chat", "-n", "1", "--proto-file", stream, NULL);
	expect_refusal("kv.PutRequest from --message: kee: Cannot find field.", u, "-n", "1",
		       "--proto-file", KV, "--message", "{\"kee\":\"a\"}", NULL);
	expect_refusal("from --message: (key): invalid value 7 for type TYPE_STRING", u, "-n", "1",
		       "--proto-file", KV, "--message", "{\"key\":7}", NULL);
	expect_refusal("from --message-file ", u, "-n", "1", "--proto-file", KV, "--message-file",
		       json, NULL);
	expect_refusal("vlaue: Cannot find field.", u, "-n", "1", "--proto-file", KV,
		       "--message-file", json, NULL);
	expect_refusal("--message-file /nonexistent.json: ", u, "-n", "1", "--proto-file", KV,
		       "--message-file", "/nonexistent.json", NULL);
	expect_refusal("--message: {{rand:1}}: expected {{seq}}", u, "-n", "1", "--proto-file", KV,
		       "--message", "{\"key\":\"{{rand:1}}\"}", NULL);
	/* zero-padded numbers are not JSON: the hint says to quote them */
	expect_refusal("quote it", u, "-n", "1", "--proto-file", KV,
		       "--message", "{\"key\":{{rand:1-100}}}", NULL);
	expect_refusal("a message other than {} needs --proto-file", u, "-n", "1", "--message",
		       "{\"key\":\"a\"}", NULL);
	expect_refusal("are for grpc:// and grpcs:// targets", "tcp://127.0.0.1:1", "-n", "1",
		       "--proto-file", KV, NULL);
	expect_refusal("are for grpc:// and grpcs:// targets", "http://127.0.0.1:1/", "-n", "1",
		       "--message", "{}", NULL);
	expect_refusal("give one message", u, "-n", "1", "--message", "{}", "--message-file",
		       json, NULL);
	expect_refusal("drop --message", "grpc://127.0.0.1:1", "-n", "1", "--proto-file", KV,
		       "--requests-file", mix, "--message", "{}", NULL);
	expect_refusal("record 2: /kv.Store/Get: kv.GetRequest from its JSON: (key): invalid "
		       "value 2", "grpc://127.0.0.1:1", "-n", "1", "--proto-file", KV,
		       "--requests-file", mix, NULL);
	expect_refusal("grpc:// sends --message", u, "-n", "1", "--size", "10", NULL);
}

/* Without --proto-file: an empty message to any method (the refserver answers every one). */
static void test_no_proto(void **state)
{
	struct drv_config cfg;
	struct drv_mix_ctx c = {0};
	char err[256], buf[16];
	const char *path;
	uint32_t rec;

	(void)state;
	if (parse(&cfg, err, sizeof(err), "grpc://127.0.0.1:1/any.Svc/Thing", "-n", "1", NULL))
		fail_msg("%s", err);
	assert_int_equal(drv_grpc_msg_max(cfg.grpc_msgs), 0);
	assert_int_equal(drv_grpc_msg_next(cfg.grpc_msgs, &c, buf, sizeof(buf), &path, &rec), 0);
	assert_string_equal(path, "/any.Svc/Thing");
	drv_config_fini(&cfg);
	/* no messages at all (NULL): the empty one, the target's path */
	assert_int_equal(drv_grpc_msg_next(NULL, &c, buf, sizeof(buf), &path, &rec), 0);
	assert_null(path);
	assert_int_equal(rec, LL_GRPC_NO_REC);
	assert_int_equal(drv_grpc_msg_max(NULL), 0);
}

/* One set of messages, several threads at once, each with its own ctx: every message right. */
struct worker_arg {
	const struct drv_grpc_msgs *m;
	uint32_t id;
	unsigned bad;
};

static void *worker(void *p)
{
	struct worker_arg *a = p;
	struct drv_mix_ctx c = {.tc = {.rng = a->id + 1, .seq = a->id, .stride = 2}};
	char buf[64], want[16];
	const char *path;
	uint32_t rec;
	size_t n;
	unsigned i;

	for (i = 0; i < 3000; i++) {
		n = drv_grpc_msg_next(a->m, &c, buf, sizeof(buf), &path, &rec);
		/* n: 08 N; s: 12 0b 'x' and the seq of this thread, i * 2 + id */
		snprintf(want, sizeof(want), "x%010u", i * 2 + a->id);
		if (n < 15 || buf[0] != 0x08 || buf[1] < 1 || buf[1] > 9 ||
		    memcmp(buf + 2, "\x12\x0b", 2) || memcmp(buf + 4, want, 11))
			a->bad++;
	}
	return NULL;
}

static void test_threads(void **state)
{
	const char *proto = tmpfile_with("thr.proto",
		"syntax = \"proto3\";\npackage t;\nmessage Req { int32 n = 1; string s = 2; }\n"
		"message Rep {}\nservice S { rpc Call(Req) returns (Rep); }\n");
	const char *json = "{\"n\": {{rand:1-9}}, \"s\": \"x{{seq}}\"}";
	struct worker_arg a[2];
	struct drv_grpc_msgs *m;
	pthread_t t[2];
	char err[256];
	unsigned i;

	(void)state;
	m = drv_grpc_msgs_new(proto, err, sizeof(err));
	if (!m || drv_grpc_msgs_set(m, "/t.S/Call", json, strlen(json), "--message", err,
				    sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(drv_grpc_msgs_how(m, 0), "encoded"); /* the shared resolver */
	for (i = 0; i < 2; i++) {
		a[i] = (struct worker_arg){.m = m, .id = i};
		assert_int_equal(pthread_create(&t[i], NULL, worker, &a[i]), 0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].bad, 0);
	}
	drv_grpc_msgs_free(m);
}

LL_TEST_MAIN_TMPDIR(tmpdir, test_static_matches_protoc, test_template_patched,
		    test_template_encoded, test_mix_weights, test_errors, test_no_proto,
		    test_threads)
