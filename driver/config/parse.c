// SPDX-License-Identifier: MIT
/* Command line → struct drv_config. Every check ends in one message; the caller exits 64. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "config/config.h"
#include "config/grpc_msg.h"
#include "config/reqmix.h"
#include "config/option.h"
#include "config/config_grpc.h"
#include "config/config_h2.h"
#include "config/config_http.h"
#include "config/config_ldap.h"
#include "config/config_payload.h"
#include "config/config_udp.h"
#include "config/config_work.h"
#include "config/peer_flags.h"
#include "base/drv.h"
#include "config/quote.h"

enum {
	OPT_NEW_CONN = 0x100,
	OPT_RECONNECT_EVERY,
	OPT_SIZE,
	OPT_TIMEOUT,
	OPT_JSON,
	OPT_INTERVAL,
	OPT_RATE,
	OPT_DELAY,
	OPT_WARMUP,
	OPT_PAYLOAD,
	OPT_RESPONSE,
	OPT_BODY,
	OPT_BODY_FILE,
	OPT_HTTP_CLOSE,
	OPT_HTTP_ENGINE,
	OPT_HTTP2,
	OPT_CACERT,
	OPT_SOURCE_ADDR,
	OPT_START_AT,
	OPT_SHARD,
	OPT_ID,
	OPT_RCVBUF,
	OPT_PROTO,
	OPT_HDR_LOG,
	OPT_REQUESTS_FILE,
	OPT_SEED,
	OPT_CONNECT_RATE,
	OPT_STREAMS,
	OPT_PROTO_FILE,
	OPT_MESSAGE,
	OPT_MESSAGE_FILE,
	OPT_PRINT_PLAN,
	OPT_IMPORT_PATH,
	OPT_LDAP, /* --base --scope --filter --attrs --bind-dn --bind-password-file --starttls */
	OPT_LDAP_LAST = OPT_LDAP + 6,
};

static const struct option long_opts[] = {
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
	{"rate", required_argument, NULL, OPT_RATE},
	{"delay", required_argument, NULL, OPT_DELAY},
	{"warmup", required_argument, NULL, OPT_WARMUP},
	{"payload", required_argument, NULL, OPT_PAYLOAD},
	{"response", required_argument, NULL, OPT_RESPONSE},
	{"method", required_argument, NULL, 'm'},
	{"header", required_argument, NULL, 'H'},
	{"body", required_argument, NULL, OPT_BODY},
	{"body-file", required_argument, NULL, OPT_BODY_FILE},
	{"http-close", no_argument, NULL, OPT_HTTP_CLOSE},
	{"http-engine", required_argument, NULL, OPT_HTTP_ENGINE},
	{"http2", no_argument, NULL, OPT_HTTP2},
	{"insecure", no_argument, NULL, 'k'},
	{"cacert", required_argument, NULL, OPT_CACERT},
	{"source-addr", required_argument, NULL, OPT_SOURCE_ADDR},
	{"start-at", required_argument, NULL, OPT_START_AT},
	{"shard", required_argument, NULL, OPT_SHARD},
	{"id", required_argument, NULL, OPT_ID},
	{"rcvbuf", required_argument, NULL, OPT_RCVBUF},
	{"proto", required_argument, NULL, OPT_PROTO},
	{"hdr-log", required_argument, NULL, OPT_HDR_LOG},
	{"requests-file", required_argument, NULL, OPT_REQUESTS_FILE},
	{"seed", required_argument, NULL, OPT_SEED},
	{"connect-rate", required_argument, NULL, OPT_CONNECT_RATE},
	{"streams", required_argument, NULL, OPT_STREAMS},
	{"proto-file", required_argument, NULL, OPT_PROTO_FILE},
	{"message", required_argument, NULL, OPT_MESSAGE},
	{"message-file", required_argument, NULL, OPT_MESSAGE_FILE},
	{"import-path", required_argument, NULL, OPT_IMPORT_PATH},
	{"base", required_argument, NULL, OPT_LDAP},
	{"scope", required_argument, NULL, OPT_LDAP + 1},
	{"filter", required_argument, NULL, OPT_LDAP + 2},
	{"attrs", required_argument, NULL, OPT_LDAP + 3},
	{"bind-dn", required_argument, NULL, OPT_LDAP + 4},
	{"bind-password-file", required_argument, NULL, OPT_LDAP + 5},
	{"starttls", no_argument, NULL, OPT_LDAP + 6},
	{"procs", required_argument, NULL, 'p'},
	{"pipeline", required_argument, NULL, 'P'},
	{"quiet", no_argument, NULL, 'q'},
	{"print-plan", no_argument, NULL, OPT_PRINT_PLAN},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static const char *const ldap_opts[] = {"base", "scope", "filter", "attrs", "bind-dn",
					"bind-password-file", "starttls"};

const struct option *drv_config_options(void)
{
	return long_opts;
}

static const char short_opts[] = ":c:t:n:d:m:H:P:p:kqhV";

void drv_config_init(struct drv_config *cfg)
{
	/* the defaults; everything else 0, NULL or false */
	static const struct drv_config defaults = {
		.connections = 1, .threads = 1, .size = DRV_DEFAULT_SIZE,
		.size_min = DRV_DEFAULT_SIZE, .timeout_ns = DRV_DEFAULT_TIMEOUT_NS,
		.interval_ns = DRV_DEFAULT_INTERVAL_NS, .conn_model = DRV_CONN_KEEPALIVE,
		.method = "GET", .shard_count = 1, .pipeline = 1, .hdr_log_fd = -1,
		.streams = 1,
	};

	memcpy(cfg, &defaults, sizeof(*cfg));
}

void drv_config_fini(struct drv_config *cfg)
{
	free(cfg->payload);
	free(cfg->body);
	free(cfg->sources);
	free(cfg->cacert_pem);
	cfg->cacert_pem = NULL;
	free(cfg->grpc_json);
	cfg->grpc_json = NULL;
	drv_reqmix_free(cfg->mix);
	drv__config_ldap_free(cfg);
	cfg->mix = NULL;
	drv_grpc_msgs_free(cfg->grpc_msgs); /* reads nothing of the mix it borrowed */
	cfg->grpc_msgs = NULL;
	cfg->payload = NULL;
	cfg->body = NULL;
	cfg->sources = NULL;
}

static int dur(const char *opt, const char *s, uint64_t min, uint64_t *out, char *err,
		  size_t errlen)
{
	if (ll_parse_duration(s, out))
		return drv__config_fail(err, errlen, "%s %s: bad duration, use e.g. 250ms, 30s, 2m", opt,
			       s);
	if (*out < min)
		return drv__config_fail(err, errlen, "%s %s: too short, at least %lluns", opt, s,
			       (unsigned long long)min);
	return 0;
}

/* --rate R[k|M]: requests/s */
/* A rate per second, "10k" and "2M" allowed, into *out. */
static int rate(const char *opt, const char *what, const char *s, double *out, char *err,
		   size_t errlen)
{
	size_t n = strlen(s);
	double mult = 1;
	char buf[64];

	if (n && n < sizeof(buf) && (s[n - 1] == 'k' || s[n - 1] == 'M')) {
		mult = s[n - 1] == 'k' ? 1e3 : 1e6;
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		s = buf;
	}
	if (ll_parse_double(s, 0, DRV_MAX_RATE, out) || *out * mult < 0.001 ||
	    *out * mult > DRV_MAX_RATE)
		return drv__config_fail(err, errlen, "%s %s: expected %s/s in 0.001..1e8 "
					    "(k and M suffixes allowed)", opt, s, what);
	*out *= mult;
	return 0;
}

static int sources(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	char buf[1024], *tok, *save = NULL;
	struct sockaddr_storage ss;

	if (strlen(s) >= sizeof(buf) || !*s)
		return drv__config_fail(err, errlen, "--source-addr: expected a comma-separated list");
	strcpy(buf, s);
	free(cfg->sources);
	cfg->nsources = 0;
	cfg->sources = calloc(DRV_MAX_SOURCES, sizeof(*cfg->sources));
	if (!cfg->sources)
		return drv__config_fail(err, errlen, "--source-addr: out of memory");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (cfg->nsources >= DRV_MAX_SOURCES)
			return drv__config_fail(err, errlen, "--source-addr: at most %d addresses",
				       DRV_MAX_SOURCES);
		memset(&ss, 0, sizeof(ss));
		if (inet_pton(AF_INET, tok, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
			ss.ss_family = AF_INET;
		} else if (inet_pton(AF_INET6, tok, &((struct sockaddr_in6 *)&ss)->sin6_addr) ==
			   1) {
			ss.ss_family = AF_INET6;
		} else {
			return drv__config_fail(err, errlen, "--source-addr %s: not a numeric IP address",
				       tok);
		}
		cfg->sources[cfg->nsources++] = ss;
	}
	if (!cfg->nsources)
		return drv__config_fail(err, errlen, "--source-addr: expected a comma-separated list");
	return 0;
}

/* --start-at UNIX_SECONDS[.frac] or HH:MM[:SS] (today, local time) */
static int start_at(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	struct timespec now;
	unsigned hh, mm, ss = 0;
	struct tm tm;
	double v;
	time_t t;
	char tail;

	clock_gettime(CLOCK_REALTIME, &now);
	if (strchr(s, ':')) {
		if (sscanf(s, "%u:%u:%u%c", &hh, &mm, &ss, &tail) < 2 || hh > 23 || mm > 59 ||
		    ss > 60)
			return drv__config_fail(err, errlen, "--start-at %s: expected HH:MM[:SS]", s);
		t = now.tv_sec;
		localtime_r(&t, &tm);
		tm.tm_hour = (int)hh;
		tm.tm_min = (int)mm;
		tm.tm_sec = (int)ss;
		t = mktime(&tm);
		v = (double)t;
	} else if (ll_parse_double(s, 1, 1e11, &v)) {
		return drv__config_fail(err, errlen, "--start-at %s: expected UNIX seconds or HH:MM[:SS]", s);
	}
	if (v < (double)now.tv_sec - 1)
		return drv__config_fail(err, errlen, "--start-at %s: that time has passed", s);
	if (v > (double)now.tv_sec + 86400)
		return drv__config_fail(err, errlen, "--start-at %s: more than a day away", s);
	cfg->start_at_unix_ns = (uint64_t)(v * 1e9);
	return 0;
}

/* --shard i/N, i in 0..N-1 */
static int shard(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	unsigned long i, n;
	char tail;

	if (sscanf(s, "%lu/%lu%c", &i, &n, &tail) != 2 || !n || n > 65536 || i >= n)
		return drv__config_fail(err, errlen, "--shard %s: expected i/N with 0 <= i < N <= 65536", s);
	cfg->shard_index = (uint32_t)i;
	cfg->shard_count = (uint32_t)n;
	return 0;
}

static int parse_target(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	int r = drv__config_ldap_url(cfg, s, err, errlen); /* ldap://: config_ldap.c */

	if (r < 0)
		return r;
	if (!r && ll_parse_url(s, &cfg->url))
		return drv__config_fail(err, errlen,
			       "bad target '%s': expected tcp://HOST:PORT, udp://HOST:PORT, "
			       "http://HOST[:PORT][/PATH], https://HOST[:PORT][/PATH], "
			       "grpc[s]://HOST:PORT/package.Service/Method or ldap[s]://HOST[:PORT]/BASEDN",
			       s);
	r = ll_resolve(cfg->url.host, cfg->url.port,
		       cfg->url.scheme == LL_SCHEME_UDP ? SOCK_DGRAM : SOCK_STREAM, &cfg->addr,
		       &cfg->addrlen);
	if (r)
		return drv__config_fail(err, errlen, "cannot resolve host '%s' of %s", cfg->url.host, s);
	cfg->url_text = s;
	return 0;
}

/* Options that only some schemes take, and combinations that make no sense. */
static int check(struct drv_config *cfg, const struct drv__seen *seen, char *err,
		    size_t errlen)
{
	enum ll_scheme sch = cfg->url.scheme;
	unsigned i;

	if (seen->new_conn && cfg->reconnect_every)
		return drv__config_fail(err, errlen, "--new-conn and --reconnect-every exclude each other");
	if (seen->new_conn) {
		cfg->conn_model = DRV_CONN_NEW;
		cfg->reconnect_every = 1;
	} else if (cfg->reconnect_every) {
		cfg->conn_model = DRV_CONN_RECONNECT;
	}
	if (!cfg->requests && !cfg->duration_ns)
		return drv__config_fail(err, errlen, "say how long to run: -n REQUESTS or -d DURATION");
	if (drv__config_ldap_check(cfg, seen->resp_given, err, errlen)) /* config_ldap.c */
		return -EINVAL;
	if (cfg->threads > cfg->connections)
		return drv__config_fail(err, errlen, "-t %llu is more than the %llu connection(s) of -c",
			       (unsigned long long)cfg->threads,
			       (unsigned long long)cfg->connections);
	if (cfg->procs > cfg->connections)
		return drv__config_fail(err, errlen, "-p %llu is more than the %llu connection(s) of -c",
			       (unsigned long long)cfg->procs,
			       (unsigned long long)cfg->connections);
	if (cfg->procs > 1 && cfg->hdr_log_path)
		return drv__config_fail(err, errlen, "--hdr-log writes one process's log: use it "
					"with -p 1");
	if (cfg->rate && cfg->delay_ns)
		return drv__config_fail(err, errlen,
			       "--delay is think time for the closed loop; --rate sets the pace");
	if (seen->resp_given && sch == LL_SCHEME_UDP && cfg->resp_rule == DRV_RESP_DNS &&
	    (cfg->payload || cfg->requests_path)) {
		/* udp:// --response dns: replies are checked for their RCODE */
	} else if (seen->resp_given &&
		   (sch != LL_SCHEME_TCP || (!cfg->payload && !cfg->requests_path))) {
		return drv__config_fail(err, errlen, "--response goes with tcp:// and --payload FILE "
					"(dns: udp:// too)");
	}
	if (cfg->payload && sch == LL_SCHEME_TCP && !seen->resp_given)
		return drv__config_fail(err, errlen,
			       "--payload needs --response fixed:N, delim:STR or prefix:N to know "
			       "where a response ends");
	if (cfg->payload && !cfg->payload_len)
		return drv__config_fail(err, errlen, "--payload %s: the file is empty", cfg->payload_path);
	if (sch == LL_SCHEME_UDP) {
		if (cfg->conn_model != DRV_CONN_KEEPALIVE)
			return drv__config_fail(err, errlen, "--new-conn and --reconnect-every are for "
						    "tcp:// and http://");
		if (cfg->size > DRV_MAX_UDP_SIZE)
			return drv__config_fail(err, errlen, "--size: a UDP datagram holds at most %llu bytes",
				       DRV_MAX_UDP_SIZE);
		if (cfg->payload_len > DRV_MAX_UDP_SIZE)
			return drv__config_fail(err, errlen, "--payload: a UDP datagram holds at most %llu "
						    "bytes", DRV_MAX_UDP_SIZE);
	}
	for (i = 0; i < cfg->nsources; i++)
		if (cfg->sources[i].ss_family != cfg->addr.ss_family)
			return drv__config_fail(err, errlen,
				       "--source-addr: address %u is not of the target's family",
				       i + 1);
	if (drv__config_work_check(cfg, seen, err, errlen)) /* config_work.c */
		return -EINVAL;
	if (drv__config_check_udp(cfg, err, errlen))
		return -EINVAL;
	if (drv__config_grpc_check(cfg, err, errlen)) /* after the --requests-file records */
		return -EINVAL;
	if (drv__config_check_http(cfg, seen, err, errlen))
		return -EINVAL;
	return drv__config_check_h2(cfg, seen, err, errlen); /* config_h2.c */
}

static int parse_opt(struct drv_config *cfg, int c, const char *opt, struct drv__seen *seen,
		  char *err, size_t errlen)
{
	switch (c) {
	case 'c':
		return drv__config_num("-c", optarg, 1, DRV_MAX_CONNECTIONS, &cfg->connections, err, errlen);
	case 't':
		return drv__config_num("-t", optarg, 1, DRV_MAX_THREADS, &cfg->threads, err, errlen);
	case 'n':
		return drv__config_num("-n", optarg, 1, DRV_MAX_REQUESTS, &cfg->requests, err, errlen);
	case 'd':
		return dur("-d", optarg, 1000000, &cfg->duration_ns, err, errlen);
	case OPT_NEW_CONN:
		seen->new_conn = true;
		return 0;
	case OPT_RECONNECT_EVERY:
		return drv__config_num("--reconnect-every", optarg, 1, DRV_MAX_REQUESTS,
			      &cfg->reconnect_every, err, errlen);
	case OPT_SIZE:
		return drv__config_size(cfg, optarg, err, errlen);
	case OPT_TIMEOUT:
		return dur("--timeout", optarg, 1000000, &cfg->timeout_ns, err, errlen);
	case OPT_JSON:
		cfg->json_path = optarg;
		return *optarg ? 0 : drv__config_fail(err, errlen, "--json: empty file name");
	case OPT_INTERVAL:
		if (dur("--interval", optarg, 0, &cfg->interval_ns, err, errlen))
			return -EINVAL;
		if (cfg->interval_ns && cfg->interval_ns < 10000000)
			return drv__config_fail(err, errlen, "--interval %s: at least 10ms, or 0 for off",
				       optarg);
		return 0;
	case OPT_RATE:
		return rate("--rate", "requests", optarg, &cfg->rate, err, errlen);
	case OPT_CONNECT_RATE:
		return rate("--connect-rate", "connections", optarg, &cfg->connect_rate, err,
			       errlen);
	case 'p':
		return drv__config_num("-p", optarg, 1, DRV_MAX_PROCS, &cfg->procs, err, errlen);
	case OPT_DELAY:
		return dur("--delay", optarg, 0, &cfg->delay_ns, err, errlen);
	case OPT_WARMUP:
		return dur("--warmup", optarg, 0, &cfg->warmup_ns, err, errlen);
	case OPT_PAYLOAD:
		cfg->payload_path = optarg;
		return drv__config_slurp("--payload", optarg, &cfg->payload, &cfg->payload_len, err, errlen);
	case OPT_RESPONSE:
		seen->resp_given = true;
		return drv__config_response(cfg, optarg, err, errlen);
	case 'm':
		seen->http_opts = true;
		seen->http_only = true;
		cfg->method = optarg;
		return 0;
	case 'H':
		seen->http_opts = true;
		return drv__config_header(cfg, optarg, err, errlen);
	case OPT_BODY:
	case OPT_BODY_FILE:
		if (seen->body_opt && seen->body_opt != c)
			return drv__config_fail(err, errlen, "--body and --body-file both give the "
						"request body: give one");
		seen->body_opt = c;
		if (c == OPT_BODY_FILE) {
			seen->http_opts = true;
			seen->http_only = true;
			return drv__config_slurp("--body-file", optarg, &cfg->body,
						 &cfg->body_len, err, errlen);
		}
		seen->http_opts = true;
		seen->http_only = true;
		free(cfg->body);
		cfg->body_len = strlen(optarg);
		cfg->body = strdup(optarg);
		return cfg->body ? 0 : drv__config_fail(err, errlen, "--body: out of memory");
	case OPT_HTTP_CLOSE:
		seen->http_opts = true;
		seen->http_only = true;
		cfg->http_close = true;
		return 0;
	case OPT_HTTP_ENGINE:
		seen->http_opts = true;
		seen->http_only = true;
		seen->engine_given = true;
		if (!strcmp(optarg, "native"))
			cfg->http_engine = DRV_HTTP_NATIVE;
		else if (!strcmp(optarg, "curl"))
			cfg->http_engine = DRV_HTTP_CURL;
		else
			return drv__config_fail(err, errlen, "--http-engine %s: expected native or curl",
				       optarg);
		return 0;
	case OPT_HTTP2:
		seen->http_opts = true;
		seen->http_only = true;
		cfg->http2 = true;
		return 0;
	case 'k':
		seen->tls_opts = true;
		cfg->insecure = true;
		return 0;
	case OPT_CACERT:
		seen->tls_opts = true;
		return drv__config_cacert(cfg, optarg, err, errlen);
	case OPT_STREAMS:
		return drv__config_num("--streams", optarg, 1, DRV_MAX_STREAMS, &cfg->streams, err,
				       errlen);
	case OPT_SOURCE_ADDR:
		return sources(cfg, optarg, err, errlen);
	case OPT_START_AT:
		return start_at(cfg, optarg, err, errlen);
	case OPT_SHARD:
		return shard(cfg, optarg, err, errlen);
	case OPT_ID:
		return drv__config_id(cfg, optarg, err, errlen);
	case OPT_RCVBUF:
		return drv__config_rcvbuf(cfg, optarg, err, errlen);
	case OPT_PROTO:
	case OPT_HDR_LOG:
	case OPT_REQUESTS_FILE:
	case OPT_SEED:
	case 'P':
		return drv__config_work_opt(cfg, c == OPT_PROTO ? "proto" : c == OPT_HDR_LOG ? "hdr-log"
					    : c == OPT_REQUESTS_FILE ? "requests-file"
					    : c == OPT_SEED ? "seed" : "P", optarg, err, errlen);
	case OPT_PROTO_FILE:
	case OPT_MESSAGE:
	case OPT_MESSAGE_FILE:
	case OPT_IMPORT_PATH:
		return drv__config_grpc_opt(cfg, c == OPT_PROTO_FILE ? "proto-file"
					    : c == OPT_MESSAGE ? "message"
					    : c == OPT_IMPORT_PATH ? "import-path" : "message-file",
					    optarg, err, errlen);
	case OPT_LDAP:
	case OPT_LDAP + 1:
	case OPT_LDAP + 2:
	case OPT_LDAP + 3:
	case OPT_LDAP + 4:
	case OPT_LDAP + 5:
	case OPT_LDAP_LAST:
		return drv__config_ldap_opt(cfg, ldap_opts[c - OPT_LDAP], optarg ? optarg : "", err,
					    errlen);
	case 'q':
		cfg->quiet = true;
		return 0;
	case OPT_PRINT_PLAN:
		cfg->print_plan = true;
		return 0;
	case ':':
		return drv__config_fail(err, errlen, "%s needs a value (see --help)", opt);
	default:
		if (optopt && optopt < 0x100)
			return drv__config_fail(err, errlen, "unknown option -%c (see --help)", optopt);
		return drv__config_fail(err, errlen, "unknown option %s (see --help)", opt);
	}
}

int drv_config_parse(struct drv_config *cfg, int argc, char **argv, char *err, size_t errlen)
{
	struct drv__seen seen = {0};
	int c, r, longindex = -1;

	drv_config_init(cfg);
	if (err && errlen)
		err[0] = '\0';
	optind = 0; /* glibc: full re-initialisation, so the parser can run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, &longindex)) != -1) {
		if (c == 'h') {
			cfg->help = true;
			return 0;
		}
		if (c == 'V') {
			cfg->version = true;
			return 0;
		}
		r = drv__config_peer_opt(c, longindex >= 0 ? long_opts[longindex].name : NULL, argc,
					 argv, err, errlen); /* peer_flags.c */
		if (!r)
			r = parse_opt(cfg, c, argv[optind - 1], &seen, err, errlen);
		if (r)
			return r;
		longindex = -1;
	}
	if (optind >= argc)
		return drv__config_fail(err, errlen, "missing target, e.g. tcp://HOST:PORT (see --help)");
	if (optind + 1 < argc)
		return drv__config_fail(err, errlen, "unexpected argument '%s': one target only",
			       argv[optind + 1]);
	r = parse_target(cfg, argv[optind], err, errlen);
	if (r)
		return r;
	return check(cfg, &seen, err, errlen);
}
