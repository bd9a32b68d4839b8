/* SPDX-License-Identifier: MIT */
/*
 * --requests-file FILE: a mix of request records, one per line, each with an optional weight,
 * chosen round-robin or (--seed) weighted at random; each record a template (template.h).
 * Records are, by target: http:// a curl-like line `METHOD PATH [-H 'Name: value']... [-d 'BODY']`;
 * a protocol's own line (config/app.h's record hook): with --response resp a redis command line
 * `SET key:{{rand:1-9}} v` encoded as a RESP array (redis/redis_request.h), with --response dns a
 * dnsperf line `NAME TYPE` (dns/dns_request.h), on grpc:// `/package.Service/Method {JSON}`, its
 * message (grpc/grpc_config.h); else tcp:// and udp:// raw bytes with C escapes
 * (\r \n \t \0 \\ \xHH). Each record's count and latency are kept apart (results/stats.h,
 * recorded by scheduling/timing.h).
 */
#ifndef LOADLENS_DRV_REQMIX_H
#define LOADLENS_DRV_REQMIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config/template.h"

#define DRV_MIX_MAX_RECORDS 1024
#define DRV_MIX_MAX_LINE 65536

struct drv_config;

struct drv_rec {
	struct drv_tpl tpl;
	uint64_t weight;
	char *label; /* the line as written, for the report (owned) */
};

struct drv_reqmix {
	struct drv_rec *rec;
	uint32_t n;
	uint64_t *cum; /* cumulative weights */
	uint64_t total_weight;
	size_t max_len; /* the longest expanded record */
	bool weighted;	/* --seed: weighted random, else round-robin (weights repeat a record) */
};

/* Per thread: which record comes next, and the templates' state. */
struct drv_mix_ctx {
	struct drv_tpl_ctx tc;
	uint64_t rr;
};

/* A record line's next word, 'quoted' or bare, ended in place; *p advances past it. NULL at the
 * line's end (or an unclosed quote). */
char *drv_reqmix_token(char **p);
/* The expanded length of a template source (its fields at their widths), or -1 with one line in
 * err. */
long drv_reqmix_tpl_len(const char *s, size_t n, char *err, size_t errlen);
/* Read cfg->requests_path into cfg->mix for the target; 0 or -EINVAL with one line in err. */
int drv_reqmix_load(struct drv_config *cfg, char *err, size_t errlen);
void drv_reqmix_free(struct drv_reqmix *m);
/* Per thread: seeded from --seed (or a fixed seed) and the worker id. */
void drv_mix_ctx_init(struct drv_mix_ctx *c, const struct drv_config *cfg, uint32_t worker,
		      uint32_t nworkers);
/* The next record's index, and its bytes into out (at least m->max_len bytes); returns length. */
size_t drv_reqmix_next(const struct drv_reqmix *m, struct drv_mix_ctx *c, char *out,
		       uint32_t *rec);

#endif /* LOADLENS_DRV_REQMIX_H */
