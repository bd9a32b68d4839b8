/* SPDX-License-Identifier: MIT */
/* Shared between config.c and config_http.c only: what the command line named, and the checks. */
#ifndef LOADLENS_DRV_CONFIG_INT_H
#define LOADLENS_DRV_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "config.h"

/* Options whose presence (not only their value) decides a check. */
struct drv__seen {
	bool new_conn;	   /* --new-conn */
	bool resp_given;   /* --response */
	bool http_opts;	   /* -m, -H, --body, --body-file, --http-close, --http-engine, --http2 */
	bool engine_given; /* --http-engine */
	bool tls_opts;	   /* -k/--insecure, --cacert */
};

/* Write one line into err (when given) and return -EINVAL. */
int drv__config_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* -H 'Name: value' */
/* A number option in min..max, or one line in err. */
int drv__config_num(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		     char *err, size_t errlen);
/* config_payload.c: a file's contents (at most DRV_MAX_SIZE bytes), --size, --response. */
int drv__config_slurp(const char *opt, const char *path, char **out, size_t *len, char *err,
		       size_t errlen);
int drv__config_size(struct drv_config *cfg, const char *s, char *err, size_t errlen);
int drv__config_response(struct drv_config *cfg, const char *s, char *err, size_t errlen);
int drv__config_header(struct drv_config *cfg, const char *s, char *err, size_t errlen);
/* --cacert FILE: must be readable now, so a typo is a usage error, not N TLS errors. */
int drv__config_cacert(struct drv_config *cfg, const char *path, char *err, size_t errlen);
/*
 * The http:// and https:// checks: options for other schemes, the engine (https and --http2 go
 * through libcurl), TLS and HTTP/2 combinations, the method. 0 or -EINVAL with one line.
 */
int drv__config_check_http(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			   size_t errlen);

/* config_udp.c: --id OFFSET:WIDTH, --rcvbuf BYTES, and their checks once the target is known. */
int drv__config_id(struct drv_config *cfg, const char *s, char *err, size_t errlen);
int drv__config_rcvbuf(struct drv_config *cfg, const char *s, char *err, size_t errlen);
int drv__config_check_udp(const struct drv_config *cfg, char *err, size_t errlen);

/*
 * config_work.c: --proto memcache-udp, --hdr-log, --requests-file, --seed, -P/--pipeline (name is
 * the option without dashes), and their checks once the target is known (before the udp ones:
 * memcache-udp sets the --id of its frame header).
 */
int drv__config_work_opt(struct drv_config *cfg, const char *name, const char *v, char *err,
			 size_t errlen);
int drv__config_work_check(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			   size_t errlen);

#endif /* LOADLENS_DRV_CONFIG_INT_H */
