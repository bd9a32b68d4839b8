// SPDX-License-Identifier: MIT
/* The live lines' response statuses (status_live.h): pure functions of the rules' snapshot. */
#include <stdio.h>
#include "output/status_live.h"

/* "30", "1.2k", "45k", "1.2M" */
static const char *compact(uint64_t v, char *buf, size_t len)
{
	if (v < 1000)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else if (v < 9950)
		snprintf(buf, len, "%.1fk", (double)v / 1e3);
	else if (v < 999500)
		snprintf(buf, len, "%.0fk", (double)v / 1e3);
	else if (v < 9950000)
		snprintf(buf, len, "%.1fM", (double)v / 1e6);
	else
		snprintf(buf, len, "%.0fM", (double)v / 1e6);
	return buf;
}

/* The token "what:n" into buf at *off ("st " before the first), while it fits. */
static void put(char *buf, size_t len, size_t *off, const char *what, uint64_t n)
{
	char num[16];
	int w;

	if (*off >= len)
		return;
	w = snprintf(buf + *off, len - *off, "%s%s:%s", *off ? " " : "st ", what,
		     compact(n, num, sizeof(num)));
	*off += w > 0 ? (size_t)w : 0;
}

void obs_status_compact(char *buf, size_t len, const struct obs_snap_status *st)
{
	static const char *const cls[] = {"other", "1xx", "2xx", "3xx", "4xx", "5xx"};
	uint64_t bad = st->grpc_none;
	size_t off = 0, i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 1; i < 6; i++)
		if (st->cls[i])
			put(buf, len, &off, cls[i], st->cls[i]);
	if (st->cls[0])
		put(buf, len, &off, cls[0], st->cls[0]);
	for (i = 1; i < OBS_SNAP_GRPC; i++)
		bad += st->grpc[i];
	if (bad)
		put(buf, len, &off, "grpc!OK", bad);
}

void obs_status_live(FILE *out, const struct obs_snap *s)
{
	char line[160];
	size_t i;

	for (i = 0; i < s->nstatus; i++) {
		obs_status_compact(line, sizeof(line), &s->status[i]);
		if (line[0])
			fprintf(out, "  tcp/%-5u %s\n", s->status[i].port, line);
	}
}
