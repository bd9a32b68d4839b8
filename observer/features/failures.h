/* SPDX-License-Identifier: MIT */
/* The failures feature (features/feature.h) over the failures object (kernel/failures_object.h). */
#ifndef LOADLENS_OBSERVER_FEATURES_FAILURES_H
#define LOADLENS_OBSERVER_FEATURES_FAILURES_H

#include "kernel/failures_object.h"
#include "features/feature.h"
#include "tick/snapshots.h"

struct obs_failures;

/* fail: the object, opened by observer/kernel/skeletons.c. One allocation: free() ends it. */
struct obs_failures *obs_failures_new(struct obs_fail *fail);
extern const struct obs_feature obs_failures_ops; /* self: its struct obs_failures */

#endif /* LOADLENS_OBSERVER_FAILURES_H */
