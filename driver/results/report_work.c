// SPDX-License-Identifier: MIT
/* The real-workload parts of the summary and the JSON: a protocol's (report_ext.h: DNS RCODEs,
 * LDAP), pipelining, request mixes. */
#include <stdio.h>
#include "config/app.h"
#include "config/config.h"
#include "results/report.h"
#include "results/report_ext.h"
#include "results/result.h"
#include "results/stats.h"

int drv_report_json_work(json_t *o, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_app *a;
	unsigned i;
	int bad = 0;

	for (i = 0; (a = drv_app_at(i)); i++)
		if (a->report && a->report->json) /* "dns_rcode", "ldap": null without it */
			bad |= json_object_set_new(o, a->report->key ? a->report->key : a->name,
						   a->report->json(cfg, &res->total));
	bad |= json_object_set_new(o, "pipeline", json_integer((json_int_t)cfg->pipeline));
	bad |= drv_report_json_mix(o, cfg, res);
	return bad ? -1 : 0;
}

void drv_report_work(FILE *f, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	const struct drv_app *a;
	unsigned i;

	for (i = 0; (a = drv_app_at(i)); i++)
		if (a->report && a->report->text) /* a protocol's lines (report_ext.h) */
			a->report->text(f, cfg, t);
	if (cfg->pipeline > 1)
		fprintf(f, "  %-12s %llu requests in flight per connection\n", "pipeline",
			(unsigned long long)cfg->pipeline);
	drv_report_mix(f, cfg, res);
}
