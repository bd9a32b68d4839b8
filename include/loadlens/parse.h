/* SPDX-License-Identifier: MIT */
/*
 * Command-line value parsing shared by every loadlens binary. Each parser returns 0 or -EINVAL
 * (-ERANGE for a number out of range) and never prints; the caller prints one line and exits 64.
 */
#ifndef LOADLENS_PARSE_H
#define LOADLENS_PARSE_H

#include <stdint.h>
#include <sys/socket.h>

/* Durations: "250ms", "30s", "2m", "1h", "500us", "100ns"; a bare number means seconds. */
int ll_parse_duration(const char *s, uint64_t *ns);
/* Unsigned integer in [min, max], decimal; an optional k/M/G suffix multiplies by 1000^n. */
int ll_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Non-negative real number in [min, max]. */
int ll_parse_double(const char *s, double min, double max, double *out);
/* "HEAD:REST" (the last ':'): HEAD into head (len bytes with its NUL); returns REST, or NULL
 * without a ':' or when HEAD does not fit. */
const char *ll_parse_pair(const char *s, char *head, size_t len);

enum ll_scheme {
	LL_SCHEME_NONE = 0,
	LL_SCHEME_TCP,
	LL_SCHEME_UDP,
	LL_SCHEME_HTTP,
	LL_SCHEME_HTTPS,
	LL_SCHEME_GRPC,	 /* gRPC over h2c (prior knowledge) */
	LL_SCHEME_GRPCS, /* gRPC over TLS, h2 by ALPN */
};

#define LL_HOST_MAX 256
#define LL_PATH_MAX 2048

struct ll_url {
	enum ll_scheme scheme;
	char host[LL_HOST_MAX]; /* without IPv6 brackets */
	uint16_t port;
	char path[LL_PATH_MAX]; /* "/" when absent; HTTP and gRPC only */
};

/*
 * "tcp://host:port", "udp://host:port", "http://host[:port][/path]" (port 80 by default),
 * "https://host[:port][/path]" (port 443 by default), "grpc://host:port[/pkg.Service/Method]",
 * "grpcs://host[:port][/pkg.Service/Method]" (port 443 by default).
 */
int ll_parse_url(const char *s, struct ll_url *url);
/* http:// or https://: a path, a default port, HTTP semantics. */
static inline int ll_scheme_is_http(enum ll_scheme s)
{
	return s == LL_SCHEME_HTTP || s == LL_SCHEME_HTTPS;
}
/* grpc:// or grpcs://: unary gRPC calls over HTTP/2. */
static inline int ll_scheme_is_grpc(enum ll_scheme s)
{
	return s == LL_SCHEME_GRPC || s == LL_SCHEME_GRPCS;
}
/* A URL with a path: http(s):// and grpc(s)://. */
static inline int ll_scheme_has_path(enum ll_scheme s)
{
	return ll_scheme_is_http(s) || ll_scheme_is_grpc(s);
}
/* "HOST:PORT", "[v6]:PORT" or ":PORT"/"PORT" (host defaults to 127.0.0.1). */
int ll_parse_hostport(const char *s, char *host, size_t hostlen, uint16_t *port);
const char *ll_scheme_name(enum ll_scheme s);

/* Resolve host:port to a socket address (numeric or via getaddrinfo); -EINVAL if it fails. */
int ll_resolve(const char *host, uint16_t port, int socktype, struct sockaddr_storage *ss,
	       socklen_t *len);
/* "1.2.3.4:80" or "[::1]:80". */
void ll_format_addr(const struct sockaddr *sa, char *buf, size_t len);
/*
 * An address as `ss` prints it, the one spelling every output of loadlens uses: IPv4
 * "127.0.0.1", IPv6 in brackets "[::1]", "[::ffff:127.0.0.1]" (v4-mapped); with port >= 0
 * ":PORT" after it. family: AF_INET or AF_INET6 (anything else: "?"); addr: 4 or 16 bytes.
 * Returns buf.
 */
const char *ll_format_ip(int family, const void *addr, int port, char *buf, size_t len);

#endif /* LOADLENS_PARSE_H */
