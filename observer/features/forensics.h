/* SPDX-License-Identifier: MIT */
/*
 * Connection, port and fd forensics: once per interval, read the kernel counters
 * (sockets.bpf.c, failures.bpf.c), take the socket census, read fd usage, turn them into rates and
 * forecasts, and write an NDJSON interval record; at the end, plain-sentence findings.
 */
#ifndef LOADLENS_OBSERVER_FORENSICS_H
#define LOADLENS_OBSERVER_FORENSICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "census.h"
#include "conn.h"
#include "failures.h"
#include "fds.h"
#include "target.h"

#define OBS_FX_PROCS_DEFAULT 64 /* processes whose fds are watched: --max-procs */
#define OBS_FX_PROCS_MAX 256	/* the most --max-procs takes (OBS_SNAP_PROCS) */
#define OBS_FX_HIST 8	 /* samples kept for growth rates */
#define OBS_TW_LIFETIME_S 60.0

struct obs_fx_opts {
	const struct obs_conn_opts *conn;
	struct obs_conn *shared;	/* the connection programs' object: its "targets" map */
	struct obs_fail *fail;		/* failures.bpf.c, loaded (observer/kernel/skeletons.c) */
	struct obs_targets *targets;
	bool children;
	struct obs_census_ctx *census; /* the caller's, in the target netns; NULL: no census */
	struct obs_ndjson *ndjson;     /* the interval records go there; NULL: none */
	unsigned int max_procs;	       /* --max-procs; 0: OBS_FX_PROCS_DEFAULT */
};

struct obs_fx_proc {
	struct obs_fd_proc fd;
	bool exited;
	double exited_at;
	double t[OBS_FX_HIST];
	int64_t open[OBS_FX_HIST];
	unsigned int nhist;
	double rate;		/* fds/s over the kept samples */
	double tte;		/* seconds to RLIMIT_NOFILE at that rate; < 0: none */
	double first_forecast_t; /* first interval with a forecast (< 0: none) */
	double first_forecast_tte;
	double first_fail_t;	/* first interval with EMFILE from this process (< 0: none) */
	uint64_t fails[OBS_FAIL_MAX];
	uint32_t last_sys;
	bool netns_outside; /* lives in another network namespace than the watched one */
};

/* Port group with its growth. */
struct obs_fx_ports {
	struct obs_port_group g;
	uint32_t range;
	double pct;
	double rate; /* ports/s */
	double tte;  /* seconds to exhaustion; < 0: none */
};

struct obs_fx;
struct obs_ndjson;
struct obs_snap;

struct obs_fx *obs_fx_new(const char *prog, const struct obs_fx_opts *opts);
void obs_fx_free(struct obs_fx *fx);
/* Capabilities to keep after the drop (a mask of 1 << CAP_*), 0 for none. */
uint64_t obs_fx_keep_caps(const struct obs_fx *fx);
/* The programs attached, for the "observing" line. */
const char *obs_fx_attached(const struct obs_fx *fx);
/* The next tick takes a census even if the last one was recent (the final tick: the summary's
 * ground truth). */
void obs_fx_census_due(struct obs_fx *fx);
/* A sign of exhaustion in the last tick (half a limit reached, failures), or NULL. */
const char *obs_fx_pressure(const struct obs_fx *fx);

/*
 * One interval ending now (t seconds since start): read everything, write the NDJSON record,
 * fill the forensics part of the rules' snapshot `snap` and `live` with the forensics part of the
 * live line. Returns 0 or a negative errno.
 */
int obs_fx_tick(struct obs_fx *fx, const struct obs_conn_stats *conn_total,
		const struct obs_conn_stats *conn_delta, double t, struct obs_snap *snap, char *live,
		size_t livelen);
/* The feature's contract (feature.h): tick, finish (a census taken whatever its spacing),
 * summary, json. */
struct obs_feature;
struct obs_feature obs_fx_feature(struct obs_fx *fx);
/* Events lost this run: ring buffer full, the per-process failure map full, skipped runs,
 * children the "targets" map had no room for. */
uint64_t obs_fx_lost(const struct obs_fx *fx);
/* The header of that part of the live line. */
const char *obs_fx_live_header(void);

/* The forensics' lines of the text summary, and the "forensics" JSON object (the findings are
 * the rules', observer/features/findings.c). */
int obs_fx_summary(struct obs_fx *fx, FILE *out);
int obs_fx_json_add(struct obs_fx *fx, json_t *root);

#endif /* LOADLENS_OBSERVER_FORENSICS_H */
