/* SPDX-License-Identifier: MIT */
/*
 * An engine in its own folder (udp/): the scheme whose targets it drives and its hooks into each
 * layer, filled by its folder (udp/udp_app.c) and registered once at the top (apps.c). The
 * layers below it call these and never name it: config/ takes its options and checks through
 * this table, results/ its summary lines, protocols/ its slots (drv_proto_for()). Unlike an
 * application protocol (app.h), an engine is the run's by its target's scheme alone. A hook it
 * has no use for is NULL.
 */
#ifndef LOADLENS_DRV_ENGINE_H
#define LOADLENS_DRV_ENGINE_H

#include <stddef.h>
#include <stdio.h>
#include "loadlens/parse.h"

#define DRV_ENGINES_MAX 4

struct drv_config;
struct drv_proto;
struct drv_stats;

struct drv_engine {
	const char *name;      /* what parse.c names it by, for its options ("udp") */
	enum ll_scheme scheme; /* the targets it drives */
	/* One of its options (name without dashes: "id", "rcvbuf"): 0 or -EINVAL. */
	int (*opt)(struct drv_config *cfg, const char *name, const char *v, char *err,
		   size_t errlen);
	/* After the command line, whatever the target (its options given elsewhere are refused):
	 * 0 or -EINVAL with one line in err. */
	int (*check)(const struct drv_config *cfg, char *err, size_t errlen);
	/* Its lines of the summary, when the run is its. */
	void (*text)(FILE *f, const struct drv_config *cfg, const struct drv_stats *t);
	const struct drv_proto *proto; /* its slots (scheduling/protocol.h) */
};

/* Once, before a command line is parsed (apps.c); an engine given again is kept once. */
void drv_engine_register(const struct drv_engine *e);
/* The registered engine that drives scheme's targets, or NULL. */
const struct drv_engine *drv_engine_for(enum ll_scheme scheme);
/* One of the options of the engine named group (parse.c's "udp" for --id): 0 or -EINVAL. */
int drv__config_engine_opt(struct drv_config *cfg, const char *group, const char *name,
			   const char *v, char *err, size_t errlen);
/* Each engine's check, in order: 0 or -EINVAL. */
int drv__config_engine_check(const struct drv_config *cfg, char *err, size_t errlen);

#endif /* LOADLENS_DRV_ENGINE_H */
