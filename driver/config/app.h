/* SPDX-License-Identifier: MIT */
/*
 * An application protocol over one of the engines (LDAP over the TCP slots, gRPC over HTTP/2;
 * redis, memcached and DNS: a framing, and some their counts or records): its hooks into each
 * layer, filled by its own folder (ldap/ldap_app.c, grpc/grpc_app.c, redis/, memcache/, dns/) and
 * registered once at the top (apps.c). The layers below it call these and never name the
 * protocol: config/ takes its target, options, checks and --requests-file records (redis's
 * command lines, DNS's queries, gRPC's messages) through this table; framing/, results/ and
 * protocols/ reach theirs through the tables it points to (framing/frame_ext.h,
 * results/report_ext.h, protocols/tcp_ext.h, h2/h2_ext.h). A hook or table a protocol has no use
 * for is NULL. A run has at most one on (drv_config_app).
 */
#ifndef LOADLENS_DRV_APP_H
#define LOADLENS_DRV_APP_H

#include <stdbool.h>
#include <stddef.h>

#define DRV_APPS_MAX 8

struct drv_config;
struct drv_frame_ext;
struct drv_report_ext;
struct drv_tcp_ext;
struct drv_h2_ext;

struct drv_app {
	const char *name;  /* its options' group (options.def), and its key in the JSON */
	const char *proto; /* --proto NAME, when a run is chosen so (the plan's "proto"), else NULL */
	/* A target of the protocol's own scheme: 1 (taken: cfg->url is the engine's), 0 (not
	 * one), or -EINVAL with one line in err. */
	int (*url)(struct drv_config *cfg, const char *s, char *err, size_t errlen);
	/* One of its options (name without dashes: "proto", "base", ...): 0 or -EINVAL. */
	int (*opt)(struct drv_config *cfg, const char *name, const char *v, char *err,
		   size_t errlen);
	/* After the command line: what its options go with. 0 or -EINVAL with one line in err. */
	int (*check)(struct drv_config *cfg, bool resp_given, char *err, size_t errlen);
	/* ...and what needs the request records (--requests-file) read first. */
	int (*check_late)(struct drv_config *cfg, char *err, size_t errlen);
	void (*free)(struct drv_config *cfg);
	/* A --requests-file record line (after its weight) of the run's, in the protocol's own
	 * spelling: its template source into *src (malloc'd, *n bytes) and 1; 0 (not the run's:
	 * the line is untouched); or -EINVAL with one line in err (config/reqmix.h). */
	int (*record)(const struct drv_config *cfg, char *line, char **src, size_t *n, char *err,
		      size_t errlen);
	/* The run is this protocol's (NULL: never one's own; its framing is reached by its response
	 * rule, framing/frame_ext.h: redis, memcached, DNS). */
	bool (*on)(const struct drv_config *cfg);
	bool (*tls)(const struct drv_config *cfg); /* ...and goes over TLS */
	const struct drv_frame_ext *frame;   /* where its replies end (framing/frame_ext.h) */
	const struct drv_report_ext *report; /* its counts in the summary and the JSON */
	const struct drv_tcp_ext *tcp;	     /* its steps on the TCP slots */
	const struct drv_h2_ext *h2;	     /* its messages and replies over HTTP/2 */
};

/* Once, before a command line is parsed (apps.c); a protocol given again is kept once. */
void drv_app_register(const struct drv_app *a);
/* x into list (*n of max), once: the registries of app.c and engine.c. */
void drv__config_list_add(const void **list, unsigned *n, unsigned max, const void *x);
/* The registered protocols, in their order: i from 0 while it returns one. */
const struct drv_app *drv_app_at(unsigned i);
/* The registered protocol named name, or NULL. */
const struct drv_app *drv_app_named(const char *name);
/* The protocol the run is (its on() says so), or NULL. */
const struct drv_app *drv_config_app(const struct drv_config *cfg);
/* The run is a protocol's over TLS (ldaps://, --starttls). */
bool drv_config_app_tls(const struct drv_config *cfg);
/* One of the options of the protocol named app (config/options.def's group): 0 or -EINVAL. */
int drv__config_app_opt(struct drv_config *cfg, const char *app, const char *name, const char *v,
			char *err, size_t errlen);
/* A target of a protocol's own scheme: 1 taken, 0 none's, -EINVAL. */
int drv__config_app_url(struct drv_config *cfg, const char *s, char *err, size_t errlen);
/* Each protocol's check, its late check, then each one's free. */
int drv__config_app_check(struct drv_config *cfg, bool resp_given, char *err, size_t errlen);
int drv__config_app_check_late(struct drv_config *cfg, char *err, size_t errlen);
void drv__config_app_free(struct drv_config *cfg);
/* A record line made by the first protocol whose record hook takes it: 1, 0 none's, -EINVAL. */
int drv__config_app_record(const struct drv_config *cfg, char *line, char **src, size_t *n,
			   char *err, size_t errlen);

#endif /* LOADLENS_DRV_APP_H */
