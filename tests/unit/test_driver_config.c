// SPDX-License-Identifier: MIT
/* drv_config_parse(): good command lines, and bad input that must give one line and -EINVAL. */
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
#include "apps.h"
#include <curl/curl.h>
#include "h2/h2_config.h"
#include "config/parse.h"
#include "driver_parse_line.h"

static void test_good(void **state)
{
	struct drv_config cfg;
	char err[256];

	assert_int_equal(parse(&cfg, "tcp://127.0.0.1:7000 -c 50 -n 200k", err, sizeof(err)), 0);
	assert_int_equal(cfg.connections, 50);
	assert_int_equal(cfg.requests, 200000);
	assert_int_equal(cfg.conn_model, DRV_CONN_KEEPALIVE);
	assert_int_equal(cfg.resp_rule, DRV_RESP_LP4);
	drv_config_fini(&cfg);

	assert_int_equal(parse(&cfg, "udp://127.0.0.1:9 -d 2s --rate 10k --size 8-512 --warmup 1s",
			       err, sizeof(err)),
			 0);
	assert_int_equal(cfg.url.scheme, LL_SCHEME_UDP);
	assert_true(cfg.rate == 10000.0);
	assert_int_equal(cfg.size_min, 8);
	assert_int_equal(cfg.size, 512);
	assert_int_equal(cfg.warmup_ns, 1000000000ULL);
	drv_config_fini(&cfg);

	assert_int_equal(parse(&cfg,
			       "http://127.0.0.1:8080/a -c 4 -t 2 -n 10 -m POST -H X-A:1 --body hi "
			       "--http-close --shard 1/3",
			       err, sizeof(err)),
			 0);
	assert_int_equal(cfg.resp_rule, DRV_RESP_HTTP);
	assert_int_equal(cfg.conn_model, DRV_CONN_NEW);
	assert_string_equal(cfg.method, "POST");
	assert_int_equal(cfg.nheaders, 1);
	assert_int_equal(cfg.body_len, 2);
	assert_int_equal(cfg.shard_index, 1);
	assert_int_equal(cfg.shard_count, 3);
	assert_int_equal(drv_config_global_slots(&cfg), 12);
	drv_config_fini(&cfg);

	assert_int_equal(parse(&cfg, "tcp://127.0.0.1:1 -n 5 --reconnect-every 3 --delay 10ms "
				     "--source-addr 127.0.0.2,127.0.0.3",
			       err, sizeof(err)),
			 0);
	assert_int_equal(cfg.conn_model, DRV_CONN_RECONNECT);
	assert_int_equal(cfg.delay_ns, 10000000ULL);
	assert_int_equal(cfg.nsources, 2);
	drv_config_fini(&cfg);
}

static void test_payload(void **state)
{
	char path[] = "/tmp/test_driver_config.XXXXXX", line[256], err[256];
	struct drv_config cfg;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "PING\r\n", 6), 6);
	close(fd);
	snprintf(line, sizeof(line), "tcp://127.0.0.1:6379 -n 1 --payload %s --response delim:\\r\\n",
		 path);
	assert_int_equal(parse(&cfg, line, err, sizeof(err)), 0);
	assert_int_equal(cfg.payload_len, 6);
	assert_int_equal(cfg.resp_rule, DRV_RESP_DELIM);
	assert_int_equal(cfg.resp_delim_len, 2);
	assert_memory_equal(cfg.resp_delim, "\r\n", 2);
	drv_config_fini(&cfg);
	/* a payload needs a rule on tcp, and no rule on udp */
	snprintf(line, sizeof(line), "tcp://127.0.0.1:6379 -n 1 --payload %s", path);
	assert_int_equal(parse(&cfg, line, err, sizeof(err)), -EINVAL);
	drv_config_fini(&cfg);
	snprintf(line, sizeof(line), "udp://127.0.0.1:53 -n 1 --payload %s", path);
	assert_int_equal(parse(&cfg, line, err, sizeof(err)), 0);
	drv_config_fini(&cfg);
	unlink(path);
}

/* https:// is curl's without --http2, the native HTTP/2 engine's with it; TLS options land in
 * the config. */
static void test_tls_http2(void **state)
{
	char path[] = "/tmp/test_driver_config_ca.XXXXXX", line[256], err[256];
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
	struct drv_config cfg;
	int fd = mkstemp(path), r;

	assert_true(fd >= 0);
	/* an empty CA file is refused: nothing could verify against it */
	snprintf(line, sizeof(line), "https://localhost/ -n 10 --cacert %s", path);
	assert_int_equal(parse(&cfg, line, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty"));
	drv_config_fini(&cfg);
	assert_int_equal(write(fd, "-----BEGIN CERTIFICATE-----\n", 28), 28);
	close(fd);
	assert_int_equal(parse(&cfg, "https://127.0.0.1/x -c 4 -n 10", err, sizeof(err)), 0);
	assert_int_equal(cfg.url.scheme, LL_SCHEME_HTTPS);
	assert_int_equal(cfg.url.port, 443);
	assert_int_equal(cfg.http_engine, DRV_HTTP_CURL);
	assert_int_equal(cfg.resp_rule, DRV_RESP_HTTP);
	assert_false(cfg.http2);
	assert_false(cfg.insecure);
	assert_null(cfg.cacert);
	drv_config_fini(&cfg);

	assert_int_equal(parse(&cfg, "https://localhost:8443/ -n 10 --http2 -k --new-conn", err,
			       sizeof(err)),
			 0);
	assert_true(cfg.http2);
	assert_true(cfg.insecure);
	assert_int_equal(cfg.conn_model, DRV_CONN_NEW);
	drv_config_fini(&cfg);

	snprintf(line, sizeof(line), "https://localhost/ -n 10 --cacert %s --http-engine curl",
		 path);
	assert_int_equal(parse(&cfg, line, err, sizeof(err)), 0);
	assert_string_equal(cfg.cacert, path);
	/* read at parse time: the run may not be allowed to open it (privilege.c) */
	assert_int_equal(cfg.cacert_len, 28);
	assert_memory_equal(cfg.cacert_pem, "-----BEGIN", 10);
	drv_config_fini(&cfg);

	/* --http2 is the native HTTP/2 engine; with --http-engine curl, h2c reuse needs libcurl
	 * 8.0.0 */
	assert_int_equal(parse(&cfg, "http://127.0.0.1:8080/ -n 10 --http2 --new-conn", err,
			       sizeof(err)),
			 0);
	assert_int_equal(cfg.http_engine, DRV_HTTP_NATIVE);
	assert_true(drv_config_h2(&cfg));
	drv_config_fini(&cfg);
	r = parse(&cfg, "http://127.0.0.1:8080/ -n 10 --http2 --http-engine curl", err,
		  sizeof(err));
	if (v->version_num >= 0x080000) {
		assert_int_equal(r, 0);
	} else {
		assert_int_equal(r, -EINVAL);
		assert_non_null(strstr(err, "libcurl"));
	}
	drv_config_fini(&cfg);
	assert_int_equal(parse(&cfg, "https://localhost/ -n 10 --http2 --http-engine curl --new-conn",
			       err, sizeof(err)),
			 0);
	assert_int_equal(cfg.http_engine, DRV_HTTP_CURL);
	assert_false(drv_config_h2(&cfg));
	drv_config_fini(&cfg);
	/* plain http:// stays native */
	assert_int_equal(parse(&cfg, "http://127.0.0.1:8080/ -n 10", err, sizeof(err)), 0);
	assert_int_equal(cfg.http_engine, DRV_HTTP_NATIVE);
	drv_config_fini(&cfg);
	unlink(path);
}

static void test_bad(void **state)
{
	static const char *bad[] = {
		"ftp://127.0.0.1:21 -n 1",		/* unknown scheme */
		"tcp://no.such.host.invalid:7 -n 1",	/* bad host */
		"tcp://127.0.0.1:70000 -n 1",		/* port out of range */
		"tcp://127.0.0.1:7 -c 0 -n 1",		/* out of range */
		"tcp://127.0.0.1:7 -c 1000001 -n 1",	/* out of range: 1M at most */
		"tcp://127.0.0.1:7 -n 1 -c 2 -p 3",	/* more processes than connections */
		"tcp://127.0.0.1:7 -n 1 -p 0",	/* no process */
		"tcp://127.0.0.1:7 -n 1 --connect-rate 0",
		"tcp://127.0.0.1:7 -n 1 -c 4 -p 2 --hdr-log x.log",
		"tcp://127.0.0.1:7 -d 5parsecs",	/* bad duration */
		"tcp://127.0.0.1:7",			/* neither -n nor -d */
		"tcp://127.0.0.1:7 -n 1 -c 2 -t 3",	/* more threads than connections */
		"tcp://127.0.0.1:7 -n 1 --new-conn --reconnect-every 2",
		"tcp://127.0.0.1:7 -n 1 --rate 0",
		"tcp://127.0.0.1:7 -n 1 --rate 1k --delay 1ms",
		"tcp://127.0.0.1:7 -n 1 -m POST",	/* http option on tcp */
		"tcp://127.0.0.1:7 -n 1 --response fixed:4",	/* rule without payload */
		"tcp://127.0.0.1:7 -n 1 --size 9-3",
		"udp://127.0.0.1:7 -n 1 --new-conn",
		"udp://127.0.0.1:7 -n 1 --size 70000",
		"http://127.0.0.1:8080/ -n 1 --size 10",
		"http://127.0.0.1:8080/ -n 1 -m get",
		"http://127.0.0.1:8080/ -n 1 -H NoColon",
		"http://127.0.0.1:8080/ -n 1 -H X-A:a\x01" "b",	/* a control byte in the value */
		"http://127.0.0.1:8080/ -n 1 -H X-A:a\x7f",
		"http://127.0.0.1:8080/ -n 1 -H X\tA:b",	/* a name that is no token */
		"http://127.0.0.1:8080/ -n 1 --http-engine fast",
		"tcp://127.0.0.1:7 -n 1 --shard 2/2",
		"tcp://127.0.0.1:7 -n 1 --shard x",
		"tcp://127.0.0.1:7 -n 1 --source-addr nothost",
		"tcp://127.0.0.1:7 -n 1 --source-addr ::1",	/* family differs */
		"tcp://127.0.0.1:7 -n 1 --start-at 1000",	/* in the past */
		"tcp://127.0.0.1:7 -n 1 --interval 1ms",
		"tcp://127.0.0.1:7 -n 1 --bogus",
		"tcp://127.0.0.1:7 -n 1 -c",
		"tcp://127.0.0.1:7 tcp://127.0.0.1:8 -n 1",
		"tcp://127.0.0.1:7 -n 1 --payload /nonexistent/file --response fixed:1",
		"https://127.0.0.1/ -n 1 --http-engine native",	/* HTTP/1.1 over TLS is curl's */
		"http://127.0.0.1/ -n 1 -k",		/* TLS option on http */
		"tcp://127.0.0.1:7 -n 1 --insecure",
		"http://127.0.0.1/ -n 1 --cacert /dev/null",
		"tcp://127.0.0.1:7 -n 1 --http2",	/* http option on tcp */
		"udp://127.0.0.1:7 -n 1 --http2",
		"https://127.0.0.1/ -n 1 --cacert /nonexistent/ca.pem",
		"https://127.0.0.1/ -n 1 --cacert /dev/null -k", /* one or the other */
		"https://127.0.0.1/ -n 1 --http2 --http-close",
		"https://127.0.0.1/ -n 1 --source-addr 127.0.0.2", /* curl engine */
		"https://127.0.0.1:0/ -n 1",
		"https:/127.0.0.1/ -n 1",
		/* --streams: the native HTTP/2 engine's */
		"http://127.0.0.1/ -n 1 --streams 10",		/* HTTP/1.1: -P */
		"http://127.0.0.1/ -n 1 --streams 10 --http2 --http-engine curl",
		"tcp://127.0.0.1:7 -n 1 --streams 2",
		"http://127.0.0.1/ -n 1 --http2 --streams 0",
		"http://127.0.0.1/ -n 1 --http2 --streams 100000",
		"http://127.0.0.1/ -n 1 --http2 -P 4",		/* -P is HTTP/1.1's */
		"http://127.0.0.1/ -n 1 --http2 --source-addr 127.0.0.2",
		/* grpc: a method path, POST over HTTP/2, -H as metadata only */
		"grpc://127.0.0.1/kv.Store/Put -n 1",		/* no port */
		"grpc://127.0.0.1:50051 -n 1",			/* no method */
		"grpc://127.0.0.1:50051/kv.Store -n 1",
		"grpc://127.0.0.1:50051/kv.Store/Put/x -n 1",
		"grpc://127.0.0.1:50051//Put -n 1",
		"grpc://127.0.0.1:50051/kv.Store/Put?x=1 -n 1",
		"grpc://127.0.0.1:50051/kv.Store/Put -n 1 -m GET",
		"grpc://127.0.0.1:50051/kv.Store/Put -n 1 --body x",
		"grpc://127.0.0.1:50051/kv.Store/Put -n 1 --http2",
		"grpc://127.0.0.1:50051/kv.Store/Put -n 1 --size 10",
		"grpc://127.0.0.1:50051/kv.Store/Put -n 1 -P 2",
		"grpc://127.0.0.1:50051/kv.Store/Put -n 1 -k",	/* TLS option on grpc:// */
		"grpcs://127.0.0.1/kv.Store/Put -n 1 -k --cacert /dev/null",
	};

	refuse_all(bad, sizeof(bad) / sizeof(bad[0]));
}

/* --streams and grpc:// targets: the native HTTP/2 engine drives them. */
static void test_h2(void **state)
{
	struct drv_config cfg;
	char err[256];

	assert_int_equal(parse(&cfg, "http://127.0.0.1:8080/ -c 4 -n 10 --http2 --streams 10", err,
			       sizeof(err)),
			 0);
	assert_int_equal(cfg.streams, 10);
	assert_true(drv_config_h2(&cfg));
	assert_false(drv_config_tls(&cfg));
	drv_config_fini(&cfg);
	assert_int_equal(parse(&cfg, "http://127.0.0.1:8080/ -n 10", err, sizeof(err)), 0);
	assert_int_equal(cfg.streams, 1);
	assert_false(drv_config_h2(&cfg));
	drv_config_fini(&cfg);
	assert_int_equal(parse(&cfg, "grpc://127.0.0.1:50051/kv.Store/Put -n 10 --streams 8 "
				     "-H authorization:x --timeout 250ms",
			       err, sizeof(err)),
			 0);
	assert_int_equal(cfg.url.scheme, LL_SCHEME_GRPC);
	assert_string_equal(cfg.url.path, "/kv.Store/Put");
	assert_string_equal(cfg.method, "POST");
	assert_true(drv_config_h2(&cfg));
	assert_int_equal(cfg.nheaders, 1);
	drv_config_fini(&cfg);
	assert_int_equal(parse(&cfg, "grpcs://localhost/kv.Store/Get -n 10 -k", err, sizeof(err)),
			 0);
	assert_true(drv_config_tls(&cfg) && cfg.insecure);
	assert_int_equal(cfg.url.port, 443);
	drv_config_fini(&cfg);
	assert_int_equal(parse(&cfg, "https://localhost/ -n 10 --http2 --streams 4 -k", err,
			       sizeof(err)),
			 0);
	assert_true(drv_config_h2(&cfg) && drv_config_tls(&cfg));
	assert_int_equal(cfg.http_engine, DRV_HTTP_NATIVE);
	drv_config_fini(&cfg);
	assert_int_equal(drv_config_grpc_path("/a.B/C"), 0);
	assert_int_equal(drv_config_grpc_path("/a.B/"), -EINVAL);
	assert_int_equal(drv_config_grpc_path("a.B/C"), -EINVAL);
}

static void test_help(void **state)
{
	struct drv_config cfg;
	char err[256];

	assert_int_equal(parse(&cfg, "--help", err, sizeof(err)), 0);
	assert_true(cfg.help);
	drv_config_fini(&cfg);
}

/* the protocols' tables (ldap, grpc), as main() registers them (apps.h) */
static int register_apps(void **state)
{
	(void)state;
	drv_apps_register();
	return 0;
}

LL_TEST_MAIN_GROUP(register_apps, NULL, test_good, test_payload, test_tls_http2, test_bad, test_h2, test_help)
