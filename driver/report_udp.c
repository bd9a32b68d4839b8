// SPDX-License-Identifier: MIT
/* The udp part of the summary: what became of every reply, and what to do about it. */
#include <stdio.h>
#include "loadlens/cli.h"
#include "config.h"
#include "report.h"
#include "stats.h"

void drv_report_udp(FILE *f, const struct drv_config *cfg, const struct drv_stats *t)
{
	char b[32];

	fprintf(f, "  %-12s %llu lost, %llu late, %llu duplicate, %llu unmatched replies; %llu "
		   "dropped by the driver's receive buffers\n",
		"udp", (unsigned long long)t->errors[DRV_ERR_LOST], (unsigned long long)t->late,
		(unsigned long long)t->duplicate, (unsigned long long)t->unmatched,
		(unsigned long long)t->rxq_ovfl);
	if (ll_hist_count(t->late_latency))
		fprintf(f, "  %-12s p50 %s", "late replies",
			ll_fmt_ns((double)ll_hist_percentile(t->late_latency, 50), b, sizeof(b)));
	if (ll_hist_count(t->late_latency))
		fprintf(f, "  max %s  (from the intended send; not in latency)\n",
			ll_fmt_ns((double)ll_hist_max(t->late_latency), b, sizeof(b)));
	if (t->late)
		fprintf(f, "hint: late: %llu replies came after --timeout, for requests counted lost: "
			   "the server is slower than the timeout; a longer --timeout counts them as "
			   "answers\n",
			(unsigned long long)t->late);
	if (t->duplicate)
		fprintf(f, "hint: duplicate: %llu requests were answered more than once: the server "
			   "or a retransmitting middlebox sends twice; only the first counts\n",
			(unsigned long long)t->duplicate);
	if (t->unmatched)
		fprintf(f, "hint: unmatched: %llu datagrams matched no request sent (junk, another "
			   "sender, or too old to remember); without an id (--payload with no --id) "
			   "replies are matched by order\n",
			(unsigned long long)t->unmatched);
	if (t->rxq_ovfl)
		fprintf(f, "hint: dropped: the driver's own sockets dropped %llu datagrams (receive "
			   "buffer full): raise --rcvbuf (capped by net.core.rmem_max) or add -t "
			   "threads\n",
			(unsigned long long)t->rxq_ovfl);
	if (cfg->rcvbuf && t->rcvbuf && t->rcvbuf < cfg->rcvbuf)
		fprintf(f, "hint: rcvbuf: --rcvbuf %llu asked, the kernel gave %llu bytes: "
			   "net.core.rmem_max caps it (sysctl -w net.core.rmem_max=%llu)\n",
			(unsigned long long)cfg->rcvbuf, (unsigned long long)t->rcvbuf,
			(unsigned long long)cfg->rcvbuf);
}
