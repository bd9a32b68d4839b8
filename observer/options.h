/* SPDX-License-Identifier: MIT */
/* The observer's options: parsed and checked here, before anything is opened; the options
 * themselves are options.def's rows (options_table.h). */
#ifndef LOADLENS_OBSERVER_OPTIONS_H
#define LOADLENS_OBSERVER_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include "loadlens/observer.h"
#include "kernel/lean.h"
#include "kernel/systier.h"
#include "sources/targets.h"
#include "sources/reqtime_stats.h"
#include "options_table.h"

#define PROG "loadlens-observer"

struct obs_args {
	uint16_t ports[OBS_MAX_PORTS];
	size_t nports;
	bool all_ports;
	uint64_t interval_ns;
	uint64_t duration_ns; /* 0: until SIGINT/SIGTERM */
	const char *json_path;
	struct obs_target_spec targets; /* --pid, --children, --cgroup */
	const char *netns; /* --netns PATH|PID */
	const char *ndjson_path;
	const char *trace_path; /* request timing: sampled per-request CSV */
	uint64_t trace_every;
	bool no_requests; /* --no-requests: request timing off */
	bool no_tls_uprobes; /* --no-tls-uprobes: no uprobe on libssl (kTLS servers need none) */
	bool runq; /* request timing: run-queue wait of the serving processes */
	enum obs_systier_mode syscalls; /* --syscalls: when the syscall tracepoints are attached */
	bool arrivals_sampled; /* --arrivals sampled: sk_data_ready in windows only */
	enum obs_lean_mode lean; /* --lean: when the copy hook reads (observer/kernel/lean.h) */
	uint64_t max_procs;    /* --max-procs: processes whose fds are watched */
	const char *metrics;   /* --metrics ADDR:PORT: the Prometheus/OpenMetrics endpoint */
	/* the environment's switches (docs/observer.md), parsed once with the flags */
	bool payload_off;	    /* LOADLENS_OBSERVER_PAYLOAD=off */
	bool h2_headers_off;	    /* LOADLENS_OBSERVER_H2_HEADERS=off */
	uint64_t h2_frames;	    /* LOADLENS_OBSERVER_H2_FRAMES; 0: LL_H2_FRAMES */
	unsigned int detach;	    /* LOADLENS_OBSERVER_DETACH: OBS_REQTIME_DETACH_* hooks left off */
	int64_t payload_period_us;  /* LOADLENS_OBSERVER_PAYLOAD_PERIOD_US; -1: the default */
	uint64_t max_targets;	    /* LOADLENS_OBSERVER_MAX_TARGETS; 0: the map's own size */
	enum obs_reqtime_mech rt_mech;   /* LOADLENS_OBSERVER_TIMING; OFF: the best the kernel has */
	bool no_kfuncs;		    /* LOADLENS_OBSERVER_KFUNCS=off: read as if no kfunc existed */
	bool verbose;
	int check; /* --check: 1 text, 2 JSON */
};

/* Parse argv into a; --help and --version exit 0, bad input exits 64 with one line. */
void obs_args_parse(int argc, char **argv, struct obs_args *a);
/* --help's text: summary, usage, every option (options.def), EXAMPLES. */
void obs_options_usage(FILE *out);
/* Where a PATH or FLAG row puts its value: offsetof(struct obs_args, its field); 0 for OWN. */
size_t obs_option_field(enum obs_opt id);

#endif /* LOADLENS_OBSERVER_OPTIONS_H */
