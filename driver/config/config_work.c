// SPDX-License-Identifier: MIT
/*
 * The real-workload options: --proto memcache-udp, --hdr-log FILE, --requests-file FILE,
 * --seed N and -P/--pipeline N, and what they need of the rest of the command line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/option.h"
#include "config/config_work.h"
#include "config/app.h"
#include "config/reqmix.h"

#define DRV_MAX_PIPELINE 1024

int drv__config_work_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen)
{
	if (!strcmp(name, "proto")) {
		if (drv_app_named(v) && drv_app_named(v)->opt) /* --proto ldap: its own (app.h) */
			return drv_app_named(v)->opt(cfg, "proto", v, err, errlen);
		if (strcmp(v, "memcache-udp"))
			return drv__config_fail(err, errlen,
						"--proto %s: expected memcache-udp or ldap", v);
		cfg->mc_udp = true;
		return 0;
	}
	if (!strcmp(name, "hdr-log")) {
		cfg->hdr_log_path = v;
		return *v ? 0 : drv__config_fail(err, errlen, "--hdr-log: empty file name");
	}
	if (!strcmp(name, "requests-file")) {
		cfg->requests_path = v;
		return *v ? 0 : drv__config_fail(err, errlen, "--requests-file: empty file name");
	}
	if (!strcmp(name, "seed")) {
		cfg->seed_given = true;
		return drv__config_num("--seed", v, 1, UINT64_MAX, &cfg->seed, err, errlen);
	}
	return drv__config_num("-P", v, 1, DRV_MAX_PIPELINE, &cfg->pipeline, err, errlen);
}

/* memcache-udp: the payload gets the frame header (id stamped per request at 0:2). */
static int mc_udp(struct drv_config *cfg, char *err, size_t errlen)
{
	static const uint8_t hdr[DRV_MCUDP_HDR] = {0, 0, 0, 0, 0, 1, 0, 0};
	char *p;

	if (cfg->url.scheme != LL_SCHEME_UDP || (!cfg->payload && !cfg->requests_path))
		return drv__config_fail(err, errlen, "--proto memcache-udp goes with udp:// and "
					"--payload FILE (a text command, e.g. 'get key\\r\\n')");
	if (cfg->id_width)
		return drv__config_fail(err, errlen, "--proto memcache-udp stamps its own request id "
					"(frame header bytes 0-1): drop --id");
	cfg->id_offset = 0;
	cfg->id_width = 2;
	cfg->resp_rule = DRV_RESP_MEMCACHE;
	if (!cfg->payload) /* records get their header in reqmix.c */
		return 0;
	if (cfg->payload_len + DRV_MCUDP_HDR > DRV_MAX_UDP_SIZE)
		return drv__config_fail(err, errlen, "--payload: too large for one datagram");
	p = malloc(cfg->payload_len + DRV_MCUDP_HDR);
	if (!p)
		return drv__config_fail(err, errlen, "out of memory");
	memcpy(p, hdr, sizeof(hdr));
	memcpy(p + DRV_MCUDP_HDR, cfg->payload, cfg->payload_len);
	free(cfg->payload);
	cfg->payload = p;
	cfg->payload_len += DRV_MCUDP_HDR;
	return 0;
}

/* --requests-file: what it goes with, then its records. */
static int mix(struct drv_config *cfg, const struct drv__seen *seen, char *err,
		  size_t errlen)
{
	enum ll_scheme sch = cfg->url.scheme;
	uint32_t i;

	if (cfg->payload || cfg->body)
		return drv__config_fail(err, errlen, "--requests-file replaces --payload, --body and "
					"--body-file");
	if (sch == LL_SCHEME_HTTPS || (sch == LL_SCHEME_HTTP && (cfg->http_engine != DRV_HTTP_NATIVE
								  || cfg->http2)))
		return drv__config_fail(err, errlen, "--requests-file goes with tcp://, udp://, "
					"http:// (HTTP/1.1, the native engine) and grpc://");
	if (sch == LL_SCHEME_TCP && !seen->resp_given)
		return drv__config_fail(err, errlen, "--requests-file on tcp:// needs --response "
					"(resp, memcache, dns, fixed:N, delim:STR, prefix:N)");
	if (sch == LL_SCHEME_UDP && cfg->resp_rule == DRV_RESP_DNS && !cfg->id_width) {
		cfg->id_offset = 0; /* the DNS message id */
		cfg->id_width = 2;
	}
	if (drv_reqmix_load(cfg, err, errlen))
		return -EINVAL;
	for (i = 0; sch == LL_SCHEME_UDP && i < cfg->mix->n; i++) {
		if (cfg->mix->rec[i].tpl.len > DRV_MAX_UDP_SIZE)
			return drv__config_fail(err, errlen, "--requests-file: record %u is over a "
						"datagram", i + 1);
		if (cfg->id_width && cfg->id_offset + cfg->id_width > cfg->mix->rec[i].tpl.len)
			return drv__config_fail(err, errlen, "--requests-file: record %u is shorter "
						"than --id %u:%u", i + 1, cfg->id_offset,
						cfg->id_width);
	}
	return 0;
}

int drv__config_work_check(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			   size_t errlen)
{
	enum ll_scheme sch = cfg->url.scheme;

	if (cfg->mc_udp && seen->resp_given)
		return drv__config_fail(err, errlen, "--proto memcache-udp has its own framing: drop "
					"--response");
	if (cfg->mc_udp && mc_udp(cfg, err, errlen))
		return -EINVAL;
	if (cfg->hdr_log_path && !cfg->interval_ns)
		return drv__config_fail(err, errlen, "--hdr-log writes one line per --interval: give "
					"--interval a duration, not 0");
	if (cfg->requests_path && mix(cfg, seen, err, errlen))
		return -EINVAL;
	if (cfg->pipeline > 1) {
		if (sch != LL_SCHEME_TCP && !(sch == LL_SCHEME_HTTP &&
					      cfg->http_engine == DRV_HTTP_NATIVE && !cfg->http2))
			return drv__config_fail(err, errlen, "-P goes with tcp:// and http:// (HTTP/1.1, "
						"the native engine)");
		if (cfg->conn_model != DRV_CONN_KEEPALIVE || cfg->http_close)
			return drv__config_fail(err, errlen, "-P keeps connections open: drop --new-conn, "
						"--reconnect-every and --http-close");
		if (sch == LL_SCHEME_TCP && cfg->resp_rule == DRV_RESP_DNS)
			return drv__config_fail(err, errlen, "-P with --response dns: a DNS server may "
						"answer pipelined queries out of order");
	}
	return 0;
}
