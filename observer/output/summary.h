/* SPDX-License-Identifier: MIT */
/* The observer's output: live lines, the text summary and the JSON summary (docs/observer.md). */
#ifndef LOADLENS_OBSERVER_OUTPUT_SUMMARY_H
#define LOADLENS_OBSERVER_OUTPUT_SUMMARY_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "tick/snapshots.h"
#include "tick/tick.h"

struct obs_summary {
	const uint16_t *ports; /* nports == 0: every port */
	size_t nports;
	const struct obs_sockets_features *features;
	double elapsed_s; /* from attach to the final read */
	double self_cpu_s; /* the observer's own CPU (user + system, every thread), to the final read */
	double start_cpu_s; /* of which before it began observing (loading, checking, attaching) */
	const char *syscalls_mode; /* --syscalls: "auto", "on", "off" */
	double syscalls_share;	   /* share of the run the syscall tracepoints were attached */
	const char *syscalls_reason; /* the last sign of exhaustion that held them on, or NULL */
	uint64_t lost_forensics;	     /* the failures' and processes' lost events */
	struct obs_reqtime_lost lost_requests;  /* request timing's */
	uint64_t lost_requests_total;	     /* their lost events (obs_reqtime_lost_total) */
};

/* Every lost event of the run: the summary's "drops", the JSON's "drops" and "lost_events". */
uint64_t obs_summary_lost(const struct obs_summary *r, const struct obs_connections_snap *conn);

/* errno name ("EMFILE"), "E<n>" when unnamed, "other" for the last slot. */
const char *obs_summary_errno_name(unsigned int slot, char *buf, size_t len);

/* "tcp ports 80, 443", "every tcp port" (nports 0). */
void obs_summary_ports_text(const uint16_t *ports, size_t nports, char *buf, size_t len);
void obs_summary_live_header(FILE *out);
/* One line from the interval's snapshots: accepts and their queue wait (connections), sockets
 * and ports (sockstat), fds (processes), failures. Returns 0 or -ENOMEM. */
int obs_summary_live_line(FILE *out, const struct obs_tick *tk);
/* The text summary of the connections' totals (conn: the final tick's snapshot). */
int obs_summary_text(FILE *out, const struct obs_summary *r, const struct obs_connections_snap *conn);
/* The connection part of the JSON summary, into root (empty: its keys come first). 0 or -ENOMEM. */
int obs_summary_json_add(json_t *root, const struct obs_summary *r,
			 const struct obs_connections_snap *conn);

#endif /* LOADLENS_OBSERVER_OUTPUT_SUMMARY_H */
