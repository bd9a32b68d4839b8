/* SPDX-License-Identifier: MIT */
/*
 * What holds the syscall tier on (kernel/systier.c attaches it in AUTO mode): the sign of
 * exhaustion in one interval's snapshots (half a limit reached: fds, the file table, ports, an
 * accept queue; failures, listen overflows), or NULL. A pure function of struct obs_tick.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_PRESSURE_H
#define LOADLENS_OBSERVER_FEATURES_PRESSURE_H

struct obs_tick;
const char *obs_pressure(const struct obs_tick *tk);

#endif /* LOADLENS_OBSERVER_FEATURES_PRESSURE_H */
