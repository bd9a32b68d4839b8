/* SPDX-License-Identifier: MIT */
/*
 * One run on the main thread: start the workers, watch for SIGINT/SIGTERM, print the live line,
 * stop the workers when they are all done or on a signal, join them and merge their stats.
 */
#ifndef LOADLENS_DRV_RUN_H
#define LOADLENS_DRV_RUN_H

#include <stdint.h>
#include "results/result.h"

struct drv_config;

/* 0, or a negative errno if the run could not start. res is filled either way once init'd. */
int drv_run(const struct drv_config *cfg, struct drv_result *res);

#endif /* LOADLENS_DRV_RUN_H */
