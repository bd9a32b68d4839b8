/* SPDX-License-Identifier: MIT */
/*
 * The connection feature: accepted connections, handshakes, accept errors and accept-queue wait
 * (observer/features/conn.c reads bpf/sockets.bpf.c's counters). It owns the run's connection
 * snapshots: the listen pass and the counters -> accepted -> the interval's delta.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H
#define LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H

#include "census.h"
#include "conn.h"
#include "feature.h"
#include "report.h"

struct obs_connections;

/* conn: the loaded object's connection side; lcen: the sock_diag context for the listen
 * passes (NULL: accepts are counted at accept()). */
struct obs_connections *obs_connections_new(const char *prog, struct obs_conn *conn,
					    struct obs_census_ctx *lcen);
void obs_connections_free(struct obs_connections *c);
/* Before attach: the listen queues' children are the base of accepted. Returns why the syscall
 * tier must stay on (no listen pass), or NULL. */
const char *obs_connections_base(struct obs_connections *c);
/* What the summary says beyond the counters (the syscall tier, the run's lost events). */
struct obs_report *obs_connections_report(struct obs_connections *c);
/* The feature's contract (feature.h). */
struct obs_feature obs_connections_feature(struct obs_connections *c);

#endif /* LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H */
