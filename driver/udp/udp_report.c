// SPDX-License-Identifier: MIT
/* The udp part of the summary: what became of every reply, and what to do about it. */
#include <stdio.h>
#include "loadlens/cli.h"
#include "config/config.h"
#include "results/stats.h"
#include "udp/udp_report.h"

void drv_report_udp(FILE *f, const struct drv_config *cfg, const struct drv_stats *t)
{
	const struct {
		uint64_t n;
		const char *name, *text; /* "hint: NAME: N TEXT" */
	} hints[] = {
		{t->late, "late", "replies came after --timeout, for requests counted lost: the "
				  "server is slower than the timeout; a longer --timeout counts them "
				  "as answers"},
		{t->duplicate, "duplicate", "requests were answered more than once: the server or "
					    "a retransmitting middlebox sends twice; only the first "
					    "counts"},
		{t->unmatched, "unmatched", "datagrams matched no request sent (junk, another "
					    "sender, or too old to remember); without an id "
					    "(--payload with no --id) replies are matched by order"},
		{t->rxq_ovfl, "dropped", "datagrams were dropped by the driver's own sockets "
					 "(receive buffer full): raise --rcvbuf (capped by "
					 "net.core.rmem_max) or add -t threads"},
	};
	char b1[32], b2[32];
	size_t i;

	fprintf(f, "  %-12s %llu lost, %llu late, %llu duplicate, %llu unmatched replies; %llu "
		   "dropped by the driver's receive buffers\n",
		"udp", (unsigned long long)t->errors[DRV_ERR_LOST], (unsigned long long)t->late,
		(unsigned long long)t->duplicate, (unsigned long long)t->unmatched,
		(unsigned long long)t->rxq_ovfl);
	if (ll_hist_count(t->late_latency))
		fprintf(f, "  %-12s p50 %s  max %s  (from the intended send; not in latency)\n",
			"late replies",
			ll_fmt_ns((double)ll_hist_percentile(t->late_latency, 50), b1, sizeof(b1)),
			ll_fmt_ns((double)ll_hist_max(t->late_latency), b2, sizeof(b2)));
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (hints[i].n)
			fprintf(f, "hint: %s: %llu %s\n", hints[i].name,
				(unsigned long long)hints[i].n, hints[i].text);
	if (cfg->rcvbuf && t->rcvbuf && t->rcvbuf < cfg->rcvbuf)
		fprintf(f, "hint: rcvbuf: --rcvbuf %llu asked, the kernel gave %llu bytes: "
			   "net.core.rmem_max caps it (sysctl -w net.core.rmem_max=%llu)\n",
			(unsigned long long)cfg->rcvbuf, (unsigned long long)t->rcvbuf,
			(unsigned long long)cfg->rcvbuf);
}
