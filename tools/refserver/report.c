// SPDX-License-Identifier: MIT
/* Results at exit: merging the workers' counters, the JSON file and the one-line summary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nghttp2/nghttp2.h>
#include "loadlens/cli.h"
#include "loadlens/grpc_status.h"
#include "loadlens/hist_json.h"
#include "loadlens/json_counts.h"
#include "refserver.h"

/* Every field of struct rs_counters is a uint64_t count: the workers' are added as arrays. */
_Static_assert(sizeof(struct rs_counters) % sizeof(uint64_t) == 0,
	       "struct rs_counters holds uint64_t counts only");

void rs_merge(struct rs_counters *dst, const struct rs_counters *src)
{
	uint64_t *d = (uint64_t *)dst;
	const uint64_t *s = (const uint64_t *)src;
	size_t i;

	for (i = 0; i < sizeof(*dst) / sizeof(uint64_t); i++)
		d[i] += s[i];
}

/* accept()'s errno i by name; index 0 holds errno values too large for the table */
static const char *errno_name(unsigned i, char *buf, unsigned len)
{
	(void)buf;
	(void)len;
	return i ? uv_err_name(-(int)i) : "other";
}

static json_t *per_worker(const struct rs_worker *workers, unsigned n)
{
	json_t *a = json_array();
	unsigned i;

	if (!a)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct rs_counters *c = &workers[i].c;

		json_array_append_new(
			a, json_pack("{s:i,s:I,s:I,s:I,s:I}", "worker", (int)i,
				     "connections_accepted", (json_int_t)c->connections_accepted,
				     "requests", (json_int_t)c->requests, "responses",
				     (json_int_t)c->responses, "udp_dropped",
				     (json_int_t)c->udp_dropped));
	}
	return a;
}

/* RST_STREAM's error code i by name; the last slot holds the codes beyond */
static const char *rst_code_name(unsigned i, char *buf, unsigned len)
{
	(void)buf;
	(void)len;
	return i < RS_H2_CODES - 1 ? nghttp2_http2_strerror(i) : "other";
}

/* {"/kv.Store/Put": N, ...}: the workers' tables merged; "(other)" beyond their bound */
static json_t *grpc_methods(const struct rs_worker *workers, unsigned n)
{
	struct rs_grpc_methods *all = calloc(1, sizeof(*all));
	json_t *o = json_object();
	unsigned i;

	if (all && o) {
		for (i = 0; i < n; i++)
			rs_grpc_methods_merge(all, &workers[i].methods);
		for (i = 0; i < all->n; i++)
			json_object_set_new(o, all->m[i].path,
					    json_integer((json_int_t)all->m[i].calls));
		if (all->other)
			json_object_set_new(o, "(other)", json_integer((json_int_t)all->other));
	}
	free(all);
	return o;
}

/* h2 and grpc: streams, frames and statuses */
static void h2_json(json_t *root, const struct rs_config *cfg, const struct rs_worker *workers,
		    const struct rs_counters *t)
{
#define JSET(k, v) json_object_set_new(root, k, json_integer((json_int_t)(v)))
	JSET("streams_opened", t->streams_opened);
	JSET("streams_answered", t->responses);
	JSET("streams_unserved", t->streams_unserved);
	JSET("streams_reset", t->streams_reset);
	JSET("stalled", t->streams_stalled);
	JSET("rst_sent", t->rst_sent);
	JSET("rst_received", t->rst_received);
	JSET("goaway_sent", t->goaway_sent);
#undef JSET
	/* {"INTERNAL_ERROR": N, "REFUSED_STREAM": N, ...}: the RST_STREAM frames sent, by code */
	json_object_set_new(root, "rst_sent_codes",
			    ll_json_counts(t->rst_sent_codes, RS_H2_CODES, rst_code_name));
	/* {"200": N, ...}: the statuses counted */
	json_object_set_new(root, "http_status",
			    ll_json_counts(t->http_status, RS_HTTP_STATUS_MAX, ll_code_number));
	if (cfg->proto != RS_PROTO_GRPC)
		return;
	json_object_set_new(root, "grpc_methods", grpc_methods(workers, cfg->workers));
	/* {"OK": N, "RESOURCE_EXHAUSTED": N, ...}: the grpc-status codes sent */
	json_object_set_new(root, "grpc_status",
			    ll_json_counts(t->grpc_status, RS_GRPC_NSTATUS, ll_grpc_status_key));
	json_object_set_new(root, "grpc_messages", json_integer((json_int_t)t->grpc_messages));
	json_object_set_new(root, "grpc_rejected",
			    json_pack("{s:I,s:I,s:I,s:I}", "content_type",
				      (json_int_t)t->grpc_bad_content_type, "method",
				      (json_int_t)t->grpc_bad_method, "path",
				      (json_int_t)t->grpc_bad_path, "message",
				      (json_int_t)t->grpc_bad_message));
}

int rs_write_json(const struct rs_config *cfg, const struct rs_worker *workers,
		  const struct rs_counters *t, const struct ll_hist *hist, double elapsed_s)
{
	json_t *root;
	int err = 0;

#define JINT(v) ((json_int_t)(v))
	root = json_pack(
		"{s:s,s:s,s:s,s:s,s:i,s:{s:I,s:s,s:s},s:f,"
		"s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}",
		"tool", RS_PROG, "version", LOADLENS_VERSION, "proto", rs_proto_name(cfg->proto),
		"listen", cfg->listen_str, "workers", (int)cfg->workers, "service", "time_ns",
		JINT(cfg->service_ns), "dist", rs_dist_name(cfg->dist), "mode",
		rs_mode_name(cfg->mode), "elapsed_s", elapsed_s, "connections_accepted",
		JINT(t->connections_accepted), "connections_closed", JINT(t->connections_closed),
		"requests", JINT(t->requests), "responses", JINT(t->responses), "bytes_in",
		JINT(t->bytes_in), "bytes_out", JINT(t->bytes_out), "protocol_errors",
		JINT(t->protocol_errors), "udp_dropped", JINT(t->udp_dropped), "accept_errors",
		ll_json_counts(t->accept_errors, RS_ERRNO_MAX, errno_name));
	if (!root)
		return -ENOMEM;
	json_object_set_new(root, "connections_rejected",
			    json_integer(JINT(t->connections_rejected)));
	json_object_set_new(root, "connections_leaked", json_integer(JINT(t->connections_leaked)));
	json_object_set_new(root, "connections_open_at_exit",
			    json_integer(JINT(t->connections_open_at_exit)));
	json_object_set_new(root, "fds_leaked", json_integer(JINT(t->fds_leaked)));
	json_object_set_new(root, "udp_send_errors", json_integer(JINT(t->udp_send_errors)));
	json_object_set_new(root, "stalls", json_integer(JINT(t->stalls)));
	json_object_set_new(root, "trace_dropped", json_integer(JINT(t->trace_dropped)));
	json_object_set_new(root, "backlog", json_integer(cfg->backlog));
	json_object_set_new(root, "response_size", json_integer(cfg->response_size));
	json_object_set_new(root, "seed", json_integer(JINT(cfg->seed)));
	json_object_set_new(root, "misbehaviour", rs_misbehave_to_json(&cfg->mb));
	json_object_set_new(root, "per_worker", per_worker(workers, cfg->workers));
	json_object_set_new(root, "service_time", ll_hist_to_json(hist));
	if (cfg->proto == RS_PROTO_H2 || cfg->proto == RS_PROTO_GRPC)
		h2_json(root, cfg, workers, t);
#undef JINT

	if (!strcmp(cfg->json_path, "-")) {
		if (json_dumpf(root, stdout, JSON_COMPACT) || fputc('\n', stdout) == EOF)
			err = -EIO;
	} else {
		errno = 0;
		if (json_dumpf(root, cfg->json_out, JSON_INDENT(2)) ||
		    fputc('\n', cfg->json_out) == EOF || fflush(cfg->json_out) == EOF)
			err = errno ? -errno : -EIO;
	}
	json_decref(root);
	return err;
}

void rs_print_summary(const struct rs_config *cfg, const struct rs_counters *t,
		      const struct ll_hist *hist, double elapsed_s)
{
	char p50[32], p99[32];

	ll_fmt_ns((double)ll_hist_percentile(hist, 50), p50, sizeof(p50));
	ll_fmt_ns((double)ll_hist_percentile(hist, 99), p99, sizeof(p99));
	printf("%s: %s %.2fs: %llu requests, %llu responses, %llu connections, %llu protocol "
	       "errors, %llu dropped, service p50 %s p99 %s\n",
	       RS_PROG, rs_proto_name(cfg->proto), elapsed_s, (unsigned long long)t->requests,
	       (unsigned long long)t->responses, (unsigned long long)t->connections_accepted,
	       (unsigned long long)t->protocol_errors, (unsigned long long)t->udp_dropped, p50,
	       p99);
	if (cfg->proto == RS_PROTO_H2 || cfg->proto == RS_PROTO_GRPC)
		printf("%s: %s streams: %llu opened, %llu answered, %llu rst sent, %llu stalled, "
		       "%llu unserved, %llu goaway sent\n",
		       RS_PROG, rs_proto_name(cfg->proto), (unsigned long long)t->streams_opened,
		       (unsigned long long)t->responses, (unsigned long long)t->rst_sent,
		       (unsigned long long)t->streams_stalled,
		       (unsigned long long)t->streams_unserved, (unsigned long long)t->goaway_sent);
	fflush(stdout);
}
