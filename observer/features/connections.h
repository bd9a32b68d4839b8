/* SPDX-License-Identifier: MIT */
/*
 * The connection feature: accepted connections, handshakes, accept errors and accept-queue wait
 * (bpf/sockets.bpf.c's counters, with the accepted count, from the tick's read phase:
 * sources/tick_reader.h). It owns the run's connection snapshots: the interval's delta.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H
#define LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H

#include "kernel/sockets.h"
#include "features/feature.h"
#include "tick/snapshots.h"


struct obs_connections;
struct obs_kernel;

/* k: the objects (the connection side, the syscall tier for the summary); ports: the watched
 * ports (nports 0: every port). One allocation: free() ends it (features/feature.h). */
struct obs_connections *obs_connections_new(const char *prog, struct obs_kernel *k,
					    const uint16_t *ports, size_t nports);
/* The feature's contract (feature.h). */
extern const struct obs_feature obs_connections_ops; /* self: its struct obs_connections */

#endif /* LOADLENS_OBSERVER_FEATURES_CONNECTIONS_H */
