/* SPDX-License-Identifier: MIT */
/*
 * Request timing (bpf/req.bpf.h, part of bpf/sockets.bpf.c) from userspace: its plan is
 * observer/kernel/reqtime_mech.c's; this reads the per-slot histograms and counters back through
 * the socket object's owner (observer/kernel/sockets.c) into stats and deltas, each slot labelled;
 * the request-timing feature (requests.c) keeps the snapshots (tick/snapshots.h), which
 * output/reqtime_report.c prints. A slot is one (port, protocol) pair; see
 * include/loadlens/reqtime.h.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_REQTIME_STATS_H
#define LOADLENS_OBSERVER_SOURCES_REQTIME_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "loadlens/hist.h"
#include "loadlens/ll_hist.h"
#include "loadlens/reqtime.h"
#include "kernel/reqtime_mech.h"
#include "rules/snapshot.h"

/* Index of the derived "service to the last write" histogram, after the kernel's RT_NCOMP. */
#define OBS_REQTIME_SERVICE_LAST RT_NCOMP
#define OBS_REQTIME_NHIST (RT_NCOMP + 1)

struct obs_reqtime_opts {
	const uint16_t *ports; /* nports == 0: every port, as one slot pair (owned: a pair each) */
	size_t nports;
	const char *trace_path; /* --trace FILE, or NULL */
	uint32_t trace_every;	/* one request in N into the trace; 0 means 1 */
	bool runq;		/* --runq: run-queue wait of the serving processes */
	bool owned;		/* --pid/--cgroup: only the targets' own sockets are timed; with
				 * nports == 0 each of their ports gets its slot pair as it is seen */
	enum obs_reqtime_mech mech; /* OFF: the best the kernel has; else only that one */
	bool arrivals_sampled;	/* --arrivals sampled: the arrival program attached in windows */
	enum obs_lean_mode lean; /* --lean (kernel/lean.h) */
	unsigned int detach;	/* LOADLENS_OBSERVER_DETACH (kernel/reqtime_mech.h) */
	bool h2_headers;	/* HTTP/2 and gRPC statuses (LOADLENS_OBSERVER_H2_HEADERS, on) */
	bool no_tls_uprobes;	/* --no-tls-uprobes */
	uint32_t h2_frames;	/* the HTTP/2 walk's bound (LOADLENS_OBSERVER_H2_FRAMES); 0: its own */
};

/* What got attached. */
struct obs_reqtime_features {
	enum obs_reqtime_mech mech; /* how requests are timed here */
	bool close_out; /* inet_sock_set_state: the last response of a connection is closed out */
	bool accept;	/* accept time of first requests (syscalls:sys_exit_accept4, the syscall tier) */
	bool runq;	/* sched_wakeup/sched_switch (--runq) */
	bool trace;
	bool arrivals_sampled; /* --arrivals sampled: sk_data_ready attached in windows only */
	double arrival_share;  /* then: share of the run it was attached (set by main) */
	/* the lean hooks (kernel/lean.h): possible here (then the child attaches the read hooks),
	 * the mode, and as of the last tick: the share of the run, the state, the last reason */
	bool lean;
	enum obs_lean_mode lean_mode;
	double lean_share;
	double lean_solo_share; /* of which the copy hook alone (the send hook detached too) */
	uint64_t lean_reads;
	const char *lean_state;
	char lean_why[160];
	/* TLS plaintext (uprobes on libssl): attached to some file, and what was done, in words
	 * ("uprobes on PATH", or why not) */
	bool tls_plaintext;
	bool tls_possible; /* uprobes could be had here (the programs loaded) */
	bool h2_headers;   /* HTTP/2 header blocks read for statuses (sources/h2_status.c) */
	char tls_text[1024];
	size_t tls_without;	 /* target processes that map no libssl */
	uint32_t tls_without_pid; /* the first of them */
	char tls_without_comm[16];
};

struct obs_reqtime_slot {
	struct rt_ctrs c; /* summed over CPUs; first_ns is the min, last_ns and max_ns the max */
	/* its labels as of the read that filled it (obs_reqtime_read): obs_reqtime_slot_port(),
	 * obs_reqtime_slot_used(), and whether it is the port's UDP slot */
	uint16_t port;
	bool used;
	bool udp;
	uint64_t hist[RT_NCOMP][LL_HIST_BUCKETS];
};

struct obs_reqtime_stats {
	size_t nslots;
	uint64_t global[RT_G_MAX];
	uint64_t runq[LL_HIST_BUCKETS];
	uint64_t missed;		     /* program runs the kernel skipped (recursion) */
	struct obs_reqtime_slot slot[]; /* nslots of them, in the same allocation */
};

struct obs_reqtime;
struct obs_sockets;
struct bpf_program;

/*
 * Probe, and plan request timing's part of the socket object (conn: opened, not yet loaded;
 * observer/kernel/reqtime_mech.c). If the kernel lacks the socket tracepoints (tp_btf sk_data_ready,
 * sock_recv_length, sock_send_length), prints one note and returns NULL with errno ENOTSUP: the
 * observer goes on without request timing. Other failures: NULL, errno set, one line printed.
 */
struct obs_reqtime *obs_reqtime_new(const char *prog, const struct obs_reqtime_opts *opts,
				    struct obs_sockets *conn);
/* After obs_kernel_start() loaded and attached the object: start the --trace writer, the clock. */
/* trace_out: the --trace file, opened by the caller (loadlens/outfile.h) before any privilege
 * drop, or NULL; always taken over (closed here on failure). */
int obs_reqtime_start(struct obs_reqtime *rt, const char *prog, FILE *trace_out);
/* --arrivals sampled: the arrival program, left for observer/kernel/systier.c to attach in
 * windows; NULL otherwise. */
struct bpf_program *obs_reqtime_arrival_prog(const struct obs_reqtime *rt);
/* Attached, privileged: the lean hooks' switch (kernel/lean.h), where they can run; NULL where
 * not, or on an error (errno set, printed). */
struct obs_lean *obs_reqtime_lean_new(struct obs_reqtime *rt, const char *prog, int netns_fd);
/* The lean hooks as of now, for the summary (features.lean_*). */
void obs_reqtime_lean_said(struct obs_reqtime *rt, const struct obs_lean *l);
/* A stamping window opens: UDP sockets resynchronise their arrival rings (for systier's hook). */
void obs_reqtime_arrival_window(void *rt);
/* The share of the run arrival stamping was attached, for the summary. */
void obs_reqtime_arrival_share(struct obs_reqtime *rt, double share);
/* Attached, privileged: the uprobes of TLS plaintext on the libssl that the serving processes
 * pids map (observer/kernel/ssl_probes.c), in those processes only where scoped (the --pid
 * targets alone). Says nothing; the features say what it did. 0 or -ENOMEM. */
int obs_reqtime_ssl_attach(struct obs_reqtime *rt, const uint32_t *pids, size_t npids,
			   bool scoped);
/* Stops the trace writer (draining the ring buffer first) and detaches. NULL is a no-op. */
void obs_reqtime_free(struct obs_reqtime *rt);

const struct obs_reqtime_features *obs_reqtime_features(const struct obs_reqtime *rt);
/* Names of the attached tracepoints, comma separated. */
const char *obs_reqtime_attached(const struct obs_reqtime *rt);
/* A read that must work after the privilege drop (for obs_startup_drop_privileges' verify). */
int obs_reqtime_verify(void *rt);

struct obs_reqtime_stats *obs_reqtime_stats_new(const struct obs_reqtime *rt);
void obs_reqtime_stats_free(struct obs_reqtime_stats *st);
/* The counters and histograms into st, each slot labelled (its port: the BPF side's, for a
 * --pid/--cgroup slot given one as the targets' sockets are seen). */
int obs_reqtime_read(struct obs_reqtime *rt, struct obs_reqtime_stats *st);
/* st = a - b, labelled as a; maxima become 0 (unknown for an interval; percentiles come from the
 * buckets). A slot's histogram: tick/reqtime_hist.h. */
void obs_reqtime_stats_sub(struct obs_reqtime_stats *st, const struct obs_reqtime_stats *a,
			   const struct obs_reqtime_stats *b);
/* Slot's port (0 with --all-ports) and protocol name. */
uint16_t obs_reqtime_slot_port(const struct obs_reqtime *rt, size_t slot);
/* --pid/--cgroup: the processes that read server-side sockets the targets did not (the "foreign"
 * map), the most sockets first, at most n. Returns how many were written. */
size_t obs_reqtime_foreign(const struct obs_reqtime *rt, struct obs_snap_reader *out, size_t n);
/* Without --port under --pid/--cgroup, slots get ports as the targets' sockets are seen: false
 * for a slot no port has yet. */
bool obs_reqtime_slot_used(const struct obs_reqtime *rt, size_t slot);
/* What request timing covers, in words ("the targets' own sockets", ...). */
const char *obs_reqtime_scope(const struct obs_reqtime *rt);
const char *obs_reqtime_slot_proto(size_t slot);
/* Trace records written and lost (ring buffer full), so far. */
void obs_reqtime_trace_counts(const struct obs_reqtime *rt, uint64_t *written, uint64_t *lost);
/* errno of the trace's first failed write, 0 if none. */
int obs_reqtime_trace_error(const struct obs_reqtime *rt);

/* What request timing lost, from the final read. */
struct obs_reqtime_lost {
	uint64_t no_storage;	     /* socket state not created */
	uint64_t tgids_full;	     /* --runq: a serving process found no slot */
	uint64_t skipped_runs;	     /* program runs the kernel skipped */
	uint64_t trace_lost;	     /* --trace records the ring buffer had no room for */
	uint64_t trace_write_errors; /* --trace records that could not be written: an output error */
	uint64_t ssl_procs_full;     /* TLS servers whose SSL calls are not looked at (table slot) */
	int trace_errno;	     /* the first write's error */
};
void obs_reqtime_lost(const struct obs_reqtime *rt, const struct obs_reqtime_stats *st,
		 struct obs_reqtime_lost *out);
/* Lost events of those (the write errors are not events). */
uint64_t obs_reqtime_lost_total(const struct obs_reqtime_lost *l);

/* Stop the --trace writer, draining the ring buffer first (its counts are kept). */
void obs_reqtime_trace_stop(struct obs_reqtime *rt);

#endif /* LOADLENS_OBSERVER_SOURCES_REQTIME_STATS_H */
