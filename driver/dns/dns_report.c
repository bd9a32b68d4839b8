// SPDX-License-Identifier: MIT
/*
 * --response dns in the summary ("dns rcode", counts by RCODE) and the JSON ("dns_rcode", null
 * for another rule). Not read back by merge: a merged result's dns_rcode is null.
 */
#include <stdio.h>
#include "config/config.h"
#include "dns/dns_frame.h"
#include "dns/dns_report.h"
#include "results/report.h"
#include "results/stats.h"

static const char *rcode_name(unsigned rcode, char *buf, unsigned len)
{
	(void)buf;
	(void)len;
	return drv_dns_rcode_name(rcode);
}

static json_t *json(const struct drv_config *cfg, const struct drv_stats *t)
{
	return cfg->resp_rule == DRV_RESP_DNS ? ll_json_counts(t->dns_rcode, 16, rcode_name)
					      : json_null();
}

static void text(FILE *f, const struct drv_config *cfg, const struct drv_stats *t)
{
	if (cfg->resp_rule != DRV_RESP_DNS)
		return;
	fprintf(f, "  %-12s", "dns rcode");
	drv_report_counts(f, t->dns_rcode, 16, rcode_name);
}

const struct drv_report_ext drv_dns_report = {
	.key = "dns_rcode", .json = json, .text = text,
};
