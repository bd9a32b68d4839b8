/* SPDX-License-Identifier: MIT */
/*
 * What holds the syscall tier on (kernel/systier.c attaches it in AUTO mode): the sign of
 * exhaustion in one interval's snapshots (half a limit reached: fds, the file table, ports, an
 * accept queue; failures, listen overflows), or NULL. A pure function of struct obs_tick. And
 * the pressure feature, the last of an interval's, which switches the tier on that sign.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_PRESSURE_H
#define LOADLENS_OBSERVER_FEATURES_PRESSURE_H

#include "features/feature.h"

struct obs_kernel;
struct obs_tick;

const char *obs_pressure(const struct obs_tick *tk);
/* An accept queue past a quarter of its backlog (half is pressure): the handshakes' stamps are
 * stored from then on, so that the waits of the children queued when pressure attaches the tier
 * are found (systier.h, on_lead). Pure too. */
bool obs_pressure_queue_building(const struct obs_tick *tk);

struct obs_pressure_feature;
/* k: the objects, whose syscall tier (observer/kernel/systier.c) it switches. One allocation:
 * free() ends it. */
struct obs_pressure_feature *obs_pressure_new(const char *prog, struct obs_kernel *k);
extern const struct obs_feature obs_pressure_ops; /* self: its struct obs_pressure_feature */

#endif /* LOADLENS_OBSERVER_FEATURES_PRESSURE_H */
