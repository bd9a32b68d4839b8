// SPDX-License-Identifier: MIT
/* The HTTP/2 request's headers, built once per thread (h2_stream.h, h2__headers()). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nghttp2/nghttp2.h>
#include "base/drv.h"
#include "config/config.h"
#include "h2/h2_conn.h"
#include "h2/h2_stream.h"

#define H2_NV_FLAGS (NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE)

static void nv(struct h2_thread *ht, const char *name, const char *value)
{
	ht->nva[ht->nnv++] = (nghttp2_nv){(uint8_t *)name, (uint8_t *)value, strlen(name),
					  strlen(value), H2_NV_FLAGS};
}

static char *own(struct h2_thread *ht, const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p)
		ht->owned[ht->nowned++] = p;
	return p;
}

/* HTTP/1-only headers a server must refuse over HTTP/2 (RFC 9113, 8.2.2) */
static bool h1_only(const char *name)
{
	static const char *const drop[] = {"connection", "keep-alive", "proxy-connection",
					   "transfer-encoding", "upgrade", "host"};
	size_t i;

	for (i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (!strcmp(name, drop[i]))
			return true;
	return false;
}

/* -H 'Name: value': the name lower-cased (HTTP/2 wants it so), Host as :authority. */
static int user_header(struct h2_thread *ht, const char *h)
{
	const char *colon = strchr(h, ':'), *v = colon + 1;
	char *name = own(ht, h, (size_t)(colon - h));
	size_t i;

	if (!name)
		return -ENOMEM;
	for (i = 0; name[i]; i++)
		name[i] = (char)tolower((unsigned char)name[i]);
	while (*v == ' ' || *v == '\t')
		v++;
	if (!strcmp(name, "host")) {
		snprintf(ht->authority, sizeof(ht->authority), "%s", v);
		return 0;
	}
	if (!h1_only(name) && (strcmp(name, "te") || !strcmp(v, "trailers")))
		nv(ht, name, v);
	return 0;
}

int h2__headers(struct h2_thread *ht, const struct drv_config *cfg)
{
	bool v6 = strchr(cfg->url.host, ':') != NULL, tls = drv_config_tls(cfg);
	uint16_t dport = tls ? 443 : 80;
	unsigned i;
	int n;

	ht->nva = calloc(H2_NV_MAX, sizeof(*ht->nva));
	ht->owned = calloc(DRV_MAX_HEADERS, sizeof(*ht->owned));
	if (!ht->nva || !ht->owned)
		return -ENOMEM;
	n = snprintf(ht->authority, sizeof(ht->authority), "%s%s%s", v6 ? "[" : "", cfg->url.host,
		     v6 ? "]" : "");
	if (cfg->url.port != dport || ll_scheme_is_grpc(cfg->url.scheme))
		snprintf(ht->authority + n, sizeof(ht->authority) - (size_t)n, ":%u",
			 cfg->url.port);
	nv(ht, ":method", ht->grpc ? "POST" : cfg->method);
	nv(ht, ":scheme", tls ? "https" : "http");
	nv(ht, ":authority", ht->authority);
	ht->path_nv = ht->nnv;
	nv(ht, ":path", cfg->url.path);
	if (ht->grpc) {
		nv(ht, "content-type", "application/grpc");
		nv(ht, "te", "trailers");
		if (ll_grpc_timeout(cfg->timeout_ns, ht->grpc_timeout, sizeof(ht->grpc_timeout)))
			nv(ht, "grpc-timeout", ht->grpc_timeout);
	} else if (cfg->body_len || !strcmp(cfg->method, "POST") || !strcmp(cfg->method, "PUT")) {
		snprintf(ht->content_length, sizeof(ht->content_length), "%zu", cfg->body_len);
		nv(ht, "content-length", ht->content_length);
	}
	for (i = 0; i < cfg->nheaders; i++)
		if (user_header(ht, cfg->headers[i]))
			return -ENOMEM;
	/* :authority points at ht->authority, which a Host header may have changed */
	ht->nva[2].valuelen = strlen(ht->authority);
	return 0;
}
