// SPDX-License-Identifier: MIT
/* The real-workload parts of the summary and the JSON: DNS RCODEs, a protocol's (report_ext.h),
 * pipelining, request mixes. */
#include <stdio.h>
#include "config/app.h"
#include "config/config.h"
#include "framing/frame_dns.h"
#include "results/report.h"
#include "results/report_ext.h"
#include "results/result.h"
#include "results/stats.h"

static const char *rcode_name(unsigned rcode, char *buf, unsigned len)
{
	(void)buf;
	(void)len;
	return drv_dns_rcode_name(rcode);
}

static json_t *rcodes(const struct drv_stats *t)
{
	return ll_json_counts(t->dns_rcode, 16, rcode_name);
}

int drv_report_json_work(json_t *o, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_app *a;
	unsigned i;
	int bad = 0;

	bad |= json_object_set_new(o, "dns_rcode", cfg->resp_rule == DRV_RESP_DNS
							   ? rcodes(&res->total)
							   : json_null());
	for (i = 0; (a = drv_app_at(i)); i++)
		if (a->report) /* "ldap": null without it */
			bad |= json_object_set_new(o, a->name, a->report->json(cfg, &res->total));
	bad |= json_object_set_new(o, "pipeline", json_integer((json_int_t)cfg->pipeline));
	bad |= drv_report_json_mix(o, cfg, res);
	return bad ? -1 : 0;
}

void drv_report_work(FILE *f, const struct drv_config *cfg, const struct drv_result *res)
{
	const struct drv_stats *t = &res->total;
	const struct drv_app *a;
	unsigned i;

	if (cfg->resp_rule == DRV_RESP_DNS) {
		fprintf(f, "  %-12s", "dns rcode");
		drv_report_counts(f, t->dns_rcode, 16, rcode_name);
	}
	for (i = 0; (a = drv_app_at(i)); i++)
		if (a->report) /* a protocol's lines (report_ext.h) */
			a->report->text(f, cfg, t);
	if (cfg->pipeline > 1)
		fprintf(f, "  %-12s %llu requests in flight per connection\n", "pipeline",
			(unsigned long long)cfg->pipeline);
	drv_report_mix(f, cfg, res);
}
