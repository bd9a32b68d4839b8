/* SPDX-License-Identifier: MIT */
/*
 * The metrics exposition (--metrics, docs/observer/metrics.md): pure functions of a
 * plain-data scrape snapshot (struct obs_mx_snap, filled by observer/metrics/metrics_src.c),
 * written in the Prometheus text format 0.0.4 or in OpenMetrics 1.0 (ending "# EOF"). Classic
 * histogram buckets are derived from the shared log-linear histogram (include/loadlens/hist.h):
 * each `le` boundary 1, 2, 5 x 10^k s counts the samples below the bucket edge of ours nearest
 * to it (obs_mx_edge_ns()), so every count is an exact sum of our buckets. No kernel, no
 * sockets: tests/unit/test_metrics.c links this without root.
 */
#ifndef LOADLENS_OBSERVER_METRICS_METRICS_H
#define LOADLENS_OBSERVER_METRICS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/hist.h"

enum obs_mx_format {
	OBS_MX_PROMETHEUS = 0, /* text/plain; version=0.0.4 */
	OBS_MX_OPENMETRICS,    /* application/openmetrics-text; version=1.0.0 */
};

/* Content-Type of a format. */
const char *obs_mx_content_type(enum obs_mx_format f);
/* The format an Accept header asks for (NULL: none given): OpenMetrics when it names
 * application/openmetrics-text, else the Prometheus text format. */
enum obs_mx_format obs_mx_negotiate(const char *accept);

/* A growing text buffer; err is set (-ENOMEM) once an append failed, and stays. */
struct obs_mx_buf {
	char *p;
	size_t len, cap;
	int err;
};
void obs_mx_buf_reset(struct obs_mx_buf *b);
void obs_mx_buf_free(struct obs_mx_buf *b);
/* Append n bytes of s, kept NUL-terminated; on allocation failure b->err is set and later
 * appends do nothing. */
void obs_mx_buf_put(struct obs_mx_buf *b, const char *s, size_t n);

/* --- classic histogram buckets ------------------------------------------------------------- */

#define OBS_MX_BOUNDS 25 /* 1 us, 2 us, 5 us, ... 50 s, 100 s; then +Inf */
extern const double obs_mx_bounds_s[OBS_MX_BOUNDS];
/* The edge (ns) of our buckets that the boundary le_s stands for: of the two edges around
 * floor(le_s in ns) + 1 (values are whole ns, so "<= le" is "< le + 1 ns"), the nearer, the
 * lower on a tie. Exact (== le + 1 ns) where that is an edge; else within half a bucket, at most
 * 0.39% of le. */
uint64_t obs_mx_edge_ns(double le_s);
/* Cumulative counts at each boundary (samples below its edge) from counts[LL_HIST_BUCKETS];
 * returns the total (the +Inf bucket and _count). */
uint64_t obs_mx_buckets(const uint64_t *counts, uint64_t cum[OBS_MX_BOUNDS]);

/* --- the writer: families and samples ------------------------------------------------------ */

struct obs_mx_label {
	const char *name;
	const char *value;
};

/* "# HELP" and "# TYPE" (and "# UNIT" in OpenMetrics, for names ending in _seconds) of a
 * family. type: "counter", "gauge" or "histogram". A counter's name is given without _total:
 * OpenMetrics names the family so, the Prometheus format names it with _total. */
void obs_mx_family(struct obs_mx_buf *b, enum obs_mx_format f, const char *name,
		   const char *type, const char *help);
/* One sample: name, suffix ("_total", "_bucket", "" ...), labels, value. */
void obs_mx_sample(struct obs_mx_buf *b, const char *name, const char *suffix,
		   const struct obs_mx_label *l, size_t nl, double v);
/* A histogram's series for one label set, from our buckets (counts[LL_HIST_BUCKETS], NULL: all
 * zero) with the exact sum in ns: _bucket{le} for every boundary and +Inf, _sum (s), _count. */
void obs_mx_histogram(struct obs_mx_buf *b, const char *name, const struct obs_mx_label *l,
		      size_t nl, const uint64_t *counts, uint64_t sum_ns);
/* Escape a label value (\\, \", \n) into out (len bytes, NUL-terminated, cut at a whole escape);
 * returns out. */
char *obs_mx_escape(const char *in, char *out, size_t len);
/* A value as the formats write it: integers plainly, else the shortest form that reads back the
 * same ("0.0025"), "+Inf", "-Inf", "NaN". */
void obs_mx_value(double v, char *out, size_t len);
/* The end of the exposition: "# EOF" in OpenMetrics, nothing in the Prometheus format. */
void obs_mx_end(struct obs_mx_buf *b, enum obs_mx_format f);

/* --- the scrape snapshot -------------------------------------------------------------------- */

#define OBS_MX_PROCS 20	   /* processes exposed (most open fds first); the rest are counted */
#define OBS_MX_GROUPS 4	   /* port groups exposed (the census keeps its 4 most used) */
#define OBS_MX_SLOTS 34	   /* request-timing slots (port, protocol) */
#define OBS_MX_FAILS 64	   /* (syscall, errno) pairs with failures */
#define OBS_MX_ERRNOS 32   /* accept errors by errno exposed */
#define OBS_MX_KINDS 32	   /* finding kinds */
#define OBS_MX_PROGS 48	   /* BPF programs */
#define OBS_MX_TCP_STATES 16

struct obs_mx_slot {
	char port[8];	   /* "8080", or "all" with every port */
	bool udp;
	uint64_t requests;
	/* socket-queue wait, service, residence: our buckets (LL_HIST_BUCKETS each) and sums */
	const uint64_t *hist[3];
	uint64_t sum_ns[3];
};

struct obs_mx_proc {
	uint32_t pid;
	char comm[16];
	int64_t open; /* -1: unknown (not exposed) */
	int64_t soft; /* RLIMIT_NOFILE soft; -1: unlimited or unknown (not exposed) */
	uint64_t emfile;
};

struct obs_mx_group {
	char name[112]; /* "127.0.0.1->127.0.0.1:8080" */
	uint32_t in_use, time_wait;
};

struct obs_mx_fail {
	const char *syscall; /* "connect" */
	const char *err;     /* "EADDRNOTAVAIL" */
	uint64_t n;
};

struct obs_mx_errno {
	char err[16]; /* "EMFILE", or the number */
	uint64_t n;
};

struct obs_mx_kind {
	const char *kind;
	unsigned int active; /* findings of this kind that held in the latest interval */
};

struct obs_mx_prog {
	char name[64];
	uint64_t run_ns, run_cnt;
};

struct obs_mx_snap {
	char port[8]; /* the accept counters' port label: "8080" with one --port, else "all" */
	/* connections: live from the kernel counters */
	uint64_t accepted, handshakes;
	struct obs_mx_errno accept_err[OBS_MX_ERRNOS];
	size_t naccept_err;
	const uint64_t *accept_wait; /* accept-queue wait, our buckets; NULL: none */
	uint64_t accept_wait_sum_ns;
	/* the latest census (at the latest tick) */
	bool census;
	double census_age_s;
	uint64_t tcp_state[OBS_MX_TCP_STATES];
	uint32_t port_range; /* ip_local_port_range size; 0 unknown */
	struct obs_mx_group group[OBS_MX_GROUPS];
	size_t ngroups;
	uint64_t groups_total; /* distinct groups the census saw */
	bool groups_capped;    /* the census' own table was full */
	/* processes (the latest tick): most open fds first */
	struct obs_mx_proc proc[OBS_MX_PROCS];
	size_t nprocs;
	uint64_t procs_total; /* watched processes with a known fd count */
	uint64_t file_nr, file_max;
	bool files_known;
	/* failures since start: live from the kernel counters */
	struct obs_mx_fail fail[OBS_MX_FAILS];
	size_t nfails;
	/* request timing: live */
	bool requests_on;
	struct obs_mx_slot slot[OBS_MX_SLOTS];
	size_t nslots;
	/* findings that held in the latest interval */
	struct obs_mx_kind kind[OBS_MX_KINDS];
	size_t nkinds;
	/* the observer itself */
	int bpf_stats; /* kernel.bpf_stats_enabled: 1, 0, or -1 unreadable */
	struct obs_mx_prog prog[OBS_MX_PROGS];
	size_t nprogs;
	uint64_t lost_connections, lost_forensics, lost_requests, lost_findings;
	uint64_t scrapes;	     /* scrapes served before this one */
	double last_scrape_s;	     /* what the previous scrape took to collect and write */
	uint64_t http_refused;	     /* connections refused: too many clients */
	double uptime_s;
};

/* The stable finding kinds (docs/observer/findings.md), always exposed, 0 if idle. */
extern const char *const obs_mx_finding_kinds[];
extern const size_t obs_mx_nfinding_kinds;

/* The TCP state names of include/net/tcp_states.h ("established", ...); NULL for unused. */
const char *obs_mx_tcp_state(unsigned int s);

/* Write the whole exposition of s in format f into b (reset first). Returns 0 or -ENOMEM. */
int obs_mx_render(struct obs_mx_buf *b, enum obs_mx_format f, const struct obs_mx_snap *s);

#endif /* LOADLENS_OBSERVER_METRICS_METRICS_H */
