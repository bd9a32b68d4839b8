// SPDX-License-Identifier: MIT
/*
 * What a gRPC call's message costs the driver per request (driver/grpc/grpc_msg.cc): the
 * nanoseconds of drv_grpc_msg_next() on one thread, for each way a message is made,
 *   static   a JSON without fields, encoded once at load (a copy per call)
 *   patched  {"key":"k{{seq}}"}: the message encoded at load, its digits rewritten per call
 *   encoded  a field libprotobuf must encode again (a number), the expanded JSON through
 *            JsonToBinaryString and the DynamicMessage on an arena
 *   mix      the Put:Get 1:9 --requests-file mix (weighted random, --seed), patched records
 * each the median of 5 runs of N calls. Not a test: bench/grpc_ghz.sh prints it beside ghz.
 *
 * usage: grpc_msg_encode PROTO_DIR [N]    (PROTO_DIR holds kv.proto: tests/data)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "apps.h"
#include "config/config.h"
#include "grpc/grpc_msg.h"
#include "config/parse.h"
#include "config/reqmix.h"

#define RUNS 5

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median ns per call of RUNS runs of n calls. */
static double time_calls(const struct drv_config *cfg, long n, size_t *len)
{
	char buf[4096];
	struct drv_mix_ctx c;
	double t[RUNS], t0;
	const char *path;
	uint32_t rec;
	size_t sum = 0;
	long i;
	int r;

	drv_mix_ctx_init(&c, cfg, 0, 1);
	for (r = 0; r < RUNS; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			sum += drv_grpc_msg_next(cfg->grpc_msgs, &c, buf, sizeof(buf), &path, &rec);
		t[r] = (now_ns() - t0) / (double)n;
	}
	*len = sum / ((size_t)n * RUNS);
	qsort(t, RUNS, sizeof(t[0]), cmp);
	return t[RUNS / 2];
}

static int run(const char *name, long n, char **argv, int argc)
{
	struct drv_config cfg;
	char err[512];
	size_t len;
	double ns;

	if (drv_config_parse(&cfg, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "grpc_msg_encode: %s: %s\n", name, err);
		return 1;
	}
	ns = time_calls(&cfg, n, &len);
	printf("%-8s %-8s %6zu B %10.1f ns/call\n", name,
	       drv_grpc_msgs_how(cfg.grpc_msgs, 0), len, ns);
	drv_config_fini(&cfg);
	return 0;
}

/* the file at path holding text; 0, or -1 */
static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	char kv[512], num[512], mix[512], dir[] = "/tmp/grpc_msg_encode_XXXXXX";
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	int e = 0;

	drv_apps_register(); /* grpc's options, as the driver's main() (apps.h) */
	if (argc < 2 || n < 1) {
		fprintf(stderr, "usage: grpc_msg_encode PROTO_DIR [N]\n");
		return 64;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(kv, sizeof(kv), "%s/kv.proto", argv[1]);
	snprintf(num, sizeof(num), "%s/num.proto", dir);
	snprintf(mix, sizeof(mix), "%s/mix.txt", dir);
	if (write_file(num, "syntax = \"proto3\";\npackage t;\n"
			    "message Req { int32 n = 1; string s = 2; }\nmessage Rep {}\n"
			    "service S { rpc Call(Req) returns (Rep); }\n") ||
	    write_file(mix, "weight=1 /kv.Store/Put {\"key\":\"k{{rand:0-99999}}\",\"value\":\"dmFs\"}\n"
			    "weight=9 /kv.Store/Get {\"key\":\"k{{rand:0-99999}}\"}\n"))
		return 1;
	printf("%-8s %-8s %8s %18s  (%ld calls x %d runs, median)\n", "message", "made", "size",
	       "cost", n, RUNS);
	{
		char *a[] = {"d", "grpc://127.0.0.1:1/kv.Store/Put", "-n", "1", "--proto-file", kv,
			     "--message", "{\"key\":\"k1\",\"value\":\"dmFs\"}", NULL};
		e |= run("static", n, a, 8);
	}
	{
		char *a[] = {"d", "grpc://127.0.0.1:1/kv.Store/Put", "-n", "1", "--proto-file", kv,
			     "--message", "{\"key\":\"k{{seq}}\",\"value\":\"dmFs\"}", NULL};
		e |= run("patched", n, a, 8);
	}
	{
		char *a[] = {"d", "grpc://127.0.0.1:1/t.S/Call", "-n", "1", "--proto-file", num,
			     "--message", "{\"n\":{{rand:1-9}},\"s\":\"k{{seq}}\"}", NULL};
		e |= run("encoded", n / 20 ? n / 20 : 1, a, 8);
	}
	{
		char *a[] = {"d", "grpc://127.0.0.1:1", "-n", "1", "--proto-file", kv,
			     "--requests-file", mix, "--seed", "1", NULL};
		e |= run("mix", n, a, 10);
	}
	unlink(num);
	unlink(mix);
	rmdir(dir);
	return e;
}
