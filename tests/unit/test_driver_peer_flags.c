// SPDX-License-Identifier: MIT
/*
 * ghz's and h2load's spellings (driver/config/peer_flags.c): each answered with ours in one line,
 * through the table and through a whole command line; our own options, with values they take,
 * never.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_parse_line.h"
#include "apps.h"
#include "config/parse.h"
#include "config/peer_flags.h"

/* flag value → refused, the line holding want (our spelling) and one line only. */
static void peer(const char *flag, const char *value, const char *want)
{
	char err[512] = "";

	if (drv__config_peer(flag, value, err, sizeof(err)) != -EINVAL)
		fail_msg("%s %s: not taken for a peer's spelling", flag, value ? value : "");
	if (!strstr(err, want) || !strstr(err, "did you mean"))
		fail_msg("%s %s: '%s' does not say '%s'", flag, value ? value : "", err, want);
	assert_null(strchr(err, '\n'));
}

static void ours(const char *flag, const char *value)
{
	char err[512] = "";

	if (drv__config_peer(flag, value, err, sizeof(err)))
		fail_msg("%s %s is ours, taken for a peer's: %s", flag, value, err);
	assert_string_equal(err, "");
}

static void test_table(void **state)
{
	(void)state;
	/* ghz */
	peer("--proto", "kv.proto", "did you mean --proto-file kv.proto?");
	peer("--call", "kv.Store.Put", "did you mean grpc://HOST:PORT/kv.Store/Put?");
	peer("--call", "kv.Store/Put", "grpc://HOST:PORT/kv.Store/Put?");
	peer("--call", "/kv.Store/Put", "grpc://HOST:PORT/kv.Store/Put?");
	peer("-d", "{\"key\":\"a\"}", "did you mean --message?");
	peer("-d", " [1]", "did you mean --message?");
	peer("--data", "{}", "did you mean --message?");
	peer("-z", "3s", "did you mean -d 3s?");
	peer("-z", NULL, "did you mean -d DURATION?");
	peer("-D", "msg.json", "did you mean --message-file msg.json?");
	peer("--data-file", "msg.json", "did you mean --message-file msg.json?");
	peer("-m", "{\"k\":\"v\"}", "did you mean -H 'KEY: VALUE'?");
	peer("--metadata", "{\"k\":\"v\"}", "-H 'KEY: VALUE'");
	peer("--concurrency", "50", "did you mean -c CONNECTIONS --streams N?");
	peer("-i", "protos", "did you mean --import-path protos?");
	peer("--import-paths", "a,,b", "did you mean --import-path a --import-path b?");
	peer("--rps", "100", "did you mean --rate 100?");
	peer("-r", "100", "did you mean --rate 100?");
	peer("--total", "1000", "did you mean -n 1000?");
	peer("-x", "20s", "did you mean --timeout 20s?");
	peer("--skipTLS", "grpcs://h/a.B/C", "--skipTLS: did you mean -k?"); /* the next word not shown */
	peer("-o", "out.json", "did you mean --json out.json?");
	/* h2load */
	peer("-m", "10", "did you mean --streams 10?");
	peer("--max-concurrent-streams", "10", "did you mean --streams 10?");
	peer("-D", "5", "did you mean -d 5?");
	peer("-D", "10s", "did you mean -d 10s?");
	peer("-d", "/etc/hostname", "did you mean --body-file /etc/hostname?");
	peer("-p", "h2c", "did you mean --http2?");

	/* ours, with values ours take (or refuse in our own words) */
	ours("-m", "POST");
	ours("-m", "get"); /* our "a method is upper-case letters" */
	ours("-d", "30s");
	ours("-d", "5");
	ours("-d", "soon"); /* no file of that name: our "bad duration" */
	ours("--proto", "ldap");
	ours("--proto", "memcache-udp");
	ours("-p", "4");
	ours("-c", "50");
	ours("--connections", "3"); /* ghz's --connections is ours */
	ours("--duration", "10s");
	ours("--streams", "10");
	ours("-H", "{\"k\":\"v\"}");
	ours("--message", "{}");
}

/* A whole command line: the peer's option where getopt puts it, its value in or after it. */
static void test_command_lines(void **state)
{
	static const struct argv_case cases[] = {
		{{"grpc://127.0.0.1:1/a.B/C", "-n", "1", "-z", "3s", NULL}, "-z 3s: did you mean -d 3s?"},
		{{"grpc://127.0.0.1:1/a.B/C", "-n", "1", "-z3s", NULL}, "-z 3s: did you mean -d 3s?"},
		{{"grpc://127.0.0.1:1/a.B/C", "-qz3s", "-n", "1", NULL}, "did you mean -d 3s?"},
		{{"grpc://127.0.0.1:1/a.B/C", "-n", "1", "-z", NULL}, "-z: did you mean -d DURATION?"},
		{{"grpc://127.0.0.1:1/a.B/C", "-z", "-n", "1", NULL}, "-z: did you mean -d DURATION?"},
		{{"grpc://127.0.0.1:1", "-n", "1", "--call", "kv.Store.Put", NULL},
		 "grpc://HOST:PORT/kv.Store/Put"},
		{{"grpc://127.0.0.1:1", "-n", "1", "--call=kv.Store.Put", NULL},
		 "--call kv.Store.Put: did you mean grpc://HOST:PORT/kv.Store/Put?"},
		{{"grpc://127.0.0.1:1/a.B/C", "-d", "{\"key\":\"a\"}", NULL}, "did you mean --message?"},
		{{"grpc://127.0.0.1:1/a.B/C", "-n", "1", "--proto", "kv.proto", NULL},
		 "did you mean --proto-file kv.proto?"},
		/* --proto grpc: our wire-protocol option refuses it (not a --message-file of
		 * that name) */
		{{"grpc://127.0.0.1:1/a.B/C", "-n", "1", "--proto", "grpc", NULL},
		 "--proto grpc: expected memcache-udp or ldap; a grpc:// URL is gRPC already"},
		{{"http://127.0.0.1:1/", "-n", "1", "-m", "10", NULL}, "did you mean --streams 10?"},
		{{"http://127.0.0.1:1/", "-n", "1", "-m10", NULL}, "did you mean --streams 10?"},
		{{"http://127.0.0.1:1/", "-n", "1", "-D", "5", NULL}, "did you mean -d 5?"},
		{{"http://127.0.0.1:1/", "-D", "5", "-n", "1", NULL}, "did you mean -d 5?"},
		{{"http://127.0.0.1:1/", "-n", "1", "-y", NULL}, "unknown option -y"},
		{{"http://127.0.0.1:1/", "-n", "1", "--nope", "x", NULL}, "unknown option --nope"},
		{{"grpc://127.0.0.1:1/a.B/C", "-n", "1", "--connections", "3", NULL}, NULL},
		{{"http://127.0.0.1:1/", "-n", "1", "-m", "POST", NULL}, NULL},
		{{"http://127.0.0.1:1/", "-d", "2", NULL}, NULL},
	};

	(void)state;
	check_argv_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* --proto ldap's tables, as main() registers them (apps.h) */
static int register_apps(void **state)
{
	(void)state;
	drv_apps_register();
	return 0;
}

LL_TEST_MAIN_GROUP(register_apps, NULL, test_table, test_command_lines)
