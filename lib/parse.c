// SPDX-License-Identifier: MIT
/* Parsing of durations, numbers, URLs and addresses, with strict range checks. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/parse.h"

int ll_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
		{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
	};
	char *end;
	double v;
	size_t i;

	const char *p;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	/* digits and a '.', then the unit: no signs, exponents, hex or spaces (strtod must stop
	 * exactly where the digits end) */
	for (p = s; isdigit((unsigned char)*p) || *p == '.'; p++)
		;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != p || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!*end) {
		v *= 1e9;
	} else {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (!strcmp(end, units[i].suffix))
				break;
		}
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		v *= units[i].mult;
	}
	if (v >= 18e18)
		return -ERANGE;
	*ns = (uint64_t)llround(v);
	return 0;
}

int ll_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s)
		return -EINVAL;
	if (*end) {
		if (end[1])
			return -EINVAL;
		switch (*end) {
		case 'k':
		case 'K':
			mult = 1000ULL;
			break;
		case 'M':
			mult = 1000000ULL;
			break;
		case 'G':
			mult = 1000000000ULL;
			break;
		default:
			return -EINVAL;
		}
	}
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	v *= mult;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int ll_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

const char *ll_parse_pair(const char *s, char *head, size_t len)
{
	const char *colon = s ? strrchr(s, ':') : NULL;
	size_t n;

	if (!colon)
		return NULL;
	n = (size_t)(colon - s);
	if (n >= len)
		return NULL;
	memcpy(head, s, n);
	head[n] = '\0';
	return colon + 1;
}

static int parse_port(const char *s, size_t len, uint16_t *port)
{
	char buf[8];
	uint64_t v;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (ll_parse_u64(buf, 1, 65535, &v) || !isdigit((unsigned char)buf[len - 1]))
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static int valid_host(const char *h)
{
	const char *p;

	if (!*h)
		return 0;
	for (p = h; *p; p++) {
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != ':' &&
		    *p != '_')
			return 0;
	}
	return 1;
}

/* Split "host:port" / "[v6]:port" starting at s, ending at end (exclusive). */
static int split_hostport(const char *s, const char *end, char *host, size_t hostlen,
			     uint16_t *port, int port_required)
{
	const char *colon, *hend;
	size_t hlen;

	if (*s == '[') {
		hend = memchr(s, ']', (size_t)(end - s));
		if (!hend)
			return -EINVAL;
		s++;
		colon = hend + 1 < end ? hend + 1 : NULL;
		if (colon && *colon != ':')
			return -EINVAL;
	} else {
		colon = memchr(s, ':', (size_t)(end - s));
		hend = colon ? colon : end;
	}
	hlen = (size_t)(hend - s);
	if (hlen >= hostlen)
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (!valid_host(host))
		return -EINVAL;
	if (!colon) {
		if (port_required)
			return -EINVAL;
		return 0;
	}
	return parse_port(colon + 1, (size_t)(end - colon - 1), port);
}

int ll_parse_url(const char *s, struct ll_url *url)
{
	const char *rest, *slash;
	size_t plen;

	memset(url, 0, sizeof(*url));
	if (!s)
		return -EINVAL;
	if (!strncmp(s, "tcp://", 6)) {
		url->scheme = LL_SCHEME_TCP;
		rest = s + 6;
	} else if (!strncmp(s, "udp://", 6)) {
		url->scheme = LL_SCHEME_UDP;
		rest = s + 6;
	} else if (!strncmp(s, "http://", 7)) {
		url->scheme = LL_SCHEME_HTTP;
		rest = s + 7;
		url->port = 80;
	} else if (!strncmp(s, "https://", 8)) {
		url->scheme = LL_SCHEME_HTTPS;
		rest = s + 8;
		url->port = 443;
	} else if (!strncmp(s, "grpc://", 7)) {
		url->scheme = LL_SCHEME_GRPC; /* no default port: name it */
		rest = s + 7;
	} else if (!strncmp(s, "grpcs://", 8)) {
		url->scheme = LL_SCHEME_GRPCS;
		rest = s + 8;
		url->port = 443;
	} else {
		return -EINVAL;
	}
	slash = strchr(rest, '/');
	if (!ll_scheme_has_path(url->scheme)) {
		if (slash && slash[1])
			return -EINVAL;
		return split_hostport(rest, slash ? slash : rest + strlen(rest), url->host,
					 sizeof(url->host), &url->port, 1);
	}
	if (split_hostport(rest, slash ? slash : rest + strlen(rest), url->host,
			      sizeof(url->host), &url->port, url->scheme == LL_SCHEME_GRPC))
		return -EINVAL;
	if (!slash) {
		strcpy(url->path, "/");
		return 0;
	}
	plen = strlen(slash);
	if (plen >= sizeof(url->path))
		return -EINVAL;
	for (rest = slash; *rest; rest++) {
		if ((unsigned char)*rest <= ' ' || *rest == 0x7f)
			return -EINVAL;
	}
	memcpy(url->path, slash, plen + 1);
	return 0;
}

int ll_parse_hostport(const char *s, char *host, size_t hostlen, uint16_t *port)
{
	const char *end;

	if (!s || !*s || hostlen < 10)
		return -EINVAL;
	end = s + strlen(s);
	if (!strchr(s, ':') && !strchr(s, '[')) {
		strcpy(host, "127.0.0.1");
		return parse_port(s, strlen(s), port);
	}
	if (*s == ':') {
		strcpy(host, "127.0.0.1");
		return parse_port(s + 1, strlen(s + 1), port);
	}
	return split_hostport(s, end, host, hostlen, port, 1);
}

const char *ll_scheme_name(enum ll_scheme s)
{
	static const char *const names[] = {
		[LL_SCHEME_NONE] = "none", [LL_SCHEME_TCP] = "tcp",   [LL_SCHEME_UDP] = "udp",
		[LL_SCHEME_HTTP] = "http", [LL_SCHEME_HTTPS] = "https", [LL_SCHEME_GRPC] = "grpc",
		[LL_SCHEME_GRPCS] = "grpcs",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "none";
}

int ll_resolve(const char *host, uint16_t port, int socktype, struct sockaddr_storage *ss,
	       socklen_t *len)
{
	struct addrinfo hints = {0}, *res = NULL;
	char portbuf[8];

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	snprintf(portbuf, sizeof(portbuf), "%u", port);
	if (getaddrinfo(host, portbuf, &hints, &res) || !res)
		return -EINVAL;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

const char *ll_format_ip(int family, const void *addr, int port, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	bool v6 = family == AF_INET6;

	if (!len)
		return buf;
	if ((family != AF_INET && !v6) || !addr || !inet_ntop(family, addr, ip, sizeof(ip)))
		snprintf(ip, sizeof(ip), "?");
	if (port >= 0)
		snprintf(buf, len, v6 ? "[%s]:%d" : "%s:%d", ip, port);
	else
		snprintf(buf, len, v6 ? "[%s]" : "%s", ip);
	return buf;
}

void ll_format_addr(const struct sockaddr *sa, char *buf, size_t len)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		ll_format_ip(AF_INET, &in->sin_addr, ntohs(in->sin_port), buf, len);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		ll_format_ip(AF_INET6, &in6->sin6_addr, ntohs(in6->sin6_port), buf, len);
	} else {
		snprintf(buf, len, "?");
	}
}
