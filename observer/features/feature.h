/* SPDX-License-Identifier: MIT */
/*
 * The contract every feature of the observer keeps (connections, request timing, forensics):
 * its plan of the BPF objects before load (observer/kernel/skeletons.h: struct obs_kernel_plan),
 * then, per interval, tick: read its maps -> delta against its previous snapshot -> keep it, and
 * fill its part of the rules' snapshot; live: the interval's live lines; finish: the final read;
 * summary and json: the text and JSON summary. Each feature owns its snapshots; the formatters it
 * calls (observer/output/) take them as arguments. main() runs the features in order.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_FEATURE_H
#define LOADLENS_OBSERVER_FEATURES_FEATURE_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include "conn.h"
#include "rules/snapshot.h"

/* One interval, as the features pass it along. */
struct obs_tick {
	double t;	       /* seconds since start, end of the interval */
	double dt;	       /* its length */
	bool final;	       /* the final read, after the signal */
	bool records;	       /* interval records kept for --json: live lines and no --metrics */
	struct obs_snap *snap; /* the rules' snapshot: each feature fills its part */
	/* the connection feature's read, for the features after it */
	const struct obs_conn_stats *conn_total, *conn_delta;
	char live[128]; /* the forensics' columns of the connection live line */
};

struct obs_feature {
	const char *name;
	void *self;
	int (*tick)(void *self, struct obs_tick *tk);
	void (*live)(void *self, const struct obs_tick *tk, FILE *out); /* NULL: no lines */
	int (*finish)(void *self, struct obs_tick *tk);
	int (*summary)(void *self, FILE *out);
	int (*json)(void *self, json_t *root);
};

#endif /* LOADLENS_OBSERVER_FEATURES_FEATURE_H */
