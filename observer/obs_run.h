/* SPDX-License-Identifier: MIT */
/*
 * One run of the observer, brought up in order: the outputs opened (before the uid changes), the
 * targets resolved, the BPF objects opened (observer/kernel/skeletons.c), then, once main.c has
 * built the feature list on them, planned, loaded and attached, the features started, privilege
 * dropped, the unprivileged starts. main.c parses the flags and runs the interval loop.
 */
#ifndef LOADLENS_OBSERVER_OBS_RUN_H
#define LOADLENS_OBSERVER_OBS_RUN_H

#include <stddef.h>
#include <stdio.h>
#include "features/feature.h"
#include "options.h"
#include "tick/record.h"
#include "kernel/sockets.h"
#include "sources/targets.h"

/* What a run holds: the objects, the features in order, the outputs, the findings. */
struct obs_run {
	const struct obs_args *args;
	struct obs_targets targets;
	struct obs_sockets_opts sockets_opts; /* the socket object's options, from the args */
	struct obs_kernel *kernel;	      /* the BPF objects */
	struct obs_census_ctx *census;	      /* the socket census in the targets' namespace */
	struct obs_reader *reader;	      /* each tick's read phase */
	struct obs_census_plan *census_plan;  /* when it walks the census next (the reader's) */
	struct obs_processes *processes;      /* the watched processes' owner */
	struct obs_requests *requests;	      /* request timing, if on: metrics read it */
	FILE *json_out;			      /* --json, written at the end */
	FILE *trace_out;		      /* --trace, until request timing takes it */
	struct obs_ndjson *ndjson;	      /* --ndjson */
	struct obs_findings_run *findings;
	struct obs_mxhttp *metrics_http; /* --metrics: the endpoint */
	struct obs_mx_src *metrics_src;	 /* what a scrape reads */
	struct obs_feature features[7];
	size_t nfeatures; /* those an interval walks */
	size_t nowned;	  /* those made, freed at the end (request timing off: one more) */
	/* the interval loop's (main.c) */
	struct obs_snap *snap;	     /* the rules' snapshot the next interval fills */
	struct obs_record record;    /* the interval record's snapshot */
	struct obs_tick final_tick; /* the final tick: every feature's last snapshot */
	double t_prev;
	int out_err; /* the --ndjson file's write error (sticky), as of the last interval */
};

/* The outputs (--json, --trace, --ndjson, --metrics) and the findings, opened as root, never
 * through a link. 0, or the exit status. */
int obs_run_outputs(struct obs_run *r);
/* The targets resolved, tracefs checked (once every usage error has been said), the BPF objects
 * opened, the census context and the read phase made. 0, or the exit status. */
int obs_run_open(struct obs_run *r);
/* Adds a feature, made or not (NULL: out of memory; still freed by obs_run_free). */
void obs_run_add(struct obs_run *r, const struct obs_feature *ops, void *self);
/* The features' plans, load, attach, the features' starts, the privilege drop, the unprivileged
 * starts, what the read phase reads of the features', the metrics source. 0, or the exit
 * status. */
int obs_run_start(struct obs_run *r);
void obs_run_free(struct obs_run *r);

#endif /* LOADLENS_OBSERVER_OBS_RUN_H */
