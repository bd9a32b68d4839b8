/* SPDX-License-Identifier: MIT */
/*
 * An engine in its own folder (udp/, h2/, http/): which runs are its and its hooks into each
 * layer, filled by its folder (udp/udp_app.c, h2/h2_app.c, http/http_app.c) and registered once
 * at the top (apps.c).
 * The layers below it call these and never name it: config/ takes its options and checks
 * through this table, results/ its summary lines, hints, JSON and merge, protocols/ its slots
 * (drv_proto_for()). Unlike an application protocol (app.h), which rides on an engine, an engine
 * is the run's by its target and engine options alone. A hook it has no use for is NULL.
 */
#ifndef LOADLENS_DRV_ENGINE_H
#define LOADLENS_DRV_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define DRV_ENGINES_MAX 4

struct drv__seen;
struct drv_config;
struct drv_proto;
struct drv_result;
struct drv_stats;
struct json_t;

struct drv_engine {
	const char *name; /* what parse.c names it by, for its options ("udp") */
	/* The run is this engine's (udp://; --http2 on the native engine, grpc://; https://,
	 * --http-engine curl). */
	bool (*on)(const struct drv_config *cfg);
	/* One of its options (name without dashes: "id", "rcvbuf"): 0 or -EINVAL. */
	int (*opt)(struct drv_config *cfg, const char *name, const char *v, char *err,
		   size_t errlen);
	/* After the command line, whatever the target (its options given elsewhere are refused):
	 * 0 or -EINVAL with one line in err; check before the request records' checks, check_last
	 * at the parse's end (seen: what the command line gave). */
	int (*check)(const struct drv_config *cfg, char *err, size_t errlen);
	int (*check_last)(struct drv_config *cfg, const struct drv__seen *seen, char *err,
			  size_t errlen);
	/* The run's own checks, when it is its: for http:// and https:// once the HTTP checks have
	 * chosen the engine, before the method's (config_http.c): 0 or -EINVAL with one line. */
	int (*check_run)(const struct drv_config *cfg, char *err, size_t errlen);
	/* Its lines of the summary, and its hints after them, when the run is its. */
	void (*text)(FILE *f, const struct drv_config *cfg, const struct drv_stats *t);
	void (*hints)(FILE *f, const struct drv_config *cfg, const struct drv_stats *t);
	/* Its keys in the result document o, when the run is its: 0, or -1 out of memory. */
	int (*json)(struct json_t *o, const struct drv_config *cfg, const struct drv_result *res);
	/* Its keys of a result document added back into t (merge.c), whatever the run. */
	void (*merge)(struct drv_stats *t, const struct json_t *doc);
	const struct drv_proto *proto; /* its slots (scheduling/protocol.h) */
};

/* Once, before a command line is parsed (apps.c); an engine given again is kept once. */
void drv_engine_register(const struct drv_engine *e);
/* The registered engines, in their order: i from 0 while it returns one. */
const struct drv_engine *drv_engine_at(unsigned i);
/* The registered engine the run is (its on() says so), or NULL. */
const struct drv_engine *drv_config_engine(const struct drv_config *cfg);
/* One of the options of the engine named group (parse.c's "udp" for --id): 0 or -EINVAL. */
int drv__config_engine_opt(struct drv_config *cfg, const char *group, const char *name,
			   const char *v, char *err, size_t errlen);
/* Each engine's check (check_last), in order: 0 or -EINVAL. */
int drv__config_engine_check(const struct drv_config *cfg, char *err, size_t errlen);
int drv__config_engine_check_last(struct drv_config *cfg, const struct drv__seen *seen,
				  char *err, size_t errlen);
/* The check_run of the engine the run is, if it has one: 0 or -EINVAL. */
int drv__config_engine_check_run(const struct drv_config *cfg, char *err, size_t errlen);

#endif /* LOADLENS_DRV_ENGINE_H */
