// SPDX-License-Identifier: MIT
/*
 * --help: summary, usage and targets, every option (its lines from options.def, by section), and
 * EXAMPLES for every protocol and load model.
 */
#include "config/config.h"
#include "config/config_help.h"
#include "config/options.h"
#include "base/drv.h"

#define HELP_COLUMN 26 /* where an option's text starts */

/* --help's option entries, in options.def's order: each option, and the second entries */
static const struct help_row {
	enum drv_opt id;
	const char *metavar;
	enum drv_opt_section section;
	const char *text;
} rows[] = {
#define DRV_OPTION(id, name, sh, mv, sec, key, kind, field, merge, help)                           \
	{DRV_OPT_##id, mv, DRV_OPT_SECTION_##sec, help},
#define DRV_OPTION_MORE(id, mv, sec, help) {DRV_OPT_##id, mv, DRV_OPT_SECTION_##sec, help},
#include "config/options.def"
};

static const char *const section_titles[DRV_OPT_SECTION__COUNT] = {
	[DRV_OPT_SECTION_LOAD] = "LOAD",
	[DRV_OPT_SECTION_PAYLOADS] = "PAYLOADS",
	[DRV_OPT_SECTION_SCALE] = "SCALE AND SEVERAL MACHINES",
	[DRV_OPT_SECTION_OUTPUT] = "OUTPUT",
};

static void options_usage(FILE *f)
{
	size_t i;
	int s;

	for (s = 0; s < DRV_OPT_SECTION__COUNT; s++) {
		fprintf(f, "\n%s\n", section_titles[s]);
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			if (rows[i].section == (enum drv_opt_section)s)
				ll_opt_help(f, &drv_options[rows[i].id].opt,
					    rows[i].metavar, rows[i].text, HELP_COLUMN);
	}
}

void drv_config_usage(FILE *f)
{
	fputs(DRV_PROG " - TCP, UDP, HTTP, HTTP/2 and gRPC load with honest latency histograms\n"
		"\n"
		"USAGE\n"
		"  " DRV_PROG " TARGET (-n REQUESTS | -d DURATION) [options]\n"
		"  " DRV_PROG " merge RUN.json RUN.json... [--json FILE]\n"
		"\n"
		"TARGETS\n"
		"  tcp://HOST:PORT         request/response; by default the refserver framing\n"
		"                          (4-byte big-endian length, then the payload, both ways),\n"
		"                          or raw bytes from --payload with a --response rule\n"
		"  udp://HOST:PORT         one datagram each way; no reply within --timeout is\n"
		"                          lost, a reply after it is late (counted apart)\n"
		"  http://HOST[:PORT][/PATH]  HTTP/1.1, keep-alive unless --http-close\n"
		"  https://HOST[:PORT][/PATH] the same over TLS (port 443), through libcurl;\n"
		"                          with --http2 both speak HTTP/2 (h2c, or h2 by ALPN)\n"
		"  grpc://HOST:PORT/package.Service/Method  unary gRPC calls over h2c;\n"
		"  grpcs://HOST[:PORT]/package.Service/Method over TLS: grpc-status counted per\n"
		"                          code, --timeout sent as grpc-timeout, -H as metadata\n"
		"  ldap://HOST[:PORT][/BASEDN[?ATTRS[?SCOPE[?FILTER]]]]  LDAP searches (port 389;\n"
		"                          RFC 4516, %-escapes decoded): tcp:// with --proto ldap\n"
		"  ldaps://HOST[:PORT][/...]  the same over TLS (port 636; -k, --cacert)\n",
	      f);
	options_usage(f);
	fputs("\n"
		"Errors are counted by class (EADDRNOTAVAIL, EMFILE, ECONNREFUSED, ECONNRESET,\n"
		"ETIMEDOUT, lost, short_response, http_status, tls, too_large, resp_error,\n"
		"memcache_client_error, memcache_server_error, dns_rcode, incomplete,\n"
		"h2_rst_stream, h2_goaway_refused, h2_protocol, not_h2, grpc_status, grpc_framing,\n"
		"grpc_compressed, grpc_messages, grpc_content_type, grpc_trailers, ldap_result,\n"
		"ldap_bind, ldap_malformed, other),\n"
		"never stop the run,\n"
		"and each class seen ends the summary with a hint. SIGINT/SIGTERM stop the run\n"
		"and still print the summary. Exit: 0 ok, 1 runtime failure or nothing\n"
		"succeeded, 64 usage error. ghz's and h2load's options that mean something\n"
		"else here (h2load's -m N and -D N, ghz's -d JSON and -z among them) are\n"
		"refused in one line naming ours: \"-m 10: did you mean --streams 10?\"\n"
		"\n"
		"EXAMPLES\n"
		"  closed loop, TCP, refserver framing, 50 connections:\n"
		"    " DRV_PROG " tcp://127.0.0.1:7000 -c 50 -n 200k\n"
		"  random payload sizes, reconnect every 100 requests, 2 threads:\n"
		"    " DRV_PROG " tcp://127.0.0.1:7000 -c 100 -t 2 -d 1m --size 16-4096 "
		"--reconnect-every 100\n"
		"  a new connection per request (connection rate, port pressure):\n"
		"    " DRV_PROG " tcp://127.0.0.1:7000 -c 16 -d 30s --new-conn\n"
		"  redis PING from a payload file, RESP framing (-ERR replies: resp_error):\n"
		"    printf '*1\\r\\n$4\\r\\nPING\\r\\n' > ping.bin\n"
		"    " DRV_PROG " tcp://127.0.0.1:6379 -c 20 -d 10s --payload ping.bin "
		"--response resp\n"
		"  redis SET/GET 1:9 over 100k keys, 16 pipelined per connection:\n"
		"    printf 'weight=1 SET key:{{rand:1-100000}} v{{seq}}\\nweight=9 GET "
		"key:{{zipf:100000:0.99}}\\n' > mix.txt\n"
		"    " DRV_PROG " tcp://127.0.0.1:6379 -c 8 -d 10s -P 16 --requests-file mix.txt "
		"--response resp --seed 1\n"
		"  DNS from a dnsperf query file (NAME TYPE per line), replies by RCODE:\n"
		"    " DRV_PROG " udp://127.0.0.1:53 -c 8 -n 100k --requests-file queries.txt "
		"--response dns\n"
		"  LDAP searches, 16 connections bound anonymously, one random uid each:\n"
		"    " DRV_PROG " tcp://127.0.0.1:389 --proto ldap --base ou=people,dc=example,dc=com "
		"--filter '(uid=user{{rand:0-9999}})' -c 16 -n 50000\n"
		"  the same as an LDAP URL, a simple bind, 256 connections, 10k searches/s:\n"
		"    " DRV_PROG " 'ldap://127.0.0.1/ou=people,dc=example,dc=com?cn?sub?(uid=user7)' "
		"--bind-dn cn=admin,dc=example,dc=com --bind-password-file pw.txt -c 256 -d 30s "
		"--rate 10k\n"
		"  UDP request/response, open loop at 20k/s, 50 ms timeout:\n"
		"    " DRV_PROG " udp://127.0.0.1:9000 -c 32 -d 10s --rate 20k --timeout 50ms\n"
		"  DNS or memcached over UDP from a payload file:\n"
		"    " DRV_PROG " udp://127.0.0.1:53 -c 8 -n 100k --payload query.bin\n"
		"  HTTP keep-alive, closed loop, like wrk:\n"
		"    " DRV_PROG " http://127.0.0.1:8080/ -c 50 -d 30s\n"
		"  HTTP POST with headers and a body, Connection: close:\n"
		"    " DRV_PROG " http://127.0.0.1:8080/api -m POST -H 'Content-Type: "
		"application/json' --body '{\"a\":1}' --http-close -c 8 -n 10k\n"
		"  HTTPS keep-alive, verified with a test CA (connect latency includes TLS):\n"
		"    " DRV_PROG " https://localhost:8443/ -c 50 -d 30s --cacert ca.pem\n"
		"  HTTP/2 over TLS to a self-signed test server, the negotiated version reported:\n"
		"    " DRV_PROG " https://127.0.0.1:8443/ -c 50 -d 30s --http2 -k\n"
		"  HTTP/2 h2c, 4 connections with 10 streams each (h2load -c 4 -m 10):\n"
		"    " DRV_PROG " http://127.0.0.1:8080/ --http2 -c 4 --streams 10 -d 30s\n"
		"  unary gRPC calls over h2c, 8 streams per connection, a 200 ms deadline:\n"
		"    " DRV_PROG " grpc://127.0.0.1:50051/kv.Store/Get -c 4 --streams 8 -d 30s "
		"--timeout 200ms\n"
		"  gRPC, one method, a new key per call:\n"
		"    " DRV_PROG " grpc://127.0.0.1:50051/kv.Store/Put --proto-file kv.proto "
		"--message '{\"key\":\"k{{seq}}\",\"value\":\"dmFs\"}' -c 4 -d 10s\n"
		"  gRPC key/value Put:Get 1:9 over 100k keys, counted per method:\n"
		"    printf 'weight=1 /kv.Store/Put {\"key\":\"k{{rand:0-99999}}\",\"value\":"
		"\"dmFs\"}\\nweight=9 /kv.Store/Get {\"key\":\"k{{rand:0-99999}}\"}\\n' > kv.txt\n"
		"    " DRV_PROG " grpc://127.0.0.1:50051 --proto-file kv.proto --requests-file kv.txt "
		"--seed 1 -c 4 -d 10s\n"
		"  open loop at 10k req/s with a 5 s warm-up, think time-free, results as JSON:\n"
		"    " DRV_PROG " http://127.0.0.1:8080/ -c 100 -d 60s --rate 10k --warmup 5s "
		"--json run.json\n"
		"  closed loop with 10 ms think time, 2,000 requests per connection:\n"
		"    " DRV_PROG " tcp://127.0.0.1:7000 -c 30 -n 60000 --delay 10ms\n"
		"  two machines, one schedule, then an exact merge:\n"
		"    " DRV_PROG " http://10.0.0.5/ -c 200 -d 1m --rate 100k --shard 0/2 --start-at "
		"12:00 --json a.json\n"
		"    " DRV_PROG " http://10.0.0.5/ -c 200 -d 1m --rate 100k --shard 1/2 --start-at "
		"12:00 --json b.json\n"
		"    " DRV_PROG " merge a.json b.json --json all.json\n"
		"  1,000,000 idle connections held for a minute (one request each), from 32\n"
		"  loopback addresses, in as many processes as the fd limit needs:\n"
		"    " DRV_PROG " http://127.0.0.1:8080/ -c 1M -d 3m --delay 1h --connect-rate 10k "
		"--source-addr 127.0.0.2,...,127.0.0.33\n"
		"  what a command line means, without running it (loadlens doctor reads this):\n"
		"    " DRV_PROG " tcp://10.0.0.5:7000 -c 10k -d 1m --connect-rate 500 "
		"--print-plan\n"
		"  past 64k connections to one server:\n"
		"    " DRV_PROG " tcp://10.0.0.5:7000 -c 150000 -t 2 -d 1m --source-addr "
		"10.0.0.2,10.0.0.3,10.0.0.4\n",
	      f);
}
