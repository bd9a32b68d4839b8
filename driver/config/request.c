// SPDX-License-Identifier: MIT
/* Request bytes: refserver payloads, raw payload files, HTTP/1.1 requests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "config/request.h"

static bool has_header(const struct drv_config *cfg, const char *name)
{
	size_t n = strlen(name);
	unsigned i;

	for (i = 0; i < cfg->nheaders; i++)
		if (!strncasecmp(cfg->headers[i], name, n) && cfg->headers[i][n] == ':')
			return true;
	return false;
}

/* snprintf that keeps counting past the end of buf */
#define REQ_PUT(...)                                                                            \
	do {                                                                                   \
		int k__ = snprintf(buf ? buf + off : NULL, buf && off < cap ? cap - off : 0,   \
				   __VA_ARGS__);                                               \
		off += k__ > 0 ? (size_t)k__ : 0;                                              \
	} while (0)

size_t drv_request_http(const struct drv_config *cfg, char *buf, size_t cap)
{
	bool v6 = strchr(cfg->url.host, ':') != NULL;
	size_t off = 0;
	unsigned i;

	REQ_PUT("%s %s HTTP/1.1\r\n", cfg->method, cfg->url.path);
	if (!has_header(cfg, "Host")) {
		REQ_PUT("Host: %s%s%s", v6 ? "[" : "", cfg->url.host, v6 ? "]" : "");
		if (cfg->url.port != 80)
			REQ_PUT(":%u", cfg->url.port);
		REQ_PUT("\r\n");
	}
	for (i = 0; i < cfg->nheaders; i++)
		REQ_PUT("%s\r\n", cfg->headers[i]);
	if ((cfg->body_len || !strcmp(cfg->method, "POST") || !strcmp(cfg->method, "PUT")) &&
	    !has_header(cfg, "Content-Length"))
		REQ_PUT("Content-Length: %zu\r\n", cfg->body_len);
	if (cfg->http_close && !has_header(cfg, "Connection"))
		REQ_PUT("Connection: close\r\n");
	REQ_PUT("\r\n");
	if (cfg->body_len) {
		if (buf && off + cfg->body_len <= cap)
			memcpy(buf + off, cfg->body, cfg->body_len);
		off += cfg->body_len;
	}
	return off;
}

int drv_request_init(struct drv_request *rq, const struct drv_config *cfg, uint64_t seed)
{
	size_t j;

	memset(rq, 0, sizeof(*rq));
	rq->rng = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	if (ll_scheme_is_http(cfg->url.scheme)) {
		rq->len = drv_request_http(cfg, NULL, 0);
		rq->buf = malloc(rq->len + 1);
		if (!rq->buf)
			return -ENOMEM;
		drv_request_http(cfg, rq->buf, rq->len + 1);
		return 0;
	}
	if (cfg->payload) {
		rq->len = cfg->payload_len;
		rq->buf = malloc(rq->len);
		if (!rq->buf)
			return -ENOMEM;
		memcpy(rq->buf, cfg->payload, rq->len);
		return 0;
	}
	rq->sized = true;
	rq->size_min = cfg->size_min;
	rq->size_max = cfg->size;
	rq->len = cfg->size;
	rq->buf = malloc(rq->len ? rq->len : 1);
	if (!rq->buf)
		return -ENOMEM;
	for (j = 0; j < rq->len; j++)
		rq->buf[j] = (char)('a' + j % 26);
	return 0;
}

void drv_request_fini(struct drv_request *rq)
{
	free(rq->buf);
	rq->buf = NULL;
}
