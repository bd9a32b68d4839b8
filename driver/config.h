/* SPDX-License-Identifier: MIT */
/* The driver's run configuration and its command-line parser. */
#ifndef LOADLENS_DRV_CONFIG_H
#define LOADLENS_DRV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/socket.h>
#include "loadlens/parse.h"

#define DRV_MAX_CONNECTIONS 1000000ULL
#define DRV_MAX_THREADS 256ULL
#define DRV_MAX_REQUESTS 1000000000000ULL
#define DRV_MAX_SIZE (16ULL << 20)
#define DRV_DEFAULT_SIZE 64
#define DRV_DEFAULT_TIMEOUT_NS 5000000000ULL
#define DRV_DEFAULT_INTERVAL_NS 1000000000ULL

/* How a connection slot uses connections. */
enum drv_conn_model {
	DRV_CONN_KEEPALIVE = 0, /* one connection for the whole run (reopened after an error) */
	DRV_CONN_NEW,		/* a new connection per request; the driver closes first */
	DRV_CONN_RECONNECT,	/* a new connection every reconnect_every requests */
};

struct drv_config {
	const char *url_text;
	struct ll_url url;
	struct sockaddr_storage addr;
	socklen_t addrlen;

	uint64_t connections;	  /* -c: closed-loop connection slots in total */
	uint64_t threads;	  /* -t: worker threads, each with its own loop */
	uint64_t requests;	  /* -n: total request attempts; 0 = bounded by duration only */
	uint64_t duration_ns;	  /* -d: 0 = bounded by requests only */
	enum drv_conn_model conn_model;
	uint64_t reconnect_every; /* requests per connection; 0 = unlimited (keep-alive) */
	uint64_t size;		  /* --size: request payload bytes */
	uint64_t timeout_ns;	  /* --timeout: connect and request timeout */
	uint64_t interval_ns;	  /* --interval: live line period; 0 = off */
	const char *json_path;	  /* --json FILE, or NULL */
	bool quiet;		  /* -q: no banner, no live line */

	bool help;    /* --help was given: print drv_config_usage() and exit 0 */
	bool version; /* --version was given */
};

void drv_config_init(struct drv_config *cfg);
/*
 * Parse argv (argv[0] is the program name) into cfg, resolving the target address.
 * Returns 0, or -EINVAL with a one-line message (no newline) in err. Never prints or exits, so
 * unit tests can call it repeatedly. argv may be permuted.
 */
int drv_config_parse(struct drv_config *cfg, int argc, char **argv, char *err, size_t errlen);
void drv_config_usage(FILE *f);
const char *drv_conn_model_name(enum drv_conn_model m);

#endif /* LOADLENS_DRV_CONFIG_H */
