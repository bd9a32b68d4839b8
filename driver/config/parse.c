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
#include "config/engine.h"
#include "config/reqmix.h"
#include "config/option.h"
#include "config/options.h"
#include "config/config_http.h"
#include "config/app.h"
#include "config/config_payload.h"
#include "config/config_work.h"
#include "config/peer_flags.h"
#include "base/drv.h"
#include "config/quote.h"

/* getopt_long()'s table, from options.def (drv_config_options()) */
static struct option long_opts[DRV_OPT__COUNT + 1];

const struct option *drv_config_options(void)
{
	if (!long_opts[0].name)
		ll_optab_long(&drv_optab, long_opts, DRV_OPT__COUNT + 1);
	return long_opts;
}

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
	drv_reqmix_free(cfg->mix);
	drv__config_app_free(cfg); /* grpc's messages read nothing of the mix they borrowed */
	cfg->mix = NULL;
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
	int r = drv__config_app_url(cfg, s, err, errlen); /* ldap://: a protocol's own (app.h) */

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
	if (drv__config_app_check(cfg, seen->resp_given, err, errlen)) /* each protocol's (app.h) */
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
	if (drv__config_engine_check(cfg, err, errlen)) /* udp's --id, --rcvbuf */
		return -EINVAL;
	if (drv__config_app_check_late(cfg, err, errlen)) /* grpc's: after the records */
		return -EINVAL;
	if (drv__config_check_http(cfg, seen, err, errlen))
		return -EINVAL;
	return drv__config_engine_check_last(cfg, seen, err, errlen); /* h2's --streams, grpc:// */
}

/* What the presence of option id tells check() (struct drv__seen), past its value. */
static void seen_opt(struct drv__seen *seen, enum drv_opt id)
{
	switch (id) {
	case DRV_OPT_NEW_CONN:
		seen->new_conn = true;
		break;
	case DRV_OPT_RESPONSE:
		seen->resp_given = true;
		break;
	case DRV_OPT_HTTP_ENGINE:
		seen->engine_given = true;
		/* fall through */
	case DRV_OPT_METHOD:
	case DRV_OPT_BODY:
	case DRV_OPT_BODY_FILE:
	case DRV_OPT_HTTP_CLOSE:
	case DRV_OPT_HTTP2:
		seen->http_only = true;
		/* fall through */
	case DRV_OPT_HEADER:
		seen->http_opts = true;
		break;
	case DRV_OPT_INSECURE:
	case DRV_OPT_CACERT:
		seen->tls_opts = true;
		break;
	default:
		break;
	}
}

/* Option id (getopt_long()'s c, for --body's exclusion), its value in optarg. */
static int parse_opt(struct drv_config *cfg, enum drv_opt id, int c, struct drv__seen *seen,
		     char *err, size_t errlen)
{
	const char *name = drv_options[id].name;
	char flag[64];

	drv_option_flag(id, flag, sizeof(flag)); /* "-c", "--connect-rate": as messages say it */
	seen_opt(seen, id);
	if (drv_options[id].kind == DRV_OPT_KIND_BOOL) { /* a flag: its field is set */
		*(bool *)((char *)cfg + drv_options[id].field) = true;
		return 0;
	}
	switch (id) {
	case DRV_OPT_CONNECTIONS:
		return drv__config_num(flag, optarg, 1, DRV_MAX_CONNECTIONS, &cfg->connections, err,
				       errlen);
	case DRV_OPT_THREADS:
		return drv__config_num(flag, optarg, 1, DRV_MAX_THREADS, &cfg->threads, err, errlen);
	case DRV_OPT_REQUESTS:
		return drv__config_num(flag, optarg, 1, DRV_MAX_REQUESTS, &cfg->requests, err, errlen);
	case DRV_OPT_DURATION:
		return dur(flag, optarg, 1000000, &cfg->duration_ns, err, errlen);
	case DRV_OPT_NEW_CONN:
		return 0;
	case DRV_OPT_RECONNECT_EVERY:
		return drv__config_num(flag, optarg, 1, DRV_MAX_REQUESTS, &cfg->reconnect_every, err,
				       errlen);
	case DRV_OPT_SIZE:
		return drv__config_size(cfg, optarg, err, errlen);
	case DRV_OPT_TIMEOUT:
		return dur(flag, optarg, 1000000, &cfg->timeout_ns, err, errlen);
	case DRV_OPT_JSON:
		cfg->json_path = optarg;
		return *optarg ? 0 : drv__config_fail(err, errlen, "%s: empty file name", flag);
	case DRV_OPT_INTERVAL:
		if (dur(flag, optarg, 0, &cfg->interval_ns, err, errlen))
			return -EINVAL;
		if (cfg->interval_ns && cfg->interval_ns < 10000000)
			return drv__config_fail(err, errlen, "%s %s: at least 10ms, or 0 for off",
						flag, optarg);
		return 0;
	case DRV_OPT_RATE:
		return rate(flag, "requests", optarg, &cfg->rate, err, errlen);
	case DRV_OPT_CONNECT_RATE:
		return rate(flag, "connections", optarg, &cfg->connect_rate, err, errlen);
	case DRV_OPT_PROCS:
		return drv__config_num(flag, optarg, 1, DRV_MAX_PROCS, &cfg->procs, err, errlen);
	case DRV_OPT_DELAY:
		return dur(flag, optarg, 0, &cfg->delay_ns, err, errlen);
	case DRV_OPT_WARMUP:
		return dur(flag, optarg, 0, &cfg->warmup_ns, err, errlen);
	case DRV_OPT_PAYLOAD:
		cfg->payload_path = optarg;
		return drv__config_slurp(flag, optarg, &cfg->payload, &cfg->payload_len, err, errlen);
	case DRV_OPT_RESPONSE:
		return drv__config_response(cfg, optarg, err, errlen);
	case DRV_OPT_METHOD:
		cfg->method = optarg;
		return 0;
	case DRV_OPT_HEADER:
		return drv__config_header(cfg, optarg, err, errlen);
	case DRV_OPT_BODY:
	case DRV_OPT_BODY_FILE:
		if (seen->body_opt && seen->body_opt != c)
			return drv__config_fail(err, errlen, "--body and --body-file both give the "
						"request body: give one");
		seen->body_opt = c;
		if (id == DRV_OPT_BODY_FILE)
			return drv__config_slurp(flag, optarg, &cfg->body, &cfg->body_len, err,
						 errlen);
		free(cfg->body);
		cfg->body_len = strlen(optarg);
		cfg->body = strdup(optarg);
		return cfg->body ? 0 : drv__config_fail(err, errlen, "%s: out of memory", flag);
	case DRV_OPT_HTTP_ENGINE:
		if (!strcmp(optarg, "native"))
			cfg->http_engine = DRV_HTTP_NATIVE;
		else if (!strcmp(optarg, "curl"))
			cfg->http_engine = DRV_HTTP_CURL;
		else
			return drv__config_fail(err, errlen, "%s %s: expected native or curl", flag,
						optarg);
		return 0;
	case DRV_OPT_INSECURE:
		cfg->insecure = true;
		return 0;
	case DRV_OPT_CACERT:
		return drv__config_cacert(cfg, optarg, err, errlen);
	case DRV_OPT_STREAMS:
		return drv__config_num(flag, optarg, 1, DRV_MAX_STREAMS, &cfg->streams, err, errlen);
	case DRV_OPT_SOURCE_ADDR:
		return sources(cfg, optarg, err, errlen);
	case DRV_OPT_START_AT:
		return start_at(cfg, optarg, err, errlen);
	case DRV_OPT_SHARD:
		return shard(cfg, optarg, err, errlen);
	case DRV_OPT_ID:
		return drv__config_engine_opt(cfg, "udp", "id", optarg, err, errlen); /* engine.h */
	case DRV_OPT_RCVBUF:
		return drv__config_engine_opt(cfg, "udp", "rcvbuf", optarg, err, errlen);
	case DRV_OPT_PROTO:
	case DRV_OPT_HDR_LOG:
	case DRV_OPT_REQUESTS_FILE:
	case DRV_OPT_SEED:
	case DRV_OPT_PIPELINE:
		return drv__config_work_opt(cfg, name, optarg, err, errlen); /* config_work.c */
	case DRV_OPT_PROTO_FILE:
	case DRV_OPT_MESSAGE:
	case DRV_OPT_MESSAGE_FILE:
	case DRV_OPT_IMPORT_PATH:
		return drv__config_app_opt(cfg, "grpc", name, optarg, err, errlen); /* app.h */
	case DRV_OPT_BASE:
	case DRV_OPT_SCOPE:
	case DRV_OPT_FILTER:
	case DRV_OPT_ATTRS:
	case DRV_OPT_BIND_DN:
	case DRV_OPT_BIND_PASSWORD_FILE:
	case DRV_OPT_STARTTLS:
		return drv__config_app_opt(cfg, "ldap", name, optarg ? optarg : "", err, errlen);
	case DRV_OPT_PRINT_PLAN:
		cfg->print_plan = true;
		return 0;
	case DRV_OPT_HELP:
		cfg->help = true;
		return 0;
	case DRV_OPT_VERSION:
		cfg->version = true;
		return 0;
	case DRV_OPT_HTTP_CLOSE: /* BOOL: set above */
	case DRV_OPT_HTTP2:
	case DRV_OPT_QUIET:
	case DRV_OPT__COUNT:
		break;
	}
	return drv__config_fail(err, errlen, "%s: no case in parse_opt()", flag);
}

/* What getopt_long() returned for no option of ours: a missing value, or an unknown option. */
static int not_ours(int c, const char *word, char *err, size_t errlen)
{
	if (c == ':')
		return drv__config_fail(err, errlen, "%s needs a value (see --help)", word);
	if (optopt && optopt < DRV_OPT_VAL)
		return drv__config_fail(err, errlen, "unknown option -%c (see --help)", optopt);
	return drv__config_fail(err, errlen, "unknown option %s (see --help)", word);
}

int drv_config_parse(struct drv_config *cfg, int argc, char **argv, char *err, size_t errlen)
{
	struct drv__seen seen = {0};
	char short_opts[2 * DRV_OPT__COUNT + 2];
	int c, r, id, longindex = -1;

	drv_config_init(cfg);
	if (err && errlen)
		err[0] = '\0';
	optind = 0; /* glibc: full re-initialisation, so the parser can run more than once */
	opterr = 0;
	if (drv_options_short(short_opts, sizeof(short_opts)))
		return drv__config_fail(err, errlen, "options.def: too many letters");
	while ((c = getopt_long(argc, argv, short_opts, drv_config_options(), &longindex)) != -1) {
		id = drv_option_of(c);
		if (id == DRV_OPT_HELP || id == DRV_OPT_VERSION)
			return parse_opt(cfg, (enum drv_opt)id, c, &seen, err, errlen);
		r = drv__config_peer_opt(c, longindex >= 0 ? long_opts[longindex].name : NULL, argc,
					 argv, err, errlen); /* peer_flags.c */
		if (!r)
			r = id >= 0 ? parse_opt(cfg, (enum drv_opt)id, c, &seen, err, errlen)
				    : not_ours(c, argv[optind - 1], err, errlen);
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
