/* SPDX-License-Identifier: MIT */
/* Everything the driver prints: banner, interval lines, summary with hints, and the JSON. */
#ifndef LOADLENS_DRV_REPORT_H
#define LOADLENS_DRV_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "loadlens/json_counts.h"
#include "loadlens/ll_hist.h"

struct drv_config;
struct drv_result;
struct drv_stats;

void drv_report_banner(FILE *f, const struct drv_config *cfg);
/* One interval: h holds its latencies (from the intended send time). */
void drv_report_live(FILE *f, uint64_t elapsed_ns, uint64_t iv_ns, const struct ll_hist *h,
		     uint64_t errors, uint64_t connections, bool warm);
void drv_report_summary(FILE *f, const struct drv_config *cfg, const struct drv_result *res);

double drv_report_throughput(const struct drv_result *res);
double drv_report_cpu_per_request_us(const struct drv_result *res);
/* The busiest worker thread's CPU time over the run's duration (1.0 = a whole core). */
double drv_report_busiest_thread(const struct drv_result *res);
/* The same, less the pacer's waiting (spinning or polling for its next send with nothing to do). */
double drv_report_busiest_work(const struct drv_result *res);
#define DRV_BOTTLENECK_MIN_NS 100000000ULL /* runs shorter than 100 ms get no warning */
#define DRV_BOTTLENECK_MIN_REQUESTS 1000   /* nor runs of fewer requests */
/* A one-line warning when the generator limited the run, else NULL. */
const char *drv_report_bottleneck(const struct drv_config *cfg, const struct drv_result *res,
				  char *buf, size_t len);

/* report_counts.c: " NAME: N, NAME: N" of the nonzero counts of c[0..n) (" none" if none) and a
 * newline, the summary's form of ll_json_counts() (loadlens/json_counts.h). */
void drv_report_counts(FILE *f, const uint64_t *c, unsigned n, ll_code_name_fn *name);



/* report_json.c: the result document (schema in docs/driver.md); NULL on allocation failure. */
json_t *drv_report_json(const struct drv_config *cfg, const struct drv_result *res);
/* Write drv_report_json() to fd and close it: 0 or a negative errno. */
int drv_report_json_write_fd(int fd, const struct drv_config *cfg, const struct drv_result *res);

/* report_work.c: DNS RCODEs, -P, request mixes; into the JSON document o (0 or -1). */
int drv_report_json_work(json_t *o, const struct drv_config *cfg, const struct drv_result *res);
void drv_report_work(FILE *f, const struct drv_config *cfg, const struct drv_result *res);
/* reqmix.c: per-record counts and latencies (JSON "records"), the top-N table. */
int drv_report_json_mix(json_t *o, const struct drv_config *cfg, const struct drv_result *res);
void drv_report_mix(FILE *f, const struct drv_config *cfg, const struct drv_result *res);

#endif /* LOADLENS_DRV_REPORT_H */
