// SPDX-License-Identifier: MIT
/*
 * Where the driver's .proto files come from (driver/grpc/proto_tree.cc): --import-path folders
 * for imports (protoc's -I), a file nested 16,000 deep refused before libprotobuf parses it (it
 * crashed the driver), imported or not, and an empty or garbage .proto refused in our one line
 * with nothing of libprotobuf's own on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_apps.h"
#include "config/parse.h"
#include "grpc/proto_scan.h"

static char tmpdir[] = "/tmp/ll_proto_tree_XXXXXX";

/* tmpdir/name with text (folders made); its path in one of 8 static slots */
static const char *file_with(const char *name, const char *text)
{
	static char paths[8][300];
	static unsigned k;
	char *p = paths[k++ % 8], *slash;
	FILE *f;

	snprintf(p, 300, "%s/%s", tmpdir, name);
	for (slash = strchr(p + strlen(tmpdir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0700);
		*slash = '/';
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static const char *dir(const char *name)
{
	static char paths[4][300];
	static unsigned k;
	char *p = paths[k++ % 4];

	snprintf(p, 300, "%s/%s", tmpdir, name);
	return p;
}

/* bytes written to stderr during the last run() */
static long noise;

/* args parsed as a run's (NULL-terminated); 0 or -EINVAL with the line in err. */
static int run(char *err, size_t errlen, ...)
{
	struct drv_config cfg;
	char *argv[24], path[320];
	int argc = 0, r, saved, fd;
	struct stat st;
	va_list ap;

	argv[argc++] = (char *)"loadlens-driver";
	va_start(ap, errlen);
	while (argc < 23 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	r = drv_config_parse(&cfg, argc, argv, err, errlen);
	drv_config_fini(&cfg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(stat(path, &st), 0);
	noise = (long)st.st_size;
	return r;
}

#define URL "grpc://127.0.0.1:1/a.S/M"

static void refused(const char *want, int r, const char *err)
{
	if (r != -EINVAL || !strstr(err, want))
		fail_msg("%d '%s', expected '%s'", r, err, want);
	assert_null(strchr(err, '\n'));
	assert_int_equal(noise, 0); /* no line of libprotobuf's own */
}

static void test_import_path(void **state)
{
	const char *svc = file_with("a/svc.proto",
		"syntax = \"proto3\";\npackage a;\nimport \"common/types.proto\";\n"
		"service S { rpc M(common.Key) returns (common.Key); }\n");
	char err[512];

	(void)state;
	file_with("b/common/types.proto",
		  "syntax = \"proto3\";\npackage common;\nmessage Key { string k = 1; }\n");
	if (run(err, sizeof(err), URL, "-n", "1", "--proto-file", svc, "--import-path",
		dir("b"), "--message", "{\"k\":\"x\"}", NULL))
		fail_msg("%s", err);
	/* later folders too, in order; the file's own folder first */
	if (run(err, sizeof(err), URL, "-n", "1", "--proto-file", svc, "--import-path",
		dir("a"), "--import-path", dir("b"), NULL))
		fail_msg("%s", err);
	refused("common/types.proto: File not found.",
		run(err, sizeof(err), URL, "-n", "1", "--proto-file", svc, NULL), err);
	refused("--import-path /nonexistent: No such file or directory",
		run(err, sizeof(err), URL, "-n", "1", "--proto-file", svc,
		    "--import-path", "/nonexistent", NULL), err);
	refused("not a folder", run(err, sizeof(err), URL, "-n", "1", "--proto-file", svc,
				    "--import-path", svc, NULL), err);
	refused("--import-path goes with --proto-file",
		run(err, sizeof(err), URL, "-n", "1", "--import-path", dir("b"), NULL), err);
	refused("are for grpc:// and grpcs:// targets",
		run(err, sizeof(err), "http://127.0.0.1:1/", "-n", "1", "--import-path",
		    dir("b"), NULL), err);
}

/* n nested messages after a service, as in issue 59 */
static const char *deep(const char *name, unsigned n, const char *import)
{
	size_t len = 512 + (size_t)n * 16;
	char *s = malloc(len), *p = s;
	const char *path;
	unsigned i;

	assert_non_null(s);
	p += sprintf(p, "syntax = \"proto3\";\npackage a;\n%s\nmessage E {}\n"
			"service S { rpc M(E) returns (E); }\n", import);
	for (i = 0; i < n; i++)
		p += sprintf(p, "message N {\n");
	for (i = 0; i < n; i++)
		*p++ = '}';
	*p = '\0';
	path = file_with(name, s);
	free(s);
	return path;
}

static void test_deep(void **state)
{
	const char *d = deep("deep.proto", 16000, "");
	const char *imp = deep("imp.proto", 0, "import \"deep.proto\";");
	char err[512], want[128];

	(void)state;
	/* the 201st level is on line 6 + 200 */
	snprintf(want, sizeof(want), "deep.proto: nested more than %d levels deep (line %d)",
		 DRV_PROTO_MAX_DEPTH, 6 + DRV_PROTO_MAX_DEPTH);
	refused(want, run(err, sizeof(err), URL, "-n", "1", "--proto-file", d, NULL), err);
	refused(want, run(err, sizeof(err), URL, "-n", "1", "--proto-file", imp, NULL), err);
	/* 12,000 (libprotobuf refused it itself) and 40 (past its 32 nested messages): its line */
	refused("nested more than", run(err, sizeof(err), URL, "-n", "1", "--proto-file",
					deep("d12k.proto", 12000, ""), NULL), err);
	refused("Reached maximum recursion limit for nested messages",
		run(err, sizeof(err), URL, "-n", "1", "--proto-file",
		    deep("d40.proto", 40, ""), NULL), err);
	if (run(err, sizeof(err), URL, "-n", "1", "--proto-file",
		deep("d20.proto", 20, ""), NULL))
		fail_msg("20 nested messages refused: %s", err);
}

static void test_quiet(void **state)
{
	char err[512];

	(void)state;
	/* libprotobuf's "No syntax specified" WARNING used to come first */
	refused("no service a.S in", run(err, sizeof(err), URL, "-n", "1", "--proto-file",
					 file_with("empty.proto", ""), NULL), err);
	refused("garbage.proto:1:1: Expected top-level statement",
		run(err, sizeof(err), URL, "-n", "1", "--proto-file",
		    file_with("garbage.proto", "garbage here\n"), NULL), err);
}

LL_TEST_MAIN_TMPDIR(tmpdir, test_import_path, test_deep, test_quiet)
