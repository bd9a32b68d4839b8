/* SPDX-License-Identifier: MIT */
/*
 * The contract every feature of the observer keeps. Features (in the order main.c runs them):
 *   connections  features/connections.c  accepted connections, handshakes, accept-queue wait
 *   failures     features/failures.c     syscall failures, drops, resets (bpf/failures.bpf.c)
 *   sockstat     features/sockstat.c     socket census, TIME_WAIT, port groups and forecasts
 *   processes    features/processes.c    targets, children, fds against RLIMIT_NOFILE (the set
 *                                         of watched processes: sources/watched.c)
 *   netstat      features/netstat.c      the namespace's listen overflows and drops
 *   pressure     features/pressure.c     the syscall tier switched on a sign of exhaustion
 *   requests     features/requests.c     per-request time (request timing)
 * Each has one life: plan (the BPF objects opened, before load: may configure its programs),
 * start (attached, still privileged), start_unprivileged (privilege dropped: threads), then per
 * interval tick: from what the read phase read (tk->reads, sources/tick_reader.h: a feature
 * reads nothing itself) -> delta against its previous snapshot -> keep it, publish it in struct
 * obs_tick for the features after it and the formatters, and fill its part of the rules'
 * snapshot and of the interval record; finish: the same on the final read; summary and json:
 * the text and JSON summary, from its own snapshots and the final tick's; free: the end of its
 * life, its one cleanup path. A feature reads another one's snapshot from the tick only, never
 * its internals: one interval walks the features in one direction (obs_features_tick).
 */
#ifndef LOADLENS_OBSERVER_FEATURES_FEATURE_H
#define LOADLENS_OBSERVER_FEATURES_FEATURE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "sources/tick_reader.h"
#include "tick/tick.h"

struct obs_kernel;
struct obs_feature {
	const char *name;
	void *self;
	/* before load (NULL: nothing to plan); 0 or a negative errno */
	int (*plan)(void *self, struct obs_kernel *k);
	/* attached, before the privilege drop (NULL: nothing to start); 0 or a negative errno */
	int (*start)(void *self);
	/* after the drop (NULL: nothing): threads, which would keep the privileges made before */
	int (*start_unprivileged)(void *self);
	/* the capabilities its reads need after the drop (a mask of 1 << CAP_*; NULL: none) */
	uint64_t (*keep_caps)(const void *self);
	/* the programs and sources it attached, for the "observing" line (NULL: none) */
	const char *(*attached)(const void *self);
	int (*tick)(void *self, struct obs_tick *tk);
	int (*finish)(void *self, struct obs_tick *tk); /* NULL: tick */
	/* tk: the final tick, every feature's last snapshot (NULL: no lines, no keys) */
	int (*summary)(void *self, const struct obs_tick *tk, FILE *out);
	int (*json)(void *self, const struct obs_tick *tk, json_t *root);
	/* its one cleanup path, self NULL included (NULL: self is one allocation, free()) */
	void (*free)(void *self);
};
/* Each feature exports its functions as `const struct obs_feature obs_<name>_ops` (self NULL):
 * main.c adds them to the run with the feature's object (obs_run_add, observer/obs_run.c), which
 * copies them and sets self. */

/* One interval's features phase: each feature's tick (finish on the final tick) in order, its
 * 0 or negative errno into errs[i]. Returns the first feature's error, which the others need
 * (the connection counters), else 0. */
int obs_features_tick(struct obs_feature *fs, size_t n, struct obs_tick *tk, int *errs);

/* The "forensics" object of the JSON summary, which the failures, sockstat, processes and netstat
 * features fill together (created by the first). NULL when out of memory. */
static inline json_t *obs_feature_forensics_json(json_t *root)
{
	json_t *o = json_object_get(root, "forensics");

	if (o)
		return o;
	o = json_object();
	if (!o || json_object_set_new(root, "forensics", o))
		return NULL;
	return o;
}

/* Sets key of the "forensics" object to v (taken; NULL: out of memory). 0 or -ENOMEM. */
static inline int obs_feature_forensics_set(json_t *root, const char *key, json_t *v)
{
	json_t *o = obs_feature_forensics_json(root);

	if (!o || !v) {
		json_decref(v);
		return -ENOMEM;
	}
	return json_object_set_new(o, key, v) ? -ENOMEM : 0;
}

#endif /* LOADLENS_OBSERVER_FEATURES_FEATURE_H */
