/* SPDX-License-Identifier: MIT */
/*
 * --metrics ADDR:PORT: a small HTTP/1.1 responder in the observer's own loop (no thread): a
 * nonblocking listening socket and up to OBS_MXHTTP_CLIENTS keep-alive connections, requests
 * parsed with http_parser, GET /metrics answered from observer/features/metrics_src.c in the
 * Prometheus text format, or OpenMetrics when Accept names application/openmetrics-text. The
 * loop waits on it and on SIGINT/SIGTERM (a signalfd) together.
 */
#ifndef LOADLENS_OBSERVER_METRICS_HTTP_H
#define LOADLENS_OBSERVER_METRICS_HTTP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define OBS_MXHTTP_CLIENTS 16	   /* connections open at once; more are refused and counted */
#define OBS_MXHTTP_IDLE_S 300	   /* an idle connection is closed after this long */
#define OBS_MXHTTP_REQUEST_MAX 8192 /* bytes of one request, headers included */

struct obs_mxhttp;
struct obs_mx_src;

/* "PORT", "ADDR:PORT" or "[ADDR6]:PORT" (ADDR numeric or a host name); no address means
 * 127.0.0.1. Fills ss/len and says whether it is a loopback address. 0, or -EINVAL with why in
 * err. */
int obs_mxhttp_parse(const char *spec, struct sockaddr_storage *ss, socklen_t *len,
		     bool *loopback, char *err, size_t errlen);
/* Bind and listen (at start, before privileges go). NULL and errno, one line printed. */
struct obs_mxhttp *obs_mxhttp_new(const char *prog, const char *spec);
void obs_mxhttp_free(struct obs_mxhttp *h);
/* What scrapes read; until it is set, /metrics answers 503. */
void obs_mxhttp_set_src(struct obs_mxhttp *h, struct obs_mx_src *src);
/* "127.0.0.1:9435", the address bound. */
const char *obs_mxhttp_addr(const struct obs_mxhttp *h);
/* Serve until a signal of set arrives (true) or the monotonic time until in ns passes (false;
 * 0: no end). */
bool obs_mxhttp_wait(struct obs_mxhttp *h, const sigset_t *set, uint64_t until);

#endif /* LOADLENS_OBSERVER_METRICS_HTTP_H */
