/* SPDX-License-Identifier: MIT */
/* The driver's run configuration and its command-line parser. */
#ifndef LOADLENS_DRV_CONFIG_H
#define LOADLENS_DRV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/socket.h>
#include "loadlens/parse.h"

#define DRV_MAX_CONNECTIONS 1000000ULL /* loadlens run and sweep take as many (lltools) */
#define DRV_MAX_PROCS 4096ULL
#define DRV_MAX_THREADS 256ULL
#define DRV_MAX_REQUESTS 1000000000000ULL
#define DRV_MAX_SIZE (16ULL << 20)
#define DRV_MAX_UDP_SIZE 65507ULL
/* memcached's UDP frame header: built into the payload here, parsed by udp/udp_memcache.c */
#define DRV_MCUDP_HDR 8
#define DRV_MAX_RATE 1e8
#define DRV_MAX_HEADERS 64
#define DRV_MAX_SOURCES 256
#define DRV_MAX_STREAMS 1024 /* --streams, as -P */
#define DRV_MAX_IMPORT_PATHS 16 /* --import-path */
#define DRV_MAX_DELIM 32
#define DRV_DEFAULT_SIZE 64
#define DRV_DEFAULT_TIMEOUT_NS 5000000000ULL
#define DRV_DEFAULT_INTERVAL_NS 1000000000ULL

/* How a connection slot uses connections. */
enum drv_conn_model {
	DRV_CONN_KEEPALIVE = 0, /* one connection for the whole run (reopened after an error) */
	DRV_CONN_NEW,		/* a new connection per request; the driver closes first */
	DRV_CONN_RECONNECT,	/* a new connection every reconnect_every requests */
};

/* How the end of a tcp:// response is found. */
enum drv_resp_rule {
	DRV_RESP_LP4 = 0, /* refserver framing: 4-byte big-endian length, then the bytes */
	DRV_RESP_FIXED,	  /* exactly resp_fixed bytes */
	DRV_RESP_DELIM,	  /* up to and including resp_delim */
	DRV_RESP_PREFIX,  /* a resp_prefix-byte big-endian length, then that many bytes */
	DRV_RESP_HTTP,	  /* an HTTP/1.x response (http_parser); http:// only */
	DRV_RESP_RESP,	  /* redis: one RESP2/RESP3 value (redis/) */
	DRV_RESP_MEMCACHE, /* memcached text protocol (memcache/) */
	DRV_RESP_DNS,	  /* DNS: 2-byte length prefix over TCP, the datagram over UDP (dns/) */
	DRV_RESP_LDAP,	  /* --proto ldap: BER LDAPMessages up to a SearchResultDone (ldap/) */
};

enum drv_http_engine {
	DRV_HTTP_NATIVE = 0, /* HTTP/1.1 on uv_tcp_t with http_parser (default: faster) */
	DRV_HTTP_CURL,	     /* libcurl multi_socket on the same loop */
};

struct drv_reqmix;
struct drv_grpc_msgs;
struct drv_ldap_cfg;

/* -p: a worker process's live counters, in memory shared with the parent (written each interval,
 * run.c; read by procs.c). */
struct drv_live_pub {
	uint64_t responses; /* since the start */
	uint64_t errors;
	uint64_t connections; /* connections opened */
	uint64_t seq;	      /* intervals published */
};

struct drv_config {
	const char *url_text;
	struct ll_url url;
	struct sockaddr_storage addr;
	socklen_t addrlen;

	uint64_t connections;	  /* -c: connection slots in total (on this machine) */
	uint64_t threads;	  /* -t: worker threads, each with its own loop */
	uint64_t requests;	  /* -n: total request attempts; 0 = bounded by duration only */
	uint64_t duration_ns;	  /* -d: 0 = bounded by requests only */
	enum drv_conn_model conn_model;
	uint64_t reconnect_every; /* requests per connection; 0 = unlimited (keep-alive) */
	uint64_t size;		  /* --size: request payload bytes (the maximum when random) */
	uint64_t size_min;	  /* --size MIN-MAX: uniform random; == size when fixed */
	uint64_t timeout_ns;	  /* --timeout: connect and request timeout */
	uint64_t interval_ns;	  /* --interval: live line period; 0 = off */
	const char *json_path;	  /* --json FILE, or NULL */
	bool quiet;		  /* -q: no banner, no live line */

	/* load model */
	double rate;	    /* --rate: requests/s over all shards; 0 = closed loop */
	uint64_t delay_ns;  /* --delay: think time between a response and the next request */
	uint64_t warmup_ns; /* --warmup: results exclude requests meant to start before it ends */

	/* payloads and response rules */
	const char *payload_path; /* --payload FILE: raw request bytes (tcp, udp) */
	char *payload;		  /* its contents (owned) */
	size_t payload_len;
	enum drv_resp_rule resp_rule;
	uint64_t resp_fixed;
	unsigned resp_prefix; /* 1, 2, 4 or 8 */
	char resp_delim[DRV_MAX_DELIM];
	size_t resp_delim_len;

	/* udp:// */
	unsigned id_offset; /* --id OFFSET:WIDTH: a per-request id stamped into the payload */
	unsigned id_width;  /* bytes of that id, 1..8; 0 = no --id */
	uint64_t rcvbuf;    /* --rcvbuf: SO_RCVBUF of each socket; 0 = the system default */

	/* http:// and https:// */
	const char *method;
	const char *headers[DRV_MAX_HEADERS];
	unsigned nheaders;
	char *body; /* --body or --body-file (owned) */
	size_t body_len;
	bool http_close; /* --http-close: "Connection: close", one request per connection */
	enum drv_http_engine http_engine; /* https:// without --http2 forces DRV_HTTP_CURL */
	bool http2;	    /* --http2: h2 via ALPN over TLS, prior-knowledge h2c over http:// */
	uint64_t streams;   /* --streams: HTTP/2 streams in flight per connection (1: one) */
	bool insecure;	    /* -k, --insecure: no certificate or host name verification */
	const char *cacert; /* --cacert FILE: CA bundle to verify the server with, or NULL */
	char *cacert_pem;   /* its contents, read at parse time (owned) */
	size_t cacert_len;

	/* scale and several machines */
	struct sockaddr_storage *sources; /* --source-addr (owned), port 0 */
	unsigned nsources;
	uint64_t start_at_unix_ns; /* --start-at; 0 = now */
	uint32_t shard_index;	   /* --shard i/N: 0-based i */
	uint32_t shard_count;	   /* N, 1 when not sharded */
	uint64_t procs;		   /* -p: worker processes; 0 = as many as the fd limit needs */
	double connect_rate;	   /* --connect-rate: new connections/s in total; 0 = unbounded */
	/* a worker process of -p (procs.c): its slots are conn_base.. of conn_total */
	uint64_t conn_total;	   /* -c of the whole command; 0 = connections (no -p) */
	uint64_t conn_base;
	struct drv_live_pub *live_pub; /* where its live counters go, or NULL */

	/* real workloads (config_work.c) */
	bool mc_udp;		  /* --proto memcache-udp: memcached's 8-byte UDP frame header */
	const char *hdr_log_path; /* --hdr-log FILE: HdrHistogram interval log */
	int hdr_log_fd;		  /* opened at start by main (hdrlog.h); -1 = none */
	const char *requests_path; /* --requests-file FILE */
	struct drv_reqmix *mix;	  /* its records (owned; reqmix.c) */
	uint64_t seed;		  /* --seed: weighted choice and templates; 0 = round-robin */
	bool seed_given;
	uint64_t pipeline;	  /* -P: requests in flight per connection (tcp, http); 1 = none */
	struct drv_ldap_cfg *ldap; /* --proto ldap and its options (ldap_config.h; owned) */

	/* grpc:// and grpcs:// (grpc_config.c) */
	const char *proto_path;	  /* --proto-file FILE.proto, or NULL: empty messages */
	const char *import_paths[DRV_MAX_IMPORT_PATHS]; /* --import-path DIR, in order */
	unsigned nimport_paths;
	char *grpc_json;	  /* --message JSON or --message-file's contents (owned), or NULL */
	size_t grpc_json_len;
	const char *grpc_json_from; /* "--message" or "--message-file FILE", for messages */
	struct drv_grpc_msgs *grpc_msgs; /* grpc: the messages (grpc/grpc_msg.h); NULL: empty */

	bool help;    /* --help was given: print drv_config_usage() and exit 0 */
	bool version; /* --version was given */
	bool print_plan; /* --print-plan: the plan as JSON on stdout, then exit 0 (results/plan.c) */
};

const char *drv_conn_model_name(enum drv_conn_model m);
const char *drv_resp_rule_name(enum drv_resp_rule r);
/* The native HTTP/2 engine drives it (h2/h2_engine.c): --http2 on it, or gRPC. */
static inline bool drv_config_h2(const struct drv_config *cfg)
{
	return ll_scheme_is_grpc(cfg->url.scheme) ||
	       (cfg->http2 && cfg->http_engine == DRV_HTTP_NATIVE);
}

/* TLS: https:// or grpcs://. */
static inline bool drv_config_tls(const struct drv_config *cfg)
{
	return cfg->url.scheme == LL_SCHEME_HTTPS || cfg->url.scheme == LL_SCHEME_GRPCS;
}

/* Global slot count over every shard: the open-loop schedule and -n are shared over it. */
static inline uint64_t drv_config_global_slots(const struct drv_config *cfg)
{
	return (cfg->conn_total ? cfg->conn_total : cfg->connections) * cfg->shard_count;
}

#endif /* LOADLENS_DRV_CONFIG_H */
