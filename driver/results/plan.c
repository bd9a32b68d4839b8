// SPDX-License-Identifier: MIT
/* --print-plan: a parsed configuration as one JSON object (plan.h; docs/driver.md, "The plan"). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/config_ldap.h"
#include "config/reqmix.h"
#include "base/drv.h"
#include "results/plan.h"
#include "results/report.h"

/* Each long option and the plan key that shows what it set. */
static const struct {
	const char *option;
	const char *key;
} keys[] = {
	{"connections", "connections"},	  {"threads", "threads"},
	{"requests", "requests"},	  {"duration", "duration_s"},
	{"new-conn", "conn_model"},	  {"reconnect-every", "reconnect_every"},
	{"size", "size"},		  {"timeout", "timeout_s"},
	{"json", "json"},		  {"interval", "interval_s"},
	{"rate", "rate"},		  {"delay", "delay_s"},
	{"warmup", "warmup_s"},		  {"payload", "payload"},
	{"response", "response"},	  {"method", "method"},
	{"header", "headers"},		  {"body", "body_bytes"},
	{"body-file", "body_bytes"},	  {"http-close", "http_close"},
	{"http-engine", "http_engine"},	  {"http2", "http2"},
	{"insecure", "tls_verify"},	  {"cacert", "cacert"},
	{"source-addr", "source_addrs"},  {"start-at", "start_at_unix_s"},
	{"shard", "shard"},		  {"id", "id"},
	{"rcvbuf", "rcvbuf"},		  {"proto", "proto"},
	{"hdr-log", "hdr_log"},		  {"requests-file", "requests_file"},
	{"seed", "seed"},		  {"connect-rate", "connect_rate"},
	{"streams", "streams"},		  {"proto-file", "proto_file"},
	{"message", "message"},		  {"message-file", "message"},
	{"base", "ldap"},		  {"scope", "ldap"},
	{"filter", "ldap"},		  {"attrs", "ldap"},
	{"bind-dn", "ldap"},		  {"bind-password-file", "ldap"},
	{"starttls", "ldap"},
	{"procs", "procs"},		  {"pipeline", "pipeline"},
	{"quiet", "quiet"},		  {"import-path", "import_paths"},
};

const char *drv_plan_key(const char *option)
{
	size_t i;

	for (i = 0; option && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].option, option))
			return keys[i].key;
	return NULL;
}

/* json_object_set_new() with a check: any failure makes the plan NULL. */
static int set(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *secs(uint64_t ns)
{
	return json_real((double)ns / 1e9);
}

/* The user's text; bytes that are not UTF-8 become \xHH, so the plan is always JSON. */
static json_t *text(const char *s)
{
	json_t *j;
	char *buf, *p;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	buf = malloc(strlen(s) * 4 + 1);
	if (!buf)
		return NULL;
	for (p = buf; *s; s++)
		p += (unsigned char)*s < 0x80 ? sprintf(p, "%c", *s)
					       : sprintf(p, "\\x%02x", (unsigned char)*s);
	j = json_string(buf);
	free(buf);
	return j;
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
	return json_pack("{s:o,s:s,s:o,s:i,s:o,s:s,s:s,s:b}", "url", text(cfg->url_text),
			 "scheme", ll_scheme_name(cfg->url.scheme), "host", text(cfg->url.host),
			 "port", (int)cfg->url.port, "path",
			 ll_scheme_has_path(cfg->url.scheme) ? text(cfg->url.path) : json_null(),
			 "address", addr, "family", v6 ? "ipv6" : "ipv4", "loopback",
			 loopback(&cfg->addr));
}

/* How many, how long, how fast: -c -t -p -n -d --warmup --rate --delay --connect-rate ... */
static int load(json_t *o, const struct drv_config *cfg)
{
	int bad = 0;

	bad |= set(o, "connections", u64(cfg->connections));
	bad |= set(o, "threads", u64(cfg->threads));
	bad |= set(o, "procs", cfg->procs ? u64(cfg->procs) : json_null());
	bad |= set(o, "requests", cfg->requests ? u64(cfg->requests) : json_null());
	bad |= set(o, "duration_s", cfg->duration_ns ? secs(cfg->duration_ns) : json_null());
	bad |= set(o, "warmup_s", secs(cfg->warmup_ns));
	bad |= set(o, "loop", json_string(cfg->rate ? "open" : "closed"));
	bad |= set(o, "rate", cfg->rate ? json_real(cfg->rate) : json_null());
	bad |= set(o, "delay_s", secs(cfg->delay_ns));
	bad |= set(o, "conn_model", json_string(drv_conn_model_name(cfg->conn_model)));
	bad |= set(o, "reconnect_every", u64(cfg->reconnect_every));
	bad |= set(o, "connect_rate", cfg->connect_rate ? json_real(cfg->connect_rate)
							: json_null());
	bad |= set(o, "timeout_s", secs(cfg->timeout_ns));
	bad |= set(o, "pipeline", u64(cfg->pipeline));
	bad |= set(o, "streams", u64(cfg->streams));
	return bad;
}

static json_t *response(const struct drv_config *cfg)
{
	json_t *o = json_pack("{s:s}", "rule", drv_resp_rule_name(cfg->resp_rule));
	char hex[DRV_MAX_DELIM * 2 + 1];
	size_t i;

	if (o && cfg->resp_rule == DRV_RESP_FIXED &&
	    set(o, "bytes", u64(cfg->resp_fixed)))
		goto fail;
	if (o && cfg->resp_rule == DRV_RESP_PREFIX && set(o, "prefix_bytes", u64(cfg->resp_prefix)))
		goto fail;
	if (o && cfg->resp_rule == DRV_RESP_DELIM) {
		for (i = 0; i < cfg->resp_delim_len; i++)
			sprintf(hex + 2 * i, "%02x", (unsigned char)cfg->resp_delim[i]);
		hex[2 * i] = '\0';
		if (set(o, "delim_hex", json_string(hex)))
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

	bad |= set(o, "size", u64(cfg->size));
	bad |= set(o, "size_min", u64(cfg->size_min));
	bad |= set(o, "payload", text(cfg->payload_path));
	bad |= set(o, "payload_bytes", u64(cfg->payload_len));
	bad |= set(o, "response", response(cfg));
	bad |= set(o, "proto", text(cfg->ldap && cfg->ldap->on ? "ldap"
				    : cfg->mc_udp		   ? "memcache-udp"
							   : NULL));
	bad |= set(o, "id", cfg->id_width ? json_pack("{s:i,s:i}", "offset", (int)cfg->id_offset,
						     "width", (int)cfg->id_width)
					  : json_null());
	bad |= set(o, "rcvbuf", u64(cfg->rcvbuf));
	bad |= set(o, "requests_file", text(cfg->requests_path));
	bad |= set(o, "records", u64(cfg->mix ? cfg->mix->n : 0));
	bad |= set(o, "seed", cfg->seed_given ? u64(cfg->seed) : json_null());
	return bad;
}

static json_t *headers(const struct drv_config *cfg)
{
	json_t *a = json_array();
	unsigned i;

	for (i = 0; a && i < cfg->nheaders; i++) {
		if (json_array_append_new(a, text(cfg->headers[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* --import-path's folders, in order */
static json_t *import_paths(const struct drv_config *cfg)
{
	json_t *a = json_array();
	unsigned i;

	for (i = 0; a && i < cfg->nimport_paths; i++) {
		if (json_array_append_new(a, text(cfg->import_paths[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* http(s)://, grpc(s)://: method, headers, body, engine, TLS; the gRPC messages. */
static int http(json_t *o, const struct drv_config *cfg)
{
	bool tls = drv_config_tls(cfg) || (cfg->ldap && cfg->ldap->tls); /* and ldaps, --starttls */
	int bad = 0;

	bad |= set(o, "method", text(cfg->method));
	bad |= set(o, "headers", headers(cfg));
	bad |= set(o, "body_bytes", u64(cfg->body_len));
	bad |= set(o, "http_close", json_boolean(cfg->http_close));
	bad |= set(o, "http_engine", json_string(cfg->http_engine == DRV_HTTP_CURL ? "curl"
										     : "native"));
	bad |= set(o, "http2", json_boolean(cfg->http2));
	bad |= set(o, "tls_verify", tls ? json_boolean(!cfg->insecure) : json_null());
	bad |= set(o, "cacert", text(cfg->cacert));
	bad |= set(o, "proto_file", text(cfg->proto_path));
	bad |= set(o, "import_paths", import_paths(cfg));
	bad |= set(o, "message", text(cfg->grpc_json_from));
	return bad;
}

static json_t *ldap(const struct drv_config *cfg)
{
	json_t *o;

	if (!cfg->ldap || !cfg->ldap->on)
		return json_null();
	o = drv_report_json_ldap_config(cfg); /* report_ldap.c: as a result's config.ldap */
	if (o && set(o, "bind_password_file", text(cfg->ldap->pw_path))) {
		json_decref(o);
		return NULL;
	}
	return o;
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

	bad |= set(o, "source_addrs", sources(cfg));
	bad |= set(o, "start_at_unix_s", cfg->start_at_unix_ns ? secs(cfg->start_at_unix_ns)
							      : json_null());
	bad |= set(o, "shard", json_pack("{s:i,s:i}", "index", (int)cfg->shard_index, "count",
					 (int)cfg->shard_count));
	bad |= set(o, "json", text(cfg->json_path));
	bad |= set(o, "hdr_log", text(cfg->hdr_log_path));
	bad |= set(o, "interval_s", secs(cfg->interval_ns));
	bad |= set(o, "quiet", json_boolean(cfg->quiet));
	return bad;
}

static json_t *option_keys(void)
{
	json_t *o = json_object();
	char name[64];
	size_t i;

	for (i = 0; o && i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(name, sizeof(name), "--%s", keys[i].option);
		if (set(o, name, json_string(keys[i].key))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

json_t *drv_plan_json(const struct drv_config *cfg)
{
	json_t *o = json_object();
	int bad = 0;

	if (!o)
		return NULL;
	bad |= set(o, "tool", json_string(DRV_PROG));
	bad |= set(o, "version", json_string(LOADLENS_VERSION));
	bad |= set(o, "kind", json_string("plan"));
	bad |= set(o, "plan_schema", json_integer(DRV_PLAN_SCHEMA));
	bad |= set(o, "target", target(cfg));
	bad |= load(o, cfg);
	bad |= payload(o, cfg);
	bad |= http(o, cfg);
	bad |= set(o, "ldap", ldap(cfg));
	bad |= scale(o, cfg);
	bad |= set(o, "option_keys", option_keys());
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
