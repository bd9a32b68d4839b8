/* SPDX-License-Identifier: MIT */
/*
 * The interval record's data (docs/observer/forensics.md, "NDJSON"), which the features fill each
 * tick (features/feature.h, struct obs_tick.rec) and output/interval_record.c writes: what only the
 * record says, beside the rules' snapshot of the same interval (rules/snapshot.h), from which the
 * record takes the interval's time, accepted connections, TIME_WAIT entries, CPU wait and the
 * system's files.
 */
#ifndef LOADLENS_OBSERVER_TICK_RECORD_H
#define LOADLENS_OBSERVER_TICK_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/observer.h"
#include "sources/census.h"
#include "tick/snapshots.h"
#include "rules/snapshot.h"

enum obs_record_census {
	OBS_RECORD_CENSUS_NONE,	   /* no census context, or the census failed: "census": null */
	OBS_RECORD_CENSUS_DEFERRED, /* spaced to 1% of a CPU: null, "census_deferred": true */
	OBS_RECORD_CENSUS_TAKEN,
};

/* One TCP state of a census, in the record's order. */
struct obs_record_state {
	const char *name;
	uint64_t census;
	bool live;    /* also in "live" and "reconcile_diff" (not TIME_WAIT, not LISTEN) */
	int64_t est;  /* the live count from the state moves */
	int64_t diff; /* est - census */
	uint64_t err; /* est is within err of the truth (0: exact) */
};

/* A syscall failure class of the interval: "failures": {fail: {sys: n, ...}, ...}, in order. */
struct obs_record_fail {
	const char *fail, *sys;
	uint64_t n;
};

struct obs_record {
	/* the rules' snapshot of the same interval: t, dt, accepted, tw_entries, cpu_*, the
	 * system's files (have_files, file_nr, file_max) */
	const struct obs_snap *snap;
	double time; /* CLOCK_REALTIME, seconds */
	enum obs_record_census census;
	struct obs_record_state states[OBS_TCP_STATES];
	size_t nstates;
	bool have_live; /* a census before this one: "live" and "reconcile_diff", else null */
	uint64_t live_err; /* the largest err of the live states: "live_error" */
	uint64_t sockets;
	double took_ms;
	double tw_per_s;
	struct {
		bool have_range; /* else "ports": {} */
		uint32_t lo, hi, size;
		bool have_group;
		char group[128];
		uint32_t in_use, time_wait;
		double pct, rate, tte; /* tte < 0: null */
		uint64_t groups;
	} ports;
	struct obs_record_fail fails[OBS_SYS_MAX * OBS_FAIL_MAX];
	size_t nfails;
	double failure_rate;
	const struct obs_proc *procs;
	size_t nprocs;
	bool have_listen;
	uint64_t overflows, drops, reqq_full_drops, queue_max, backlog;
	uint64_t synack_retransmits, resets_sent, resets_received;
	uint64_t lost_events;
};

#endif /* LOADLENS_OBSERVER_TICK_RECORD_H */
