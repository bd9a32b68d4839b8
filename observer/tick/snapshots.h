/* SPDX-License-Identifier: MIT */
/*
 * The features' snapshots (features/feature.h, struct obs_tick): what each feature publishes per
 * interval for the features after it, the rules' snapshot and the formatters (observer/output/).
 * Data only: a feature includes this header to read another one's snapshot, never that
 * feature's own header, so one interval walks the features in one direction.
 */
#ifndef LOADLENS_OBSERVER_TICK_SNAPSHOTS_H
#define LOADLENS_OBSERVER_TICK_SNAPSHOTS_H

#include <stdbool.h>
#include <stdint.h>
#include "loadlens/ll_hist.h"
#include "loadlens/observer.h"
#include "sources/census.h"
#include "sources/cpuwait.h"
#include "kernel/failures_object.h"
#include "sources/fds.h"
#include "sources/watched.h"
#include "sources/h2_status.h"
#include "sources/reqtime_stats.h"
#include "kernel/sockets.h"

/* --- connections (features/connections.c) --- */
/* The feature's snapshot of the interval. */
struct obs_connections_snap {
	struct obs_sockets_stats total; /* since load */
	struct obs_sockets_stats delta; /* this interval's */
	struct ll_hist wait, wait_total; /* the accept-queue wait: delta's, total's */
	uint64_t lost; /* the connection programs' lost events since load (obs_sockets_drops) */
};

/* --- failures (features/failures.c) --- */
/*
 * The failures feature (features/feature.h): the one reader of this object's counters per
 * interval. Its snapshot, for the features after it and the formatters:
 */
struct obs_failures_snap {
	struct obs_fail_stats cur, delta; /* since load; this interval's */
	/* this interval's failures by call, accept()'s from the connection counters (sockets.bpf.c
	 * counts them per errno), and since start */
	uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX];
	uint64_t total[OBS_SYS_MAX][OBS_FAIL_MAX];
	double rate_max[OBS_FAIL_MAX]; /* per second, the worst interval */
	uint64_t fails;		       /* this interval's, every call */
	bool have_listen_overflow_drops; /* the kernel names the TCP_LISTEN_OVERFLOW drop reason */
	uint64_t listen_overflow_drops;	 /* this interval's */
	uint64_t listen_overflow_drops_total;
	uint64_t lost; /* ring buffer full, per-process map full, skipped runs: since load */
	uint32_t targets_full_pid; /* obs_fail_targets_full_pid() */
};

/* --- sockstat (features/sockstat.c) --- */
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

/* --- processes (features/processes.c); a watched process is sources/watched.h's --- */
/* The feature's snapshot of the interval. */
struct obs_processes_snap {
	double fd_pct; /* the fullest watched process' fds against its limit, %; < 0: none read */
	bool have_files;
	uint64_t file_nr, file_max; /* fs.file-nr, fs.file-max */
	uint64_t ev_lost; /* exits and restarts past OBS_SNAP_EVENTS in one interval, since start */
};

/* --- netstat (features/netstat.c) --- */
/* The feature's snapshot of the interval. */
struct obs_netstat_snap {
	uint64_t overflows_drops; /* listen overflows and drops this interval */
};

/* --- requests (features/requests.c) --- */
/* The feature's snapshot: the counters since load and the interval's, for the live lines and the
 * summary; what was attached and what was lost, as of this tick; output/reqtime_report.c reads
 * nothing else. */
struct obs_requests_snap {
	/* each slot labelled by the read (its port, UDP or not, used) */
	const struct obs_reqtime_stats *cur, *delta;
	struct obs_reqtime_features features; /* the lean hooks' share and state as of this tick */
	const char *attached;  /* the tracepoints attached, comma separated */
	const char *scope;     /* what request timing covers, in words */
	const char *mech;      /* the mechanism's name (features.mech) */
	const char *lean_mode; /* --lean's (features.lean_mode) */
	uint64_t trace_written, trace_write_errors; /* --trace records, so far */
	/* each slot's HTTP/2 and gRPC statuses, the kernel's counts added (NULL: not read) */
	const struct obs_h2_status_counts *h2;
	struct obs_reqtime_lost lost; /* from the final read */
};

#endif /* LOADLENS_OBSERVER_TICK_SNAPSHOTS_H */
