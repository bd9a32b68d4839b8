// SPDX-License-Identifier: MIT
/* The http:// and https:// part of the command line: headers, engine, TLS and HTTP/2 checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/option.h"
#include "config/config_http.h"
#include "config/config_payload.h"
#include "config/app.h"
#include "config/engine.h"

/* RFC 9110 §5.6.2: a field name is a token */
static bool token_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

int drv__config_header(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	const char *colon = strchr(s, ':'), *p;

	if (!colon || colon == s)
		return drv__config_fail(err, errlen, "-H '%s': expected 'Name: value'", s);
	for (p = s; *p; p++)
		if (*p == '\r' || *p == '\n')
			return drv__config_fail(err, errlen, "-H: no line breaks in a header");
	for (p = s; p < colon; p++)
		if (!token_char((unsigned char)*p))
			return drv__config_fail(err, errlen, "-H '%s': the name '%.*s' is not a "
						"token (RFC 9110: letters, digits and "
						"!#$%%&'*+-.^_`|~)", s, (int)(colon - s), s);
	/* RFC 9110 §5.5: a field value has no control byte but tab */
	for (p = colon + 1; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			return drv__config_fail(err, errlen, "-H '%s': a control byte (0x%02x) in "
						"the value (RFC 9110 allows none but tab)", s,
						(unsigned char)*p);
	if (cfg->nheaders >= DRV_MAX_HEADERS)
		return drv__config_fail(err, errlen, "-H: at most %d headers", DRV_MAX_HEADERS);
	cfg->headers[cfg->nheaders++] = s;
	return 0;
}

int drv__config_cacert(struct drv_config *cfg, const char *path, char *err, size_t errlen)
{
	int r;

	if (!*path)
		return drv__config_fail(err, errlen, "--cacert: empty file name");
	/* read now: the run itself may no longer be allowed to (privilege.h) */
	free(cfg->cacert_pem);
	cfg->cacert_pem = NULL;
	r = drv__config_slurp("--cacert", path, &cfg->cacert_pem, &cfg->cacert_len, err, errlen);
	if (r)
		return r;
	if (!cfg->cacert_len)
		return drv__config_fail(err, errlen, "--cacert %s: the file is empty", path);
	cfg->cacert = path;
	return 0;
}

/*
 * --http2 is the native HTTP/2 engine (h2/h2_engine.c) unless --http-engine curl; https://
 * without it is HTTP/1.1 through libcurl, where an explicit --http-engine native contradicts.
 */
static int config_http_engine(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			      size_t errlen)
{
	if (cfg->http2 || cfg->url.scheme != LL_SCHEME_HTTPS)
		return 0;
	if (seen->engine_given && cfg->http_engine == DRV_HTTP_NATIVE)
		return drv__config_fail(err, errlen, "https:// with HTTP/1.1 goes through libcurl: "
					"drop --http-engine native, or add --http2 for the native "
					"HTTP/2 engine");
	cfg->http_engine = DRV_HTTP_CURL;
	return 0;
}

int drv__config_check_http(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			   size_t errlen)
{
	enum ll_scheme sch = cfg->url.scheme;
	unsigned i;
	int r;

	if (seen->http_opts && !ll_scheme_is_http(sch) &&
	    (seen->http_only || !ll_scheme_is_grpc(sch)))
		return drv__config_fail(err, errlen,
			       "-m, -H, --body, --body-file, --http-close, --http-engine and "
			       "--http2 are for http:// and https:// targets (grpc:// takes -H)");
	if (seen->tls_opts && !drv_config_tls(cfg) && !drv_config_app_tls(cfg))
		return drv__config_fail(err, errlen, "--insecure and --cacert are for https://, "
					"grpcs:// and ldaps:// targets (or ldap:// with --starttls)");
	if (!ll_scheme_is_http(sch))
		return 0;
	if (cfg->payload)
		return drv__config_fail(err, errlen,
			       "--payload is for tcp:// and udp://; http:// uses --body");
	if (cfg->size != DRV_DEFAULT_SIZE || cfg->size_min != DRV_DEFAULT_SIZE)
		return drv__config_fail(err, errlen, "--size is for tcp:// and udp://; http:// uses --body");
	cfg->resp_rule = DRV_RESP_HTTP;
	if (cfg->http_close) {
		if (cfg->conn_model == DRV_CONN_RECONNECT)
			return drv__config_fail(err, errlen,
				       "--http-close already means one request per connection");
		if (cfg->http2)
			return drv__config_fail(err, errlen,
				       "--http-close sends an HTTP/1.1 header; with --http2 use "
				       "--new-conn for one request per connection");
		cfg->conn_model = DRV_CONN_NEW;
		cfg->reconnect_every = 1;
	}
	r = config_http_engine(cfg, seen, err, errlen);
	if (!r) /* the libcurl engine's: what this libcurl can do (http/http_config.c) */
		r = drv__config_engine_check_run(cfg, err, errlen);
	if (r)
		return r;
	if (cfg->insecure && cfg->cacert)
		return drv__config_fail(err, errlen,
			       "--insecure skips the verification --cacert is for: give one of "
			       "them");
	for (i = 0; cfg->method[i]; i++)
		if (cfg->method[i] < 'A' || cfg->method[i] > 'Z')
			return drv__config_fail(err, errlen, "-m %s: a method is upper-case letters",
				       cfg->method);
	if (!i || i > 16)
		return drv__config_fail(err, errlen, "-m: a method is 1..16 letters");
	if (cfg->nsources && (cfg->http_engine == DRV_HTTP_CURL || cfg->http2))
		return drv__config_fail(err, errlen,
			       "--source-addr needs the native HTTP/1.1 engine (http:// without "
			       "--http-engine curl or --http2)");
	return 0;
}
