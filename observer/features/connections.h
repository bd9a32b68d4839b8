/* SPDX-License-Identifier: MIT */
/*
 * The connection feature: accepted connections, handshakes, accept errors and accept-queue wait
 * (observer/kernel/sockets.c reads bpf/sockets.bpf.c's counters). It owns the run's connection
 * snapshots: the listen pass and the counters -> accepted -> the interval's delta.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H
#define LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H

#include "sources/census.h"
#include "kernel/sockets.h"
#include "features/feature.h"
#include "tick/snapshots.h"


struct obs_connections;
struct obs_kernel;

/* k: the objects (the connection side, the syscall tier for the summary); census: the sock_diag
 * context for the listen passes (NULL: accepts are counted at accept()); ports: the watched
 * ports (nports 0: every port). One allocation: free() ends it (features/feature.h). */
struct obs_connections *obs_connections_new(const char *prog, struct obs_kernel *k,
					    struct obs_census_ctx *census, const uint16_t *ports,
					    size_t nports);
/* Before attach: the listen queues' children are the base of accepted. Returns why the syscall
 * tier must stay on (no listen pass), or NULL. */
const char *obs_connections_base(struct obs_connections *c);
/* The feature's contract (feature.h). */
extern const struct obs_feature obs_connections_ops; /* self: its struct obs_connections */

#endif /* LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H */
