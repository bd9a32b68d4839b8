// SPDX-License-Identifier: MIT
/* Command line: the option table, --help, --version, and strict parsing (exit 64 on bad input). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "loadlens/parse.h"
#include "refserver.h"

struct opt {
	const char *name;
	const char *arg; /* NULL: a flag */
	const char *help;
	void (*set)(struct rs_config *cfg, const char *name, const char *val);
};

static void bad(const char *name, const char *val, const char *what)
{
	ll_usage_error(RS_PROG, "invalid %s '%s': %s (see --help)", name, val, what);
}

/* VAL's index in the NULL-ended NAMES; else a usage error saying what was EXPECTED. */
static int choice(const char *name, const char *val, const char *const *names,
		     const char *expected)
{
	int i = rs_name_index(names, val);

	if (i < 0)
		bad(name, val, expected);
	return i < 0 ? 0 : i;
}

static void set_proto(struct rs_config *cfg, const char *name, const char *val)
{
	cfg->proto = (enum rs_proto)choice(name, val, rs_proto_names,
					   "expected tcp, udp, http, h2 or grpc");
}

static void set_listen(struct rs_config *cfg, const char *name, const char *val)
{
	if (ll_parse_hostport(val, cfg->host, sizeof(cfg->host), &cfg->port))
		bad(name, val, "expected HOST:PORT with a port in 1..65535");
}

static void set_service_time(struct rs_config *cfg, const char *name, const char *val)
{
	if (ll_parse_duration(val, &cfg->service_ns) || cfg->service_ns > 3600000000000ULL)
		bad(name, val, "expected a duration up to 1h such as 1ms, 250us, 2s");
}

static void set_dist(struct rs_config *cfg, const char *name, const char *val)
{
	cfg->dist = (enum rs_dist)choice(name, val, rs_dist_names, "expected fixed or exp");
}

static void set_mode(struct rs_config *cfg, const char *name, const char *val)
{
	cfg->mode = (enum rs_mode)choice(name, val, rs_mode_names, "expected spin or sleep");
}

/* VAL as an integer in LO..HI; else a usage error saying what was EXPECTED. */
static uint64_t u64(const char *name, const char *val, uint64_t lo, uint64_t hi,
		       const char *expected)
{
	uint64_t v = 0;

	if (ll_parse_u64(val, lo, hi, &v))
		bad(name, val, expected);
	return v;
}

static void set_workers(struct rs_config *cfg, const char *name, const char *val)
{
	cfg->workers = (unsigned)u64(name, val, 1, RS_MAX_WORKERS,
					"expected an integer in 1..256");
}

static void set_backlog(struct rs_config *cfg, const char *name, const char *val)
{
	cfg->backlog = (int)u64(name, val, 1, 65535, "expected an integer in 1..65535");
}

static void set_response_size(struct rs_config *cfg, const char *name, const char *val)
{
	cfg->response_size = (int64_t)u64(name, val, 0, RS_MAX_RESPONSE,
					     "expected a byte count in 0..16777216");
}

static void set_seed(struct rs_config *cfg, const char *name, const char *val)
{
	cfg->seed = u64(name, val, 0, UINT64_MAX, "expected a non-negative integer");
}

static void set_json(struct rs_config *cfg, const char *name, const char *val)
{
	if (!*val)
		bad(name, val, "expected a file name, or - for stdout");
	cfg->json_path = val;
}

static void set_trace(struct rs_config *cfg, const char *name, const char *val)
{
	if (!*val)
		bad(name, val, "expected a file name");
	cfg->trace_path = val;
}

static void options_help(struct rs_config *cfg, const char *name, const char *val);
static void version(struct rs_config *cfg, const char *name, const char *val);

static const struct opt opts[] = {
	{"--proto", "tcp|udp|http|h2|grpc",
	 "protocol to serve (default tcp); h2 and grpc: HTTP/2 by prior knowledge (h2c)",
	 set_proto},
	{"--listen", "HOST:PORT", "address to listen on (default 127.0.0.1:8000)", set_listen},
	{"--service-time", "DUR", "service time per request, e.g. 1ms (default 0)",
	 set_service_time},
	{"--service-dist", "fixed|exp", "fixed, or exponential with mean --service-time",
	 set_dist},
	{"--service-mode", "spin|sleep", "busy-loop (default), or sleep with the CPU idle",
	 set_mode},
	{"--workers", "N", "worker threads, one loop and SO_REUSEPORT socket each (default 1)",
	 set_workers},
	{"--backlog", "N", "listen backlog (default 511)", set_backlog},
	{"--response-size", "BYTES",
	 "reply with BYTES bytes of 'x' (default: echo; http, h2: \"hello, loadlens\\n\"; "
	 "grpc: the empty message, else field 15 holds them)",
	 set_response_size},
	{"--seed", "N", "seed of the per-worker PRNG for --service-dist exp (default 1)",
	 set_seed},
	{"--json", "FILE", "write counters and the service-time histogram at exit (- = stdout)",
	 set_json},
	{"--trace", "FILE", "write each request's read, service and write times at exit (CSV)",
	 set_trace},
	{"--help", NULL, "show this help and exit", options_help},
	{"--version", NULL, "print the version and exit", version},
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static void print_opt(const char *name, const char *arg, const char *help)
{
	char left[48];

	snprintf(left, sizeof(left), "%s%s%s", name, arg ? " " : "", arg ? arg : "");
	printf("  %-28s %s\n", left, help);
}

static void options_help(struct rs_config *cfg, const char *name, const char *val)
{
	size_t i;

	printf("loadlens-refserver - a libuv tcp/udp/http/h2/grpc server whose behaviour is known "
	       "exactly\n"
	       "\n"
	       "Usage: loadlens-refserver --proto tcp|udp|http|h2|grpc [--listen HOST:PORT] "
	       "[options]\n"
	       "\n"
	       "Serves until SIGINT or SIGTERM, then writes --json FILE, prints a one-line\n"
	       "summary to stdout and exits 0. Each worker serves one request at a time and\n"
	       "spends the service time inside its event loop, so requests queue in the kernel.\n"
	       "TCP framing: 4-byte big-endian length N (<= 16 MiB) then N bytes, both ways.\n"
	       "h2: HTTP/2 by prior knowledge (h2c, no Upgrade); every stream is one request,\n"
	       "the streams of a worker are served one at a time in the order their requests\n"
	       "ended, so the streams of one connection queue at the server.\n"
	       "grpc: unary calls POST /Service/Method over h2c; the reply is one message\n"
	       "(empty, or field 15 of --response-size bytes) and trailers with grpc-status.\n"
	       "\n"
	       "Options:\n");
	for (i = 0; i < NOPTS; i++)
		print_opt(opts[i].name, opts[i].arg, opts[i].help);
	printf("\nMisbehaviour switches:\n");
	for (i = 0; i < rs_nswitches; i++)
		print_opt(rs_switches[i].name, rs_switches[i].arg, rs_switches[i].help);
	printf("\n"
	       "Exit codes: 0 ok, 1 runtime failure, 64 usage error.\n"
	       "\n"
	       "EXAMPLES\n"
	       "  loadlens-refserver --proto http --listen 127.0.0.1:8080\n"
	       "  loadlens-refserver --proto tcp --service-time 1ms --workers 2 --json out.json\n"
	       "  loadlens-refserver --proto tcp --service-time 1ms --trace requests.csv\n"
	       "  loadlens-refserver --proto http --service-time 2ms --service-dist exp "
	       "--service-mode sleep --seed 7\n"
	       "  loadlens-refserver --proto udp --listen :9000 --drop-every 10\n"
	       "  loadlens-refserver --proto http --stall 2s:1s    # one 1 s stall at t = 2 s\n"
	       "  loadlens-refserver --proto tcp --no-close --leak-fds 4\n"
	       "  loadlens-refserver --proto h2 --listen 127.0.0.1:8080 --service-time 1ms "
	       "--workers 2\n"
	       "      # then: h2load -c 4 -m 10 -n 20000 http://127.0.0.1:8080/\n"
	       "  loadlens-refserver --proto h2 --max-streams 1 --rst-every 10 --stall-every 50\n"
	       "  loadlens-refserver --proto h2 --goaway-after 1000  # GOAWAY at each conn's "
	       "1000th\n"
	       "  loadlens-refserver --proto grpc --listen :50051 "
	       "--grpc-status RESOURCE_EXHAUSTED:10\n"
	       "  loadlens-refserver --proto grpc --response-size 100 --json grpc.json\n"
	       "\n"
	       "See docs/refserver.md for the framing, the counters and the JSON schema.\n");
	exit(LL_EXIT_OK);
}

static void version(struct rs_config *cfg, const char *name, const char *val)
{
	printf("loadlens-refserver %s\n", LOADLENS_VERSION);
	exit(LL_EXIT_OK);
}

static void defaults(struct rs_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->proto = RS_PROTO_TCP;
	strcpy(cfg->host, "127.0.0.1");
	cfg->port = 8000;
	cfg->dist = RS_DIST_FIXED;
	cfg->mode = RS_MODE_SPIN;
	cfg->workers = 1;
	cfg->backlog = 511;
	cfg->response_size = -1;
	cfg->seed = 1;
}

/* "--name VALUE" or "--name=VALUE" (wants: its ARG), or no value for a flag (wants NULL: *val
 * NULL); returns the index of the last argv element used. */
static int take_value(int argc, char **argv, int i, const char *name, const char *eq,
			 const char *wants, const char **val)
{
	*val = NULL;
	if (!wants) {
		if (eq)
			ll_usage_error(RS_PROG, "%s takes no value", name);
		return i;
	}
	if (eq) {
		*val = eq + 1;
		return i;
	}
	if (i + 1 >= argc)
		ll_usage_error(RS_PROG, "%s needs a value (see --help)", name);
	*val = argv[i + 1];
	return i + 1;
}

void rs_parse_args(struct rs_config *cfg, int argc, char **argv)
{
	char name[64], why[128];
	const char *arg, *eq, *val;
	size_t i, n;
	int a;

	defaults(cfg);
	for (a = 1; a < argc; a++) {
		arg = argv[a];
		if (strncmp(arg, "--", 2))
			ll_usage_error(RS_PROG, "unexpected argument '%s' (see --help)", arg);
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		if (n >= sizeof(name))
			ll_usage_error(RS_PROG, "unknown option '%s' (see --help)", arg);
		memcpy(name, arg, n);
		name[n] = '\0';

		for (i = 0; i < NOPTS; i++) {
			if (strcmp(name, opts[i].name))
				continue;
			a = take_value(argc, argv, a, name, eq, opts[i].arg, &val);
			opts[i].set(cfg, name, val);
			break;
		}
		if (i < NOPTS)
			continue;
		for (i = 0; i < rs_nswitches; i++) {
			if (strcmp(name, rs_switches[i].name))
				continue;
			a = take_value(argc, argv, a, name, eq, rs_switches[i].arg, &val);
			if (rs_switch_parse(&rs_switches[i], &cfg->mb, val))
				ll_usage_error(RS_PROG, "invalid %s '%s': expected %s (see --help)",
					       name, val ? val : "",
					       rs_switches[i].expect ? rs_switches[i].expect
								     : rs_switches[i].arg);
			break;
		}
		if (i == rs_nswitches)
			ll_usage_error(RS_PROG, "unknown option '%s' (see --help)", arg);
	}

	if (rs_misbehave_check(cfg, why, sizeof(why)))
		ll_usage_error(RS_PROG, "%s", why);
	if (cfg->dist == RS_DIST_EXP && !cfg->service_ns)
		ll_usage_error(RS_PROG, "--service-dist exp needs a --service-time mean above 0");
	if (ll_resolve(cfg->host, cfg->port, cfg->proto == RS_PROTO_UDP ? SOCK_DGRAM : SOCK_STREAM,
		       &cfg->addr, &cfg->addrlen))
		ll_usage_error(RS_PROG, "cannot resolve --listen host '%s'", cfg->host);
	ll_format_addr((const struct sockaddr *)&cfg->addr, cfg->listen_str,
		       sizeof(cfg->listen_str));
}
