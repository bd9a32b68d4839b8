/* SPDX-License-Identifier: MIT */
/* What the command line named, and one option's value or error: shared by the config_*.c parsers. */
#ifndef LOADLENS_DRV_CONFIG_OPTION_H
#define LOADLENS_DRV_CONFIG_OPTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Options whose presence (not only their value) decides a check. */
struct drv__seen {
	bool new_conn;	   /* --new-conn */
	bool resp_given;   /* --response */
	bool http_opts;	   /* -m, -H, --body, --body-file, --http-close, --http-engine, --http2 */
	bool http_only;	   /* the same but -H (which grpc:// takes as metadata) */
	bool engine_given; /* --http-engine */
	bool tls_opts;	   /* -k/--insecure, --cacert */
	int body_opt;	   /* getopt's value for the option that gave the body (--body or
			    * --body-file), or 0 */
};

/* Write one line into err (when given) and return -EINVAL. */
int drv__config_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A number option in min..max, or one line in err. */
int drv__config_num(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		     char *err, size_t errlen);

#endif /* LOADLENS_DRV_CONFIG_OPTION_H */
