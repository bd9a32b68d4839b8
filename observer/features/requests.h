/* SPDX-License-Identifier: MIT */
/*
 * The request-timing feature: its snapshots of bpf/req.bpf.h's counters (sources/reqtime_stats.c,
 * read into the feature's objects by the tick's read phase, sources/tick_reader.h): delta ->
 * previous each interval, the interval records the JSON keeps, and its part of the rules'
 * snapshot. Output: observer/output/reqtime_report.c.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_REQUESTS_H
#define LOADLENS_OBSERVER_FEATURES_REQUESTS_H

#include "features/feature.h"
#include "sources/reqtime_stats.h"
#include "tick/snapshots.h"

struct obs_requests_opts {
	struct obs_reqtime_opts rt;
	bool off;		    /* --no-requests: the programs at their smallest */
	bool payload_off;	    /* payload sampling (observer/features/payload_sampling.c) */
	int64_t payload_period_us;
	FILE *trace_out;	    /* --trace, opened before the drop; the feature closes it */
	int netns_fd;		    /* the targets' namespace (-1: ours), for the lean hooks' passes */
};

struct obs_requests;
struct obs_reader_opts;

/* Processes whose libssl TLS plaintext's uprobes look for (the targets, their children, the
 * owners of the target listeners), at most this many. */
#define OBS_REQUESTS_SERVERS 256

struct obs_requests *obs_requests_new(const char *prog, const struct obs_requests_opts *o);
void obs_requests_free(struct obs_requests *r);
/* The request timing its plan set up: NULL when off (unsupported, or --no-requests). */
struct obs_reqtime *obs_requests_reqtime(struct obs_requests *r);
/* Its objects the read phase reads into (after its unprivileged start): the counters, the
 * payload samples, the HTTP/2 status reader, the sampled arrivals' tier, the lean hooks. */
void obs_requests_reads(struct obs_requests *r, struct obs_reader_opts *o);
/* Before the start: the processes serving the targets (obs_run.c finds them), whose libssl gets
 * TLS plaintext's uprobes; fixed: they are the --pid targets alone (no --children), a set that
 * does not grow, and the uprobes go in their memory only. */
void obs_requests_set_servers(struct obs_requests *r, const uint32_t *pids, size_t n, bool fixed);
extern const struct obs_feature obs_requests_ops; /* self: its struct obs_requests */

#endif /* LOADLENS_OBSERVER_FEATURES_REQUESTS_H */
