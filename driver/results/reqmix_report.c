// SPDX-License-Identifier: MIT
/* --requests-file in the results: the JSON "records" array and the summary's top-N table. */
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "loadlens/hist_json.h"
#include "config/config.h"
#include "config/reqmix.h"
#include "results/report.h"
#include "results/result.h"

#define DRV_MIX_TOP 10

int drv_report_json_mix(json_t *o, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	const struct drv_reqmix *m = cfg->mix;
	json_t *a, *r;
	uint32_t i;

	if (!m || !t->rec)
		return json_object_set_new(o, "records", json_null());
	a = json_array();
	if (!a)
		return -1;
	for (i = 0; i < m->n && i < t->nrec; i++) {
		r = json_pack("{s:I,s:s,s:I,s:I,s:I,s:o}", "index", (json_int_t)i + 1, "record",
			      m->rec[i].label, "weight", (json_int_t)m->rec[i].weight, "requests",
			      (json_int_t)t->rec[i].requests, "errors",
			      (json_int_t)t->rec[i].errors, "latency",
			      ll_hist_to_json(t->rec[i].latency));
		if (!r || json_array_append_new(a, r)) {
			json_decref(a);
			return -1;
		}
	}
	return json_object_set_new(o, "records", a);
}

static const struct drv_stats *sort_stats;

static int by_attempts(const void *a, const void *b)
{
	const struct drv_rec_stats *r = sort_stats->rec;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = r[i].requests + r[i].errors, y = r[j].requests + r[j].errors;

	return x < y ? 1 : x > y ? -1 : (i > j) - (i < j);
}

void drv_report_mix(FILE *f, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	const struct drv_reqmix *m = cfg->mix;
	uint64_t all = t->requests + t->errors_total, n;
	uint32_t *idx, i, k;
	char b1[32], b2[32];

	if (!m || !t->rec || !t->nrec)
		return;
	idx = malloc(t->nrec * sizeof(*idx));
	if (!idx)
		return;
	for (i = 0; i < t->nrec; i++)
		idx[i] = i;
	sort_stats = t;
	qsort(idx, t->nrec, sizeof(*idx), by_attempts);
	fprintf(f, "  %-12s %u (%s), top %u by count:\n", "records", m->n,
		m->weighted ? "weighted random" : "round-robin",
		m->n < DRV_MIX_TOP ? m->n : DRV_MIX_TOP);
	fprintf(f, "    %4s %7s %10s %8s %9s %9s  %s\n", "#", "share", "ok", "errors", "p50",
		"p99", "record");
	for (k = 0; k < t->nrec && k < DRV_MIX_TOP; k++) {
		const struct drv_rec_stats *r = &t->rec[idx[k]];

		i = idx[k];
		n = r->requests + r->errors;
		fprintf(f, "    %4u %6.2f%% %10llu %8llu %9s %9s  %.48s%s\n", i + 1,
			all ? (double)n * 100 / (double)all : 0.0, (unsigned long long)r->requests,
			(unsigned long long)r->errors,
			ll_fmt_ns((double)ll_hist_percentile(r->latency, 50), b1, sizeof(b1)),
			ll_fmt_ns((double)ll_hist_percentile(r->latency, 99), b2, sizeof(b2)),
			m->rec[i].label, strlen(m->rec[i].label) > 48 ? "..." : "");
	}
	free(idx);
}
