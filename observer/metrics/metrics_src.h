/* SPDX-License-Identifier: MIT */
/*
 * What a scrape of --metrics reads (docs/observer/metrics.md): the kernel counters
 * and histograms live, into its own buffers (the features' interval snapshots are not touched),
 * and what only a tick takes (the socket census, fd counts, findings) from the latest tick. It
 * fills the plain-data struct obs_mx_snap that observer/metrics/metrics_render.c writes out.
 */
#ifndef LOADLENS_OBSERVER_METRICS_METRICS_SRC_H
#define LOADLENS_OBSERVER_METRICS_METRICS_SRC_H

#include <stddef.h>
#include <stdint.h>
#include "sources/census.h"
#include "kernel/sockets.h"
#include "kernel/failures_object.h"
#include "metrics/metrics.h"
#include "rules/snapshot.h"

struct obs_reqtime;
struct obs_reqtime_stats;
struct obs_tick;
struct obs_findings_run;

struct obs_mx_src_opts {
	struct obs_sockets *conn;		/* the connection counters */
	struct obs_census_ctx *census;	/* listen passes for accepted; NULL: counted at
					 * accept() */
	struct obs_reqtime *rt;		/* request timing; NULL: off */
	struct obs_fail *fail;		/* syscall failures */
	struct obs_findings_run *findings; /* findings of the latest interval */
	const uint16_t *ports;		/* the watched ports (none: every port) */
	size_t nports;
};

struct obs_mx_src;

struct obs_mx_src *obs_mx_src_new(const struct obs_mx_src_opts *o);
void obs_mx_src_free(struct obs_mx_src *s);
/* After each tick: keep what only a tick takes (census, processes, system files). */
void obs_mx_src_tick(struct obs_mx_src *s, const struct obs_tick *tk);
/* One scrape: read live, write the exposition in format f into out. 0 or a negative errno. */
int obs_mx_src_scrape(struct obs_mx_src *s, enum obs_mx_format f, struct obs_mx_buf *out);
/* Request timing's counters and histograms for a scrape (observer/metrics/metrics_reqread.c),
 * into the scrape's own stats. 0 or a negative errno. */
int obs_mx_reqtime_read(struct obs_reqtime *rt, struct obs_reqtime_stats *st);
/* The HTTP side's count of refused connections, for the exposition. */
void obs_mx_src_refused(struct obs_mx_src *s, uint64_t refused);

#endif /* LOADLENS_OBSERVER_METRICS_METRICS_SRC_H */
