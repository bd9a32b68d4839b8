/* SPDX-License-Identifier: MIT */
/*
 * The request-timing feature: its snapshots of bpf/req.bpf.h's counters (observer/features/
 * reqtime.c reads them): read -> delta -> previous each interval, the interval records the JSON
 * keeps, and its part of the rules' snapshot. Output: observer/output/reqtime_report.c.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_REQUESTS_H
#define LOADLENS_OBSERVER_FEATURES_REQUESTS_H

#include "feature.h"
#include "reqtime.h"

struct obs_requests;

struct sockets_bpf;

/* skel: the socket object request timing is part of (its payload-sampling counters) */
struct obs_requests *obs_requests_new(struct obs_reqtime *rt, struct sockets_bpf *skel);
void obs_requests_free(struct obs_requests *r);
/* What it lost, from the final read (after finish). */
void obs_requests_lost(const struct obs_requests *r, struct obs_rt_lost *out);
struct obs_feature obs_requests_feature(struct obs_requests *r);

#endif /* LOADLENS_OBSERVER_FEATURES_REQUESTS_H */
