/* SPDX-License-Identifier: MIT */
/*
 * The sockstat feature: the target sockets by TCP state and the ephemeral ports they hold. Each
 * interval a sock_diag census (features/census.c), spaced to 1% of a CPU, reconciled against the
 * live counts from the state moves (sockets.bpf.c, asked through kernel/sockets.c); TIME_WAIT entries, the
 * CLOSE_WAIT trend, and the most used port group against the port range with its forecast.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_SOCKSTAT_H
#define LOADLENS_OBSERVER_FEATURES_SOCKSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include "census.h"
#include "sockets.h"

#define OBS_SOCKSTAT_HIST 8 /* censuses kept for growth rates */

/* The most used port group at a census, with its growth. */
struct obs_port_pressure {
	struct obs_port_group g;
	uint32_t range;
	double pct;
	double rate; /* ports/s */
	double tte;  /* seconds to exhaustion; < 0: none */
};

/* The feature's snapshot of the interval. */
struct obs_sockstat_snap {
	bool census_on;		/* a census context (sock_diag in the target netns) */
	bool have_census;	/* a census was taken this run */
	bool fresh;		/* ... this interval */
	struct obs_census cs;	/* the last census */
	bool live_ok;		/* live counts from the state moves this interval */
	int64_t live[OBS_TCP_STATES];
	uint64_t live_err;	/* their error bound (0: exact) */
	struct obs_port_pressure ports; /* the last census' most used group */
	double tw_rate;		/* sockets closed after FIN per second, this interval */
};

struct obs_sockstat;

/* conn: the socket object's owner (state moves around a census); census: NULL for none. One
 * allocation: free() ends it. */
struct obs_sockstat *obs_sockstat_new(struct obs_sockets *conn, struct obs_census_ctx *census);
extern const struct obs_feature obs_sockstat_ops; /* self: its struct obs_sockstat */

#endif /* LOADLENS_OBSERVER_FEATURES_SOCKSTAT_H */
