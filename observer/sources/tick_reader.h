/* SPDX-License-Identifier: MIT */
/*
 * One tick's read phase: everything an interval reads from the kernel (BPF maps, rings,
 * iterators), /proc and sock_diag, in the order the figures need, before any feature computes.
 * The features (features/feature.h) then work from struct obs_reads alone. The order:
 *   1. the target listeners' accept queues (a listen-only sock_diag pass), just before
 *   2. the connection counters, so that accepted = handshakes - still queued holds;
 *   3. the syscall failures;
 *   4. the census walk, when due (struct obs_census_plan), between two reads of the state moves
 *      that bound how far it is from one instant;
 *   5. the watched processes (their events, fds, CPU time; the listeners' owners from the
 *      census), fs.file-nr, and who holds a pressed port group's connections;
 *   6. /proc/net/netstat;
 *   7. request timing's counters and payload samples (the final read: after the --trace writer
 *      stopped, before the HTTP/2 status reader stops), then the HTTP/2 statuses decoded.
 * The objects read belong to the run (kernel/, the census context) or to the feature that made
 * them (struct obs_reader_opts); the reader only reads them.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_TICK_READER_H
#define LOADLENS_OBSERVER_SOURCES_TICK_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/failures_object.h"
#include "kernel/sockets.h"
#include "loadlens/payload.h"
#include "rules/snapshot.h"
#include "sources/census.h"

struct obs_fail;
struct obs_watched;
struct obs_holders;
struct obs_reqtime;
struct obs_reqtime_stats;
struct obs_payload;
struct obs_h2_status;
struct obs_h2_status_counts;
struct obs_systier;
struct obs_lean;

/*
 * When the census walks next: the sockstat feature sets it each tick for the read after (a walk
 * costs about 1 us a socket, so they are spaced to stay near 1% of a CPU). A read walks when it
 * is final, or at next_t or later, or sooner on either sign that a walk is wanted now.
 */
struct obs_census_plan {
	double next_t;	      /* the next walk's time (0: the next read) */
	bool cw_watch;	      /* sooner once cw_base + the CLOSE_WAIT moves reach 10 ... */
	int64_t cw_base;      /* ... (the census' CLOSE_WAIT base) ... */
	double cw_from_t;     /* ... at this time or later */
	double noport_from_t; /* sooner when connect() ran out of ports, at this time or later */
};

/* Does a read at run time t walk (final: the final read; cw_moved: the sockets moved into
 * CLOSE_WAIT less those moved out, since load; noport_d: connect()'s failed port searches since
 * the last read)? A pure function of its arguments. */
bool obs_census_plan_due(const struct obs_census_plan *p, double t, bool final, int64_t cw_moved,
			 uint64_t noport_d);

enum obs_reads_census {
	OBS_READS_CENSUS_DEFERRED, /* not due: the plan's spacing */
	OBS_READS_CENSUS_FAILED,   /* due, and the walk failed (or no census context) */
	OBS_READS_CENSUS_TAKEN,
};

/* One tick's reads. The counters are totals since load; the features make the deltas. */
struct obs_reads {
	double t;   /* the run time of this read (s) */
	bool final; /* the final read, after the signal */
	/* the listen pass and the queues it found (ok false: no census context) */
	struct obs_census listeners;
	struct obs_listen_queue lq;
	/* the connection counters with accepted set (kernel/sockets.h) */
	struct obs_sockets_stats sockets;
	/* the syscall failures (fail_err: the read failed, fail keeps the last good one) */
	int fail_err;
	struct obs_fail_stats fail;
	uint32_t targets_full_pid; /* obs_fail_targets_full_pid() */
	/* the census walk: this read's (census TAKEN, or FAILED: what the walk left), with the
	 * state moves read just before and just after it (moves_around false: only one of them
	 * read, each then holds the counters' moves) */
	enum obs_reads_census census;
	struct obs_census walk;
	bool moves_around;
	uint64_t moves_before[OBS_STATE_MOVES], moves_after[OBS_STATE_MOVES];
	/* fs.file-nr and fs.file-max */
	bool have_files;
	uint64_t file_nr, file_max;
	/* /proc/net/netstat of the target namespace (have_netstat false: no census context or
	 * unreadable) */
	bool have_netstat;
	struct obs_netstat netstat;
	/* request timing (req NULL: off): its counters and payload samples, in the feature's
	 * objects (struct obs_reader_opts); the sockets of other processes' readers, when the
	 * counters saw any */
	int req_err;
	const struct obs_reqtime_stats *req;
	const struct rt_pl_ctrs *pl;
	/* the HTTP/2 and gRPC statuses decoded so far, per slot (NULL: not read; the kernel's
	 * counts of the blocks it read are in req's, sources/h2_status.h) */
	const struct obs_h2_status_counts *h2;
	struct obs_snap_reader readers[OBS_SNAP_NOTES];
	size_t nreaders;
};

/* What the reader reads; each object stays its maker's. The run's objects are set once they
 * are opened, then again with the features' once those started (obs_reader_set). */
struct obs_reader_opts {
	const char *prog; /* for the warnings */
	struct obs_sockets *conn;
	struct obs_fail *fail;
	struct obs_census_ctx *census;	/* NULL: no census, listen pass or netstat */
	struct obs_watched *watched;	/* the processes feature's */
	struct obs_holders *holders;	/* the processes feature's, with the watched's iterator */
	uint32_t netns;			/* the target namespace's inode, for the holders */
	bool local_fails;		/* no --pid/--cgroup: failures are the namespace's */
	/* request timing's (rt NULL: off): the counters into req, the samples into pl */
	struct obs_reqtime *rt;
	struct obs_reqtime_stats *req;
	struct obs_payload *payload;
	struct rt_pl_ctrs *pl;
	struct obs_h2_status *h2s;    /* NULL: HTTP/2 statuses not read */
	struct obs_h2_status_counts *h2c; /* ... read into, one per slot of req */
	struct obs_systier *arrivals; /* the sampled arrivals' tier (NULL: none) */
	struct obs_lean *lean;	      /* the lean hooks (NULL: none), whose passes come first */
};

struct obs_reader;

/* NULL: out of memory. */
struct obs_reader *obs_reader_new(void);
void obs_reader_set(struct obs_reader *rd, const struct obs_reader_opts *o);
void obs_reader_free(struct obs_reader *rd);
/* The plan the sockstat feature keeps up to date; initially: walk at the first read. */
struct obs_census_plan *obs_reader_census_plan(struct obs_reader *rd);
/* Before attach: the listen queues now, the base of the accepted count. Returns false when
 * there is no listen pass (no census context). */
bool obs_reader_listen_base(struct obs_reader *rd);
/* One tick's reads at run time t (final: the final read), into *out (the reader's, until the
 * next read). Returns 0, or the negative errno of the connection counters' read, without which
 * no figure holds; the other reads' failures are in the reads. */
int obs_reader_read(struct obs_reader *rd, double t, bool final, const struct obs_reads **out);

#endif /* LOADLENS_OBSERVER_SOURCES_TICK_READER_H */
