/* SPDX-License-Identifier: MIT */
/*
 * --metrics ADDR:PORT: a small HTTP/1.1 responder in the observer's own loop (no thread): a
 * nonblocking listening socket and up to OBS_MXHTTP_CLIENTS keep-alive connections, requests
 * parsed with http_parser, GET /metrics answered from observer/metrics/metrics_src.c in the
 * Prometheus text format, or OpenMetrics when Accept names application/openmetrics-text. The
 * loop waits on it and on SIGINT/SIGTERM (a signalfd) together.
 *
 * Bounded against any local client: at most OBS_MXHTTP_CLIENTS connections (a new one past it
 * takes the place of the connection that has waited longest without a response in flight, so a
 * scrape is served while others hold connections open); per connection, at most
 * OBS_MXHTTP_REQUEST_MAX bytes of unparsed input and one response buffered: pipelined requests
 * wait in the socket, unread, until the response before them is written (a client that does not
 * read stops being read). Deadlines run from the start of a state and no byte moves them: a
 * request must be complete OBS_MXHTTP_HEADER_S after its first byte, a response written within
 * OBS_MXHTTP_WRITE_S, and a connection with no request closes after OBS_MXHTTP_IDLE_S. Each
 * connection closed early (taken over, too slow, too large, malformed) is counted. Each
 * connection gets at most one response per pass of the loop, in turn, and scrapes asked for
 * within OBS_MXHTTP_REUSE_S of one another share one read of the maps: clients that pipeline
 * requests cannot take the observer's CPU from a real scrape.
 */
#ifndef LOADLENS_OBSERVER_METRICS_METRICS_HTTP_H
#define LOADLENS_OBSERVER_METRICS_METRICS_HTTP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define OBS_MXHTTP_CLIENTS 16	     /* connections open at once */
#define OBS_MXHTTP_REQUEST_MAX 8192   /* bytes of one request, headers included: else 431 */
#define OBS_MXHTTP_HEADER_S 5	     /* a request complete within this, from its first byte */
#define OBS_MXHTTP_WRITE_S 10	     /* a response written within this */
#define OBS_MXHTTP_IDLE_S 75	     /* no request: closed (over Prometheus's 1 m default) */
#define OBS_MXHTTP_RESPONSE_MAX (16u << 20) /* a larger scrape answers 500 */
#define OBS_MXHTTP_REUSE_S 0.1 /* a scrape this soon after the last gets the same exposition */

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

#endif /* LOADLENS_OBSERVER_METRICS_METRICS_HTTP_H */
