/* SPDX-License-Identifier: MIT */
/* Internals of the forensics module shared by forensics.c (sampling) and findings.c (output). */
#ifndef LOADLENS_OBSERVER_FORENSICS_INT_H
#define LOADLENS_OBSERVER_FORENSICS_INT_H

#include "fditer.h"
#include "forensics.h"
#include "rules/snapshot.h"

/* Run-long aggregates, for the findings. */
struct obs_fx_run {
	double t_end;
	uint64_t intervals;
	uint64_t census_ok, census_failed, census_deferred;
	double census_ms_max;
	uint64_t state_max[OBS_TCP_STATES]; /* largest census count per state */
	uint64_t tw_entries;		    /* total TIME_WAIT entries seen */
	double tw_rate_max;
	uint64_t close_wait_last;
	double close_wait_rate; /* over the last samples */
	unsigned int close_wait_rising; /* consecutive censuses with more CLOSE_WAIT */
	struct obs_fx_ports ports_peak; /* the most pressed group, at its peak */
	double ports_first_forecast_t;	/* first forecast of port exhaustion; < 0 none */
	double ports_first_forecast_tte;
	double ports_full_t; /* first census at 100%; < 0 never */
	uint64_t fails[OBS_SYS_MAX][OBS_FAIL_MAX]; /* totals, accept included */
	double fail_rate_max[OBS_FAIL_MAX];	    /* per second, the worst interval */
	double first_fail_t[OBS_FAIL_MAX];
	uint64_t listen_overflows, listen_drops, reqq_full; /* netstat, since start */
	uint64_t drop_listen_overflow, drop_socket_backlog; /* kfree_skb reasons */
	uint64_t file_nr_max, file_max;
	double acc_rate_min, acc_rate_max; /* over intervals with accepts */
	uint64_t reconcile_abs_max;	   /* largest |live - census| past the error bound */
	uint64_t live_err_max;		   /* largest error bound of a live count */
	uint64_t cw_untracked_max;	   /* CLOSE_WAIT sockets past the census' age table */
	uint64_t unacc_untracked_max;	   /* never-accepted CLOSE_WAIT children past their table */
	uint64_t listen_untracked_max;	   /* target listeners past the census' list */
	char events[8][160];		   /* target exits and restarts, in order */
	unsigned int nevents;
	/* --children: children forked while observed, found at start, ended (badly) */
	uint64_t children_forked, children_found, children_exited, children_abnormal;
};

struct obs_fx {
	const char *prog;
	struct obs_fditer *fdit; /* fds, exe, netns of processes without /proc (NULL: /proc) */
	struct obs_fail *fail;
	struct obs_census_ctx *census;
	struct obs_targets *targets;
	struct obs_conn *conn;
	struct obs_conn_opts copts;
	bool children;
	struct obs_ndjson *ndjson;
	char attached[256];
	/* previous tick */
	double t_prev;
	struct obs_conn_stats *conn_last;
	struct obs_fail_stats fail_prev, fail_cur, fail_delta;
	struct obs_netstat ns_start, ns_cur;
	/* census reconciliation: census[s] - (in[s] - out[s]) at the last census */
	int64_t base[OBS_TCP_STATES];
	/* how far base can be off: twice the moves while its census ran (0: exact) */
	uint64_t base_err[OBS_TCP_STATES];
	bool have_base;
	/* this tick's live counts (census base + moves), and their error bound */
	int64_t live[OBS_TCP_STATES];
	uint64_t live_err;
	bool live_ok;
	struct obs_census cs;
	double census_next_t;	/* no census before this run time (s): 1% of a CPU at most */
	double census_t;	/* the last census' run time (s) */
	const char *pressure;	/* a sign of exhaustion this interval, for the syscall tier */
	/* port growth: in-use counts of the top group at recent censuses */
	double port_t[OBS_FX_HIST];
	uint32_t port_used[OBS_FX_HIST];
	unsigned int nport;
	uint64_t cw_hist[OBS_FX_HIST];
	double cw_t[OBS_FX_HIST];
	unsigned int ncw;
	struct obs_fx_ports ports_now;
	/* watched processes: up to max_procs (--max-procs); the others are counted */
	struct obs_fx_proc *procs;
	size_t nprocs, max_procs;
	uint32_t unwatched[OBS_MAX_ERRPROCS]; /* distinct pids not watched for the cap */
	size_t nunwatched;
	uint64_t unwatched_more; /* past that list */
	char first_unwatched_comm[16];
	uint64_t procs_ended; /* slots given back by processes that ended */
	/* this interval's target exits and restarts, for the rules' snapshot */
	struct obs_snap_event ev_now[OBS_SNAP_EVENTS];
	size_t nev_now;
	uint64_t ev_lost; /* past OBS_SNAP_EVENTS in one interval */
	bool census_fresh; /* a census was taken this tick */
	uint64_t tw_overflow_delta, listen_overflow_delta;
	double next_owner_scan;
	struct obs_fx_run run;
	struct obs_fail_proc errprocs[OBS_MAX_ERRPROCS];
	size_t nerrprocs;     /* read at the last tick */
	/* their failures seen so far and their network namespace, for the interval's failures
	 * of the watched namespace's processes */
	struct obs_fx_errseen {
		uint32_t pid;
		uint32_t netns; /* 0: unknown (gone before it was read) */
		uint64_t fails[OBS_FAIL_MAX];
	} errseen[OBS_MAX_ERRPROCS];
	size_t nerrseen;
	uint64_t local_total[OBS_FAIL_MAX]; /* the watched namespace's failures since start */
	uint64_t file_nr_now; /* fs.file-nr at the last tick */
};

/* A forecast of exhaustion further out than this (s) is not a forecast. */
#define OBS_FX_FORECAST_HORIZON_S 600.0

/* procs.c: the network namespace (inode) of pid, 0 if it is gone: from the task iterator, which
 * needs no privilege, else /proc/PID/ns/net. */
uint32_t obs_fx__netns(struct obs_fx *fx, uint32_t pid);
/* procs.c: watch pid (its fds, its exit); NULL when --max-procs are watched already (counted). */
struct obs_fx_proc *obs_fx__watch(struct obs_fx *fx, uint32_t pid);
/* procs.c: target exits (ring buffer, /proc) and restarts (same executable), at time t (s). */
void obs_fx__lifecycle(struct obs_fx *fx, double t);
/* procs.c: which processes to watch, and each one's fds, growth and time to exhaustion. */
void obs_fx__procs(struct obs_fx *fx, double t);

/* forensics_snap.c: the forensics part of the rules' snapshot of the interval ending at t. */
void obs_fx__snap(struct obs_fx *fx, const struct obs_conn_stats *delta,
		  const uint64_t dsys[OBS_SYS_MAX][OBS_FAIL_MAX], double t, double dt,
		  struct obs_snap *s);

/* Slope of y over t by least squares, n points in a ring of OBS_FX_HIST ending at index n-1. */
double obs_fx_slope(const double *t, const double *y, unsigned int n);
/* "28,190" */
const char *obs_fx_num(uint64_t v, char *buf, size_t len);

#endif /* LOADLENS_OBSERVER_FORENSICS_INT_H */
