// SPDX-License-Identifier: MIT
/* --print-plan: a parsed configuration as one JSON object (plan.h; docs/driver.md, "The plan"). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/app.h"
#include "config/reqmix.h"
#include "base/drv.h"
#include "results/option_json.h"
#include "results/plan.h"
#include "results/report.h"
#include "results/report_ext.h"

const char *drv_plan_key(const char *option)
{
	int id = drv_option_by_name(option);

	return id >= 0 ? drv_options[id].plan_key : NULL;
}

/* An option of a plain kind, under its plan key (config/options.def). */
static int opt(json_t *o, const struct drv_config *cfg, enum drv_opt id)
{
	return drv_option_set(o, cfg, id, DRV_UNITS_PLAN);
}

/* The plan key of an option shown by hand here. */
static const char *key(enum drv_opt id)
{
	return drv_options[id].plan_key;
}

static bool loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return s6->sin6_addr.s6_addr[12] == 127;
	return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
}

static json_t *target(const struct drv_config *cfg)
{
	char addr[INET6_ADDRSTRLEN + 8];
	bool v6 = cfg->addr.ss_family == AF_INET6;

	ll_format_addr((const struct sockaddr *)&cfg->addr, addr, sizeof(addr));
	return json_pack("{s:o,s:s,s:o,s:i,s:o,s:s,s:s,s:b}", "url", drv_json_text(cfg->url_text),
			 "scheme", ll_scheme_name(cfg->url.scheme), "host", drv_json_text(cfg->url.host),
			 "port", (int)cfg->url.port, "path",
			 ll_scheme_has_path(cfg->url.scheme) ? drv_json_text(cfg->url.path) : json_null(),
			 "address", addr, "family", v6 ? "ipv6" : "ipv4", "loopback",
			 loopback(&cfg->addr));
}

/* How many, how long, how fast: -c -t -p -n -d --warmup --rate --delay --connect-rate ... */
static int load(json_t *o, const struct drv_config *cfg)
{
	int bad = 0;

	bad |= opt(o, cfg, DRV_OPT_CONNECTIONS);
	bad |= opt(o, cfg, DRV_OPT_THREADS);
	bad |= opt(o, cfg, DRV_OPT_PROCS);
	bad |= opt(o, cfg, DRV_OPT_REQUESTS);
	bad |= opt(o, cfg, DRV_OPT_DURATION);
	bad |= opt(o, cfg, DRV_OPT_WARMUP);
	bad |= drv_json_set(o, "loop", json_string(cfg->rate ? "open" : "closed"));
	bad |= opt(o, cfg, DRV_OPT_RATE);
	bad |= opt(o, cfg, DRV_OPT_DELAY);
	bad |= drv_json_set(o, key(DRV_OPT_NEW_CONN),
			    json_string(drv_conn_model_name(cfg->conn_model)));
	bad |= opt(o, cfg, DRV_OPT_RECONNECT_EVERY);
	bad |= opt(o, cfg, DRV_OPT_CONNECT_RATE);
	bad |= opt(o, cfg, DRV_OPT_TIMEOUT);
	bad |= opt(o, cfg, DRV_OPT_PIPELINE);
	bad |= opt(o, cfg, DRV_OPT_STREAMS);
	return bad;
}

static json_t *response(const struct drv_config *cfg)
{
	json_t *o = json_pack("{s:s}", "rule", drv_resp_rule_name(cfg->resp_rule));
	char hex[DRV_MAX_DELIM * 2 + 1];
	size_t i;

	if (o && cfg->resp_rule == DRV_RESP_FIXED &&
	    drv_json_set(o, "bytes", drv_json_u64(cfg->resp_fixed)))
		goto fail;
	if (o && cfg->resp_rule == DRV_RESP_PREFIX &&
	    drv_json_set(o, "prefix_bytes", drv_json_u64(cfg->resp_prefix)))
		goto fail;
	if (o && cfg->resp_rule == DRV_RESP_DELIM) {
		for (i = 0; i < cfg->resp_delim_len; i++)
			sprintf(hex + 2 * i, "%02x", (unsigned char)cfg->resp_delim[i]);
		hex[2 * i] = '\0';
		if (drv_json_set(o, "delim_hex", json_string(hex)))
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

/* What each request carries, and how its response ends. */
static int payload(json_t *o, const struct drv_config *cfg)
{
	int bad = 0;

	bad |= opt(o, cfg, DRV_OPT_SIZE);
	bad |= drv_json_set(o, "size_min", drv_json_u64(cfg->size_min));
	bad |= opt(o, cfg, DRV_OPT_PAYLOAD);
	bad |= drv_json_set(o, "payload_bytes", drv_json_u64(cfg->payload_len));
	bad |= drv_json_set(o, key(DRV_OPT_RESPONSE), response(cfg));
	bad |= drv_json_set(o, key(DRV_OPT_PROTO),
			    drv_json_text(drv_config_app(cfg) ? drv_config_app(cfg)->proto
					  : cfg->mc_udp	    ? "memcache-udp"
							    : NULL));
	bad |= drv_json_set(o, key(DRV_OPT_ID),
			    cfg->id_width ? json_pack("{s:i,s:i}", "offset", (int)cfg->id_offset,
						      "width", (int)cfg->id_width)
					  : json_null());
	bad |= opt(o, cfg, DRV_OPT_RCVBUF);
	bad |= opt(o, cfg, DRV_OPT_REQUESTS_FILE);
	bad |= drv_json_set(o, "records", drv_json_u64(cfg->mix ? cfg->mix->n : 0));
	bad |= drv_json_set(o, key(DRV_OPT_SEED),
			    cfg->seed_given ? drv_json_u64(cfg->seed) : json_null());
	return bad;
}

/* Texts as a JSON array, in order: -H's headers, --import-path's folders */
static json_t *texts(const char *const *v, unsigned n)
{
	json_t *a = json_array();
	unsigned i;

	for (i = 0; a && i < n; i++) {
		if (json_array_append_new(a, drv_json_text(v[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* http(s)://, grpc(s)://: method, headers, body, engine, TLS; the gRPC messages. */
static int http(json_t *o, const struct drv_config *cfg)
{
	bool tls = drv_config_tls(cfg) || drv_config_app_tls(cfg); /* and ldaps, --starttls */
	int bad = 0;

	bad |= opt(o, cfg, DRV_OPT_METHOD);
	bad |= drv_json_set(o, key(DRV_OPT_HEADER), texts(cfg->headers, cfg->nheaders));
	bad |= drv_json_set(o, key(DRV_OPT_BODY), drv_json_u64(cfg->body_len));
	bad |= opt(o, cfg, DRV_OPT_HTTP_CLOSE);
	bad |= drv_json_set(o, key(DRV_OPT_HTTP_ENGINE),
			    json_string(cfg->http_engine == DRV_HTTP_CURL ? "curl" : "native"));
	bad |= opt(o, cfg, DRV_OPT_HTTP2);
	bad |= drv_json_set(o, key(DRV_OPT_INSECURE),
			    tls ? json_boolean(!cfg->insecure) : json_null());
	bad |= opt(o, cfg, DRV_OPT_CACERT);
	bad |= opt(o, cfg, DRV_OPT_PROTO_FILE);
	bad |= drv_json_set(o, key(DRV_OPT_IMPORT_PATH), texts(cfg->import_paths,
								 cfg->nimport_paths));
	bad |= opt(o, cfg, DRV_OPT_MESSAGE);
	return bad;
}

static json_t *sources(const struct drv_config *cfg)
{
	json_t *a = json_array();
	char buf[INET6_ADDRSTRLEN + 8];
	const void *in;
	unsigned i;

	for (i = 0; a && i < cfg->nsources; i++) {
		const struct sockaddr_storage *ss = &cfg->sources[i];

		in = ss->ss_family == AF_INET6
			     ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
			     : (const void *)&((const struct sockaddr_in *)ss)->sin_addr;
		if (!inet_ntop(ss->ss_family, in, buf, sizeof(buf)) ||
		    json_array_append_new(a, json_string(buf))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Several machines, and where the output goes. */
static int scale(json_t *o, const struct drv_config *cfg)
{
	int bad = 0;

	bad |= drv_json_set(o, key(DRV_OPT_SOURCE_ADDR), sources(cfg));
	bad |= opt(o, cfg, DRV_OPT_START_AT);
	bad |= drv_json_set(o, key(DRV_OPT_SHARD),
			    json_pack("{s:i,s:i}", "index", (int)cfg->shard_index, "count",
				      (int)cfg->shard_count));
	bad |= opt(o, cfg, DRV_OPT_JSON);
	bad |= opt(o, cfg, DRV_OPT_HDR_LOG);
	bad |= opt(o, cfg, DRV_OPT_INTERVAL);
	bad |= opt(o, cfg, DRV_OPT_QUIET);
	return bad;
}

static json_t *option_keys(void)
{
	json_t *o = json_object();
	char name[64];
	size_t i;

	for (i = 0; o && i < DRV_OPT__COUNT; i++) {
		if (!drv_options[i].plan_key)
			continue; /* help, version, print-plan */
		snprintf(name, sizeof(name), "--%s", drv_options[i].name);
		if (drv_json_set(o, name, json_string(drv_options[i].plan_key))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

json_t *drv_plan_json(const struct drv_config *cfg)
{
	json_t *o = json_object();
	const struct drv_app *a;
	unsigned i;
	int bad = 0;

	if (!o)
		return NULL;
	bad |= drv_json_set(o, "tool", json_string(DRV_PROG));
	bad |= drv_json_set(o, "version", json_string(LOADLENS_VERSION));
	bad |= drv_json_set(o, "kind", json_string("plan"));
	bad |= drv_json_set(o, "plan_schema", json_integer(DRV_PLAN_SCHEMA));
	bad |= drv_json_set(o, "target", target(cfg));
	bad |= load(o, cfg);
	bad |= payload(o, cfg);
	bad |= http(o, cfg);
	for (i = 0; (a = drv_app_at(i)); i++)
		if (a->report && a->report->plan) /* "ldap": a protocol's (report_ext.h) */
			bad |= drv_json_set(o, a->name, a->report->plan(cfg));
	bad |= scale(o, cfg);
	bad |= drv_json_set(o, "option_keys", option_keys());
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int drv_plan_print(FILE *f, const struct drv_config *cfg)
{
	json_t *o = drv_plan_json(cfg);
	int r;

	if (!o)
		return -ENOMEM;
	r = json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (r || fputc('\n', f) == EOF || fflush(f))
		return -EIO;
	return 0;
}
