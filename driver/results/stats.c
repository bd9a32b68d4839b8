// SPDX-License-Identifier: MIT
/* Per-thread counters, error classes with their hints, and the exact merge. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "base/drv.h"
#include "results/stats.h"

int drv_stats_init(struct drv_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->latency = ll_hist_new();
	s->latency_uncorrected = ll_hist_new();
	s->send_lag = ll_hist_new();
	s->connect = ll_hist_new();
	s->late_latency = ll_hist_new();
	if (!s->latency || !s->latency_uncorrected || !s->send_lag || !s->connect ||
	    !s->late_latency) {
		drv_stats_fini(s);
		return -ENOMEM;
	}
	return 0;
}

int drv_stats_rec_init(struct drv_stats *s, uint32_t n)
{
	uint32_t i;

	s->rec = calloc(n, sizeof(*s->rec));
	if (!s->rec)
		return -ENOMEM;
	s->nrec = n;
	for (i = 0; i < n; i++) {
		s->rec[i].latency = ll_hist_new();
		if (!s->rec[i].latency)
			return -ENOMEM; /* drv_stats_fini() frees what there is */
	}
	return 0;
}

void drv_stats_fini(struct drv_stats *s)
{
	uint32_t i;

	for (i = 0; s->rec && i < s->nrec; i++)
		ll_hist_free(s->rec[i].latency);
	free(s->rec);
	s->rec = NULL;
	s->nrec = 0;
	ll_hist_free(s->connect);
	ll_hist_free(s->late_latency);
	s->late_latency = NULL;
	ll_hist_free(s->send_lag);
	ll_hist_free(s->latency_uncorrected);
	ll_hist_free(s->latency);
	s->connect = NULL;
	s->send_lag = NULL;
	s->latency_uncorrected = NULL;
	s->latency = NULL;
}

#define X_SUM(k, f, d) {k, offsetof(struct drv_stats, f), d}
const struct drv_stats_sum drv_stats_sums[] = {
	X_SUM("requests", requests, false),
	X_SUM("connections", connections, false),
	X_SUM("connect_attempts", connect_attempts, false),
	X_SUM("errors_total", errors_total, false),
	X_SUM("cancelled", cancelled, false),
	X_SUM("not_sent", not_sent, false),
	X_SUM("late_replies", late, false),
	X_SUM("duplicate_replies", duplicate, false),
	X_SUM("unmatched_replies", unmatched, false),
	X_SUM("rxq_ovfl", rxq_ovfl, false),
	X_SUM("behind", behind, false),
	X_SUM("bytes_sent", bytes_sent, false),
	X_SUM("bytes_received", bytes_received, false),
	X_SUM("pacer_idle_ns", pacer_idle_ns, true),
	X_SUM("involuntary_switches", nivcsw, true),
	X_SUM("sleeps", nvcsw, true),
	X_SUM("runq_wait_ns", runq_ns, true),
	X_SUM("timer_wakeups", timer_wakes, true),
	X_SUM("spin_ns", spin_ns, true),
};
const size_t drv_stats_nsums = sizeof(drv_stats_sums) / sizeof(drv_stats_sums[0]);

void drv_stats_merge(struct drv_stats *dst, const struct drv_stats *src)
{
	size_t k;
	int i;

	for (k = 0; k < drv_stats_nsums; k++)
		*drv_stats_sum_at(dst, k) += *(const uint64_t *)((const char *)src + drv_stats_sums[k].off);
	for (i = 0; i < DRV_ERR__COUNT; i++)
		dst->errors[i] += src->errors[i];
	if (src->rcvbuf && (!dst->rcvbuf || src->rcvbuf < dst->rcvbuf))
		dst->rcvbuf = src->rcvbuf;
	dst->cpu_ns += src->cpu_ns; /* a run's is its process's (struct drv_result) */
	for (i = 0; i < DRV_STATUS_MAX; i++)
		dst->status[i] += src->status[i];
	for (i = 0; i < DRV_HTTPV__COUNT; i++)
		dst->http_version[i] += src->http_version[i];
	for (i = 0; i < 16; i++)
		dst->dns_rcode[i] += src->dns_rcode[i];
	drv_stats_merge_h2(dst, src);
	for (i = 0; i < DRV_APP_CODES; i++) {
		dst->app.result[i] += src->app.result[i];
		dst->app.hello[i] += src->app.hello[i];
	}
	dst->app.items += src->app.items;
	dst->app.refs += src->app.refs;
	dst->app.empty += src->app.empty;
	if (!dst->first_other_err)
		dst->first_other_err = src->first_other_err;
	if (src->t_first_ns && (!dst->t_first_ns || src->t_first_ns < dst->t_first_ns))
		dst->t_first_ns = src->t_first_ns;
	if (src->t_last_ns > dst->t_last_ns)
		dst->t_last_ns = src->t_last_ns;
	ll_hist_merge(dst->latency, src->latency);
	ll_hist_merge(dst->latency_uncorrected, src->latency_uncorrected);
	ll_hist_merge(dst->send_lag, src->send_lag);
	ll_hist_merge(dst->connect, src->connect);
	ll_hist_merge(dst->late_latency, src->late_latency);
	if (src->nrec && !dst->nrec && drv_stats_rec_init(dst, src->nrec))
		return; /* out of memory: the per-record table is left out, the totals stand */
	for (i = 0; src->rec && dst->rec && i < (int)src->nrec && i < (int)dst->nrec; i++) {
		dst->rec[i].requests += src->rec[i].requests;
		dst->rec[i].errors += src->rec[i].errors;
		if (dst->rec[i].latency && src->rec[i].latency)
			ll_hist_merge(dst->rec[i].latency, src->rec[i].latency);
	}
}

void drv_stats_error(struct drv_stats *s, int err)
{
	enum drv_err e = drv_err_class(err);

	s->errors[e]++;
	if (e == DRV_ERR_OTHER && !s->first_other_err)
		s->first_other_err = err;
	drv_counter_add(&s->errors_total, 1);
}

void drv_stats_merge_h2(struct drv_stats *dst, const struct drv_stats *src)
{
	int i;

	for (i = 0; i < DRV_H2_RST_CODES; i++)
		dst->h2_rst[i] += src->h2_rst[i];
	for (i = 0; i <= LL_GRPC_CODES; i++)
		dst->grpc_status[i] += src->grpc_status[i];
	dst->h2_goaway += src->h2_goaway;
	dst->h2_goaway_retried += src->h2_goaway_retried;
	dst->h2_flow_stalls += src->h2_flow_stalls;
	dst->h2_settings += src->h2_settings;
	if (src->h2_max_streams_set &&
	    (!dst->h2_max_streams_set || src->h2_max_streams < dst->h2_max_streams))
		dst->h2_max_streams = src->h2_max_streams;
	dst->h2_max_streams_set += src->h2_max_streams_set;
	if (src->h2_peak_streams > dst->h2_peak_streams)
		dst->h2_peak_streams = src->h2_peak_streams;
}

static const char *const httpv_names[DRV_HTTPV__COUNT] = {
	[DRV_HTTPV_1_0] = "1.0",
	[DRV_HTTPV_1_1] = "1.1",
	[DRV_HTTPV_2] = "2",
	[DRV_HTTPV_3] = "3",
};

const char *drv_httpv_name(enum drv_httpv v)
{
	return (unsigned)v < DRV_HTTPV__COUNT ? httpv_names[v] : "?";
}

int drv_httpv_from_name(const char *s)
{
	int i;

	for (i = 0; i < DRV_HTTPV__COUNT; i++)
		if (!strcmp(s, httpv_names[i]))
			return i;
	return -1;
}

/* "ip_local_port_range 32768-60999: 28232 ports" */
static void port_range(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	unsigned lo, hi;

	if (f && fscanf(f, "%u %u", &lo, &hi) == 2 && hi >= lo)
		snprintf(buf, len, "ip_local_port_range %u-%u: %u ports per destination", lo, hi,
			 hi - lo + 1);
	else
		snprintf(buf, len, "ip_local_port_range unreadable");
	if (f)
		fclose(f);
}

static int stats_tw_reuse(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_tw_reuse", "r");
	int v = -1;

	if (f && fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* The target is on this host's loopback (tcp_tw_reuse 2 reuses TIME_WAIT there only). */
static bool loopback_target(const char *target)
{
	const char *h = strstr(target, "://");

	h = h ? h + 3 : target;
	return !strncmp(h, "127.", 4) || !strncmp(h, "[::1]", 5) || !strncmp(h, "localhost", 9) ||
	       !strncmp(h, "[::ffff:127.", 12);
}

const char *drv_tw_hint(int tw_reuse, bool loopback, char *buf, size_t len)
{
	if (tw_reuse == 1 || (tw_reuse == 2 && loopback))
		snprintf(buf, len, "with net.ipv4.tcp_tw_reuse %d a port the driver closed is "
			 "reused once its TIME_WAIT is 1 s old: more new connections a second than "
			 "ports", tw_reuse);
	else if (tw_reuse == 0 || tw_reuse == 2)
		snprintf(buf, len, "each connection the driver closes holds its port in TIME_WAIT "
			 "for 60 s (net.ipv4.tcp_tw_reuse %d%s)", tw_reuse,
			 tw_reuse == 2 ? ": reuse on loopback only" : "");
	else
		snprintf(buf, len, "each connection the driver closes holds its port in TIME_WAIT "
			 "for up to 60 s (net.ipv4.tcp_tw_reuse unreadable)");
	return buf;
}

static unsigned long long nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	return (unsigned long long)rl.rlim_cur;
}

const char *drv_err_hint(enum drv_err e, const struct drv_stats *s, const char *target,
			 char *buf, size_t len)
{
	char range[96], tw[160];

	switch (e) {
	case DRV_ERR_ADDRNOTAVAIL:
		port_range(range, sizeof(range));
		drv_tw_hint(stats_tw_reuse(), loopback_target(target), tw, sizeof(tw));
		snprintf(buf, len,
			 "ephemeral ports exhausted (%s; %s; count them with ss -tan state "
			 "time-wait): widen net.ipv4.ip_local_port_range, reuse connections "
			 "(keep-alive, --reconnect-every), or spread with --source-addr",
			 range, tw);
		break;
	case DRV_ERR_EMFILE:
		snprintf(buf, len,
			 "out of file descriptors (ulimit -n is %llu per process): leave -p out "
			 "(the driver then runs as many processes as -c needs) or raise it, raise "
			 "the hard limit (ulimit -Hn, LimitNOFILE=; root needs CAP_SYS_RESOURCE) or "
			 "fs.file-max, or lower -c",
			 nofile());
		break;
	case DRV_ERR_CONNREFUSED:
		snprintf(buf, len,
			 "connection refused: is the server listening on %s? (with "
			 "net.ipv4.tcp_abort_on_overflow=1 a full accept queue refuses too)",
			 target);
		break;
	case DRV_ERR_CONNRESET:
		snprintf(buf, len,
			 "the server reset connections: check its logs, its connection limit and "
			 "its keep-alive policy");
		break;
	case DRV_ERR_TIMEDOUT:
		snprintf(buf, len,
			 "connects or requests timed out: the server is overloaded or drops SYNs "
			 "(full accept queue: raise its backlog and net.core.somaxconn); --timeout "
			 "waits longer");
		break;
	case DRV_ERR_LOST:
		snprintf(buf, len,
			 "datagrams without a reply within --timeout: the server dropped them or "
			 "was too slow (late replies are counted apart); check netstat -su for "
			 "receive buffer errors and raise net.core.rmem_default");
		break;
	case DRV_ERR_SHORT:
		snprintf(buf, len,
			 "short or malformed responses: the server closed mid-response or does not "
			 "speak the framing (refserver: 4-byte big-endian length, then the payload; "
			 "with --payload check the --response rule)");
		break;
	case DRV_ERR_HTTP:
		snprintf(buf, len,
			 "HTTP responses outside 2xx: see the status counts above; check the path, "
			 "method and headers, and the server's error log");
		break;
	case DRV_ERR_TLS:
		snprintf(buf, len,
			 "TLS handshakes failed (an untrusted or self-signed certificate, a host "
			 "name that does not match it, or no common protocol version): give the "
			 "server's CA with --cacert FILE, or --insecure for a test server; see "
			 "openssl s_client -connect %s",
			 target);
		break;
	case DRV_ERR_TOO_LARGE:
		snprintf(buf, len,
			 "response headers over the HTTP engine's limit (80 KB native, 100 KB "
			 "curl): the server sent oversized headers (huge cookies, a header loop); "
			 "the connection was closed, not reset");
		break;
	case DRV_ERR_RESP:
		snprintf(buf, len,
			 "redis answered with error replies (-ERR ...): check the command in "
			 "--payload / --requests-file (redis-cli shows the message)");
		break;
	case DRV_ERR_MC_CLIENT:
	case DRV_ERR_MC_SERVER:
		snprintf(buf, len,
			 "memcached answered with ERROR, CLIENT_ERROR or SERVER_ERROR: check the "
			 "command syntax (a storage command's byte count must match its data) and "
			 "memcached's memory (-m) and item size (-I) limits");
		break;
	case DRV_ERR_DNS_RCODE:
		snprintf(buf, len,
			 "DNS replies with an error RCODE (counts by code above): NXDOMAIN means "
			 "the name does not exist, REFUSED that the server does not serve it");
		break;
	case DRV_ERR_INCOMPLETE:
		snprintf(buf, len,
			 "multi-datagram memcached replies missing a datagram: memcached or the "
			 "kernel dropped one (netstat -su: receive buffer errors); raise --rcvbuf");
		break;
	case DRV_ERR_H2_RST:
		snprintf(buf, len,
			 "the server reset HTTP/2 streams (RST_STREAM, counts by code in the "
			 "http/2 line): REFUSED_STREAM is a server over its stream or load limit "
			 "(lower --streams), INTERNAL_ERROR a failing handler (its log), "
			 "ENHANCE_YOUR_CALM a server that finds the client abusive");
		break;
	case DRV_ERR_H2_GOAWAY:
		snprintf(buf, len,
			 "requests sent past a GOAWAY's last stream id, which the server never "
			 "processed (a server that closes connections after N streams or shuts "
			 "down): the driver reopens; raise the server's per-connection request "
			 "limit (nginx: keepalive_requests)");
		break;
	case DRV_ERR_H2_PROTOCOL:
		snprintf(buf, len,
			 "the server sent malformed HTTP/2 frames or broke the protocol (libnghttp2 "
			 "refused them; the connection was dropped): a server or proxy bug; "
			 "capture with nghttp -v %s", target);
		break;
	case DRV_ERR_NOT_H2:
		snprintf(buf, len,
			 "the server at %s does not speak HTTP/2 here: an HTTP/1.x answer to the "
			 "h2c preface (enable HTTP/2 without TLS, e.g. nginx 'listen ... http2'), "
			 "or TLS whose ALPN did not select h2 (check: openssl s_client -alpn h2); "
			 "without --http2 the driver speaks HTTP/1.1", target);
		break;
	case DRV_ERR_GRPC:
		snprintf(buf, len,
			 "gRPC calls answered with a status other than OK: see the grpc status "
			 "line and its hints");
		break;
	case DRV_ERR_LDAP_RESULT:
		snprintf(buf, len,
			 "LDAP searches answered with a resultCode other than success: see 'ldap "
			 "result' above, each code with its hint (the entries they returned are "
			 "counted; sizeLimitExceeded and timeLimitExceeded stand apart under their "
			 "codes)");
		break;
	case DRV_ERR_LDAP_BIND:
		snprintf(buf, len,
			 "the bind at connect failed (codes in 'ldap bind' above; invalidCredentials: "
			 "a wrong --bind-dn or password): the connection was dropped, and the next one "
			 "waits as after a failed connect");
		break;
	case DRV_ERR_GRPC_FRAMING:
		snprintf(buf, len,
			 "gRPC replies whose 5-byte message prefix disagrees with the bytes that "
			 "followed (a declared length the stream ended short of, or a flag byte "
			 "other than 0 or 1): a server or proxy that cuts or rewrites messages");
		break;
	case DRV_ERR_GRPC_COMPRESSED:
		snprintf(buf, len,
			 "gRPC replies flagged compressed, though the driver sends no "
			 "grpc-accept-encoding and so none was negotiated: the server compresses "
			 "regardless (grpc-go: a default compressor set on the server)");
		break;
	case DRV_ERR_GRPC_MESSAGES:
		snprintf(buf, len,
			 "unary gRPC calls answered with two messages or more, or with none and "
			 "status OK: the method is a streaming one in the server's .proto, or the "
			 "server's handler is broken; check the method in the target's path");
		break;
	case DRV_ERR_GRPC_CONTENT_TYPE:
		snprintf(buf, len,
			 "replies without content-type application/grpc: not a gRPC server at %s "
			 "(a web server or a proxy's error page; see the status counts), or one "
			 "that sends it twice",
			 target);
		break;
	case DRV_ERR_GRPC_TRAILERS:
		snprintf(buf, len,
			 "gRPC replies that ended without trailers, or whose trailers had no "
			 "grpc-status or one that is not a number: a proxy that drops HTTP/2 "
			 "trailers (an HTTP/1.1 hop), or a server that is not gRPC");
		break;
	case DRV_ERR_LDAP_MALFORMED:
		snprintf(buf, len,
			 "LDAP replies whose BER does not hold together inside a framed message (a "
			 "field's length past its element's end, a field missing or extra): a "
			 "server or proxy bug; capture one (tcpdump -w) and read it in Wireshark");
		break;
	case DRV_ERR_OTHER:
	default:
		snprintf(buf, len, "other socket errors, the first was: %s",
			 s && s->first_other_err ? drv_strerror(s->first_other_err) : "unknown");
		break;
	}
	return buf;
}
