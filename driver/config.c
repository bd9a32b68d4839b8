// SPDX-License-Identifier: MIT
/* Command line → struct drv_config. Every check ends in one message; the caller exits 64. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "config.h"
#include "drv.h"

enum {
	OPT_NEW_CONN = 0x100,
	OPT_RECONNECT_EVERY,
	OPT_SIZE,
	OPT_TIMEOUT,
	OPT_JSON,
	OPT_INTERVAL,
};

static const struct option x__long_opts[] = {
	{"connections", required_argument, NULL, 'c'},
	{"threads", required_argument, NULL, 't'},
	{"requests", required_argument, NULL, 'n'},
	{"duration", required_argument, NULL, 'd'},
	{"new-conn", no_argument, NULL, OPT_NEW_CONN},
	{"reconnect-every", required_argument, NULL, OPT_RECONNECT_EVERY},
	{"size", required_argument, NULL, OPT_SIZE},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"json", required_argument, NULL, OPT_JSON},
	{"interval", required_argument, NULL, OPT_INTERVAL},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static const char x__short_opts[] = ":c:t:n:d:qhV";

void drv_config_usage(FILE *f)
{
	fprintf(f,
		DRV_PROG " - closed-loop load generator with exact latency histograms\n"
		"\n"
		"USAGE\n"
		"  " DRV_PROG " tcp://HOST:PORT (-n REQUESTS | -d DURATION) [options]\n"
		"\n"
		"TARGET\n"
		"  tcp://HOST:PORT         length-prefixed request/response: a 4-byte big-endian\n"
		"                          length then the payload, both ways (loadlens-refserver\n"
		"                          --proto tcp). udp:// and http:// are not supported yet.\n"
		"\n"
		"OPTIONS\n"
		"  -c, --connections N     connection slots in total, each one request at a time\n"
		"                          (default 1)\n"
		"  -t, --threads N         worker threads, one event loop each, at most -c\n"
		"                          (default 1)\n"
		"  -n, --requests N        total request attempts, split exactly across the\n"
		"                          connections; k/M/G suffixes allowed\n"
		"  -d, --duration D        run for D (250ms, 30s, 2m); with -n, whichever ends first\n"
		"      --new-conn          a new connection per request; the driver closes first,\n"
		"                          so TIME_WAIT lands on the client\n"
		"      --reconnect-every K open a new connection every K requests\n"
		"                          (default: keep-alive, one connection per slot)\n"
		"      --size BYTES        request payload size (default %d, at most 16M)\n"
		"      --timeout D         connect and request timeout (default 5s); an expired\n"
		"                          request counts as ETIMEDOUT\n"
		"      --json FILE         write results and mergeable histograms as JSON\n"
		"                          (schema: docs/driver.md)\n"
		"      --interval D        live progress line on stderr every D (default 1s, 0 = off)\n"
		"  -q, --quiet             no banner and no live line; the summary still prints\n"
		"  -h, --help              this help\n"
		"  -V, --version           print the version\n"
		"\n"
		"Errors are counted by class (EADDRNOTAVAIL, EMFILE, ECONNREFUSED, ECONNRESET,\n"
		"ETIMEDOUT, short_response, other) and never stop the run; each class seen ends the\n"
		"summary with a hint. SIGINT/SIGTERM stop the run and still print the summary.\n"
		"Exit status: 0 ok, 1 runtime failure or no request succeeded, 64 usage error.\n"
		"\n"
		"EXAMPLES\n"
		"  " DRV_PROG " tcp://127.0.0.1:7000 -c 50 -n 200k\n"
		"  " DRV_PROG " tcp://127.0.0.1:7000 -c 8 -t 2 -d 30s --json run.json\n"
		"  " DRV_PROG " tcp://10.0.0.5:7000 -c 1 -n 10000 --new-conn\n"
		"  " DRV_PROG " tcp://10.0.0.5:7000 -c 100 -d 1m --reconnect-every 100 --size 1024\n",
		DRV_DEFAULT_SIZE);
}

const char *drv_conn_model_name(enum drv_conn_model m)
{
	switch (m) {
	case DRV_CONN_KEEPALIVE:
		return "keep-alive";
	case DRV_CONN_NEW:
		return "new-conn";
	case DRV_CONN_RECONNECT:
		return "reconnect-every";
	}
	return "?";
}

void drv_config_init(struct drv_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->connections = 1;
	cfg->threads = 1;
	cfg->size = DRV_DEFAULT_SIZE;
	cfg->timeout_ns = DRV_DEFAULT_TIMEOUT_NS;
	cfg->interval_ns = DRV_DEFAULT_INTERVAL_NS;
	cfg->conn_model = DRV_CONN_KEEPALIVE;
}

__attribute__((format(printf, 3, 4))) static int x__fail(char *err, size_t errlen,
							 const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int x__num(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		  char *err, size_t errlen)
{
	int r = ll_parse_u64(s, min, max, out);

	if (r == -ERANGE)
		return x__fail(err, errlen, "%s %s: out of range, must be %llu..%llu", opt, s,
			       (unsigned long long)min, (unsigned long long)max);
	if (r)
		return x__fail(err, errlen, "%s %s: not a number", opt, s);
	return 0;
}

static int x__dur(const char *opt, const char *s, uint64_t min, uint64_t *out, char *err,
		  size_t errlen)
{
	if (ll_parse_duration(s, out))
		return x__fail(err, errlen, "%s %s: bad duration, use e.g. 250ms, 30s, 2m", opt,
			       s);
	if (*out < min)
		return x__fail(err, errlen, "%s %s: too short, at least %lluns", opt, s,
			       (unsigned long long)min);
	return 0;
}

static int x__target(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	int r;

	if (ll_parse_url(s, &cfg->url))
		return x__fail(err, errlen, "bad target '%s': expected tcp://HOST:PORT", s);
	if (cfg->url.scheme != LL_SCHEME_TCP)
		return x__fail(err, errlen, "%s:// is not supported yet: only tcp://HOST:PORT",
			       ll_scheme_name(cfg->url.scheme));
	r = ll_resolve(cfg->url.host, cfg->url.port, SOCK_STREAM, &cfg->addr, &cfg->addrlen);
	if (r)
		return x__fail(err, errlen, "cannot resolve host '%s' of %s", cfg->url.host, s);
	cfg->url_text = s;
	return 0;
}

int drv_config_parse(struct drv_config *cfg, int argc, char **argv, char *err, size_t errlen)
{
	const char *target = NULL;
	bool new_conn = false;
	const char *opt;
	int c, r;

	drv_config_init(cfg);
	if (err && errlen)
		err[0] = '\0';
	optind = 0; /* glibc: full re-initialisation, so the parser can run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, x__short_opts, x__long_opts, NULL)) != -1) {
		opt = argv[optind - 1];
		r = 0;
		switch (c) {
		case 'c':
			r = x__num("-c", optarg, 1, DRV_MAX_CONNECTIONS, &cfg->connections, err,
				   errlen);
			break;
		case 't':
			r = x__num("-t", optarg, 1, DRV_MAX_THREADS, &cfg->threads, err, errlen);
			break;
		case 'n':
			r = x__num("-n", optarg, 1, DRV_MAX_REQUESTS, &cfg->requests, err, errlen);
			break;
		case 'd':
			r = x__dur("-d", optarg, 1000000, &cfg->duration_ns, err, errlen);
			break;
		case OPT_NEW_CONN:
			new_conn = true;
			break;
		case OPT_RECONNECT_EVERY:
			r = x__num("--reconnect-every", optarg, 1, DRV_MAX_REQUESTS,
				   &cfg->reconnect_every, err, errlen);
			break;
		case OPT_SIZE:
			r = x__num("--size", optarg, 0, DRV_MAX_SIZE, &cfg->size, err, errlen);
			break;
		case OPT_TIMEOUT:
			r = x__dur("--timeout", optarg, 1000000, &cfg->timeout_ns, err, errlen);
			break;
		case OPT_JSON:
			if (!*optarg)
				r = x__fail(err, errlen, "--json: empty file name");
			cfg->json_path = optarg;
			break;
		case OPT_INTERVAL:
			r = x__dur("--interval", optarg, 0, &cfg->interval_ns, err, errlen);
			if (!r && cfg->interval_ns && cfg->interval_ns < 10000000)
				r = x__fail(err, errlen, "--interval %s: at least 10ms, or 0 for off",
					    optarg);
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case 'h':
			cfg->help = true;
			return 0;
		case 'V':
			cfg->version = true;
			return 0;
		case ':':
			return x__fail(err, errlen, "%s needs a value (see --help)", opt);
		default:
			if (optopt && optopt < 0x100)
				return x__fail(err, errlen, "unknown option -%c (see --help)", optopt);
			return x__fail(err, errlen, "unknown option %s (see --help)", opt);
		}
		if (r)
			return r;
	}
	if (optind >= argc)
		return x__fail(err, errlen, "missing target tcp://HOST:PORT (see --help)");
	if (optind + 1 < argc)
		return x__fail(err, errlen, "unexpected argument '%s': one target only",
			       argv[optind + 1]);
	target = argv[optind];

	if (new_conn && cfg->reconnect_every)
		return x__fail(err, errlen, "--new-conn and --reconnect-every exclude each other");
	if (new_conn) {
		cfg->conn_model = DRV_CONN_NEW;
		cfg->reconnect_every = 1;
	} else if (cfg->reconnect_every) {
		cfg->conn_model = DRV_CONN_RECONNECT;
	}
	if (!cfg->requests && !cfg->duration_ns)
		return x__fail(err, errlen, "say how long to run: -n REQUESTS or -d DURATION");
	if (cfg->threads > cfg->connections)
		return x__fail(err, errlen, "-t %llu is more than the %llu connection(s) of -c",
			       (unsigned long long)cfg->threads,
			       (unsigned long long)cfg->connections);
	return x__target(cfg, target, err, errlen);
}
