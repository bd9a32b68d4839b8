// SPDX-License-Identifier: MIT
/*
 * The HTTP/2 and gRPC parts of the summary, the JSON ("h2", "grpc_status") and their merge:
 * the server's stream limit and the peak in flight, RST_STREAM by error code, GOAWAY, flow-control
 * stalls, and answers by grpc-status, each with a hint where it needs one.
 */
#include <stdio.h>
#include <string.h>
#include <nghttp2/nghttp2.h>
#include "loadlens/grpc_status.h"
#include "config/config.h"
#include "results/report.h"
#include "h2/h2_report.h"
#include "results/result.h"
#include "results/stats.h"

/* RST_STREAM code i's name: NO_ERROR .. HTTP_1_1_REQUIRED, "other" past them. */
static const char *rst_name(unsigned i, char *buf, unsigned len)
{
	(void)buf;
	(void)len;
	return i < DRV_H2_RST_CODES - 1 ? nghttp2_http2_strerror(i) : "other";
}

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}


int drv_report_json_h2(json_t *o, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	json_t *h;
	int bad = 0;

	if (!drv_config_h2(cfg))
		return 0;
	h = json_object();
	if (!h)
		return -1;
	bad |= json_object_set_new(h, "streams", u64(cfg->streams));
	bad |= json_object_set_new(h, "server_max_streams", t->h2_max_streams_set
								     ? u64(t->h2_max_streams)
								     : json_null());
	bad |= json_object_set_new(h, "settings_received", u64(t->h2_settings));
	bad |= json_object_set_new(h, "peak_streams", u64(t->h2_peak_streams));
	bad |= json_object_set_new(h, "rst_stream",
				   ll_json_counts(t->h2_rst, DRV_H2_RST_CODES, rst_name));
	bad |= json_object_set_new(h, "goaway", u64(t->h2_goaway));
	bad |= json_object_set_new(h, "goaway_refused", u64(t->errors[DRV_ERR_H2_GOAWAY]));
	bad |= json_object_set_new(h, "goaway_retried", u64(t->h2_goaway_retried));
	bad |= json_object_set_new(h, "flow_control_stalls", u64(t->h2_flow_stalls));
	bad |= json_object_set_new(o, "h2", h);
	if (ll_scheme_is_grpc(cfg->url.scheme))
		bad |= json_object_set_new(o, "grpc_status",
					   ll_json_counts(t->grpc_status, LL_GRPC_OTHER + 1,
							  ll_grpc_status_key));
	return bad ? -1 : 0;
}

static uint64_t get(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v)
							       : 0;
}

void drv_merge_h2(struct drv_stats *t, const json_t *doc)
{
	const json_t *h = json_object_get(doc, "h2"), *g = json_object_get(doc, "grpc_status");
	struct drv_stats one;
	unsigned i;

	if (!h && !g)
		return;
	memset(&one, 0, sizeof(one));
	for (i = 0; i < DRV_H2_RST_CODES; i++)
		one.h2_rst[i] = get(json_object_get(h, "rst_stream"), rst_name(i, NULL, 0));
	for (i = 0; i <= LL_GRPC_OTHER; i++)
		one.grpc_status[i] = get(g, ll_grpc_status_name(i));
	one.h2_goaway = get(h, "goaway");
	one.h2_goaway_retried = get(h, "goaway_retried");
	one.h2_flow_stalls = get(h, "flow_control_stalls");
	one.h2_settings = get(h, "settings_received");
	one.h2_peak_streams = get(h, "peak_streams");
	if (json_is_integer(json_object_get(h, "server_max_streams"))) {
		one.h2_max_streams = get(h, "server_max_streams");
		one.h2_max_streams_set = 1;
	}
	drv_stats_merge_h2(t, &one);
}

void drv_report_h2(FILE *f, const struct drv_config *cfg, const struct drv_stats *t)
{
	if (!drv_config_h2(cfg))
		return;
	fprintf(f, "  %-12s --streams %llu, at most %llu in flight on one connection; server max ",
		"http/2", (unsigned long long)cfg->streams, (unsigned long long)t->h2_peak_streams);
	if (t->h2_max_streams_set)
		fprintf(f, "%llu", (unsigned long long)t->h2_max_streams);
	else
		fprintf(f, t->h2_settings ? "unlimited" : "unknown (no SETTINGS came)");
	fprintf(f, "\n  %-12s GOAWAY %llu (streams refused and sent again %llu; refused twice %llu), "
		   "flow-control stalls %llu, RST_STREAM",
		"", (unsigned long long)t->h2_goaway, (unsigned long long)t->h2_goaway_retried,
		(unsigned long long)t->errors[DRV_ERR_H2_GOAWAY],
		(unsigned long long)t->h2_flow_stalls);
	drv_report_counts(f, t->h2_rst, DRV_H2_RST_CODES, rst_name);
	if (ll_scheme_is_grpc(cfg->url.scheme)) {
		fprintf(f, "  %-12s", "grpc status");
		drv_report_counts(f, t->grpc_status, LL_GRPC_OTHER + 1, ll_grpc_status_key);
	}
}

void drv_report_h2_hints(FILE *f, const struct drv_config *cfg, const struct drv_stats *t)
{
	unsigned i;

	if (!drv_config_h2(cfg))
		return;
	for (i = 1; i <= LL_GRPC_OTHER; i++)
		if (t->grpc_status[i])
			fprintf(f, "hint: grpc %s: %llu calls: %s\n", ll_grpc_status_name(i),
				(unsigned long long)t->grpc_status[i], ll_grpc_status_hint(i));
	if (t->h2_flow_stalls)
		fprintf(f, "hint: h2 flow control: %llu request bodies waited for the server's "
			   "WINDOW_UPDATE: its receive window (SETTINGS_INITIAL_WINDOW_SIZE, "
			   "connection window) is smaller than what is in flight; raise it on the "
			   "server, or send fewer --streams\n",
			(unsigned long long)t->h2_flow_stalls);
	if (t->h2_goaway && !t->errors[DRV_ERR_H2_GOAWAY])
		fprintf(f, "hint: h2 goaway: %llu GOAWAY frames: the server closes connections "
			   "after a number of streams (nginx keepalive_requests); the driver "
			   "reopened them and sent the %llu streams they refused again (RFC 9113 "
			   "8.7: not processed, safe to retry), their latency from the first send; "
			   "the connect latency counts the reconnections\n",
			(unsigned long long)t->h2_goaway, (unsigned long long)t->h2_goaway_retried);
}
