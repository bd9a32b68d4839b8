/* SPDX-License-Identifier: MIT */
/* --check: what this kernel offers the observer, verified by loading what the observer loads. */
#ifndef LOADLENS_CHECK_H
#define LOADLENS_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include "sources/reqtime_stats.h"

/*
 * Privilege, BTF, tracefs; then, with privilege, the observer's own plan and load on this kernel
 * (the same choices a run makes: tp_btf or raw_tp, tracepoints or trampolines for request timing,
 * the kfunc or helper reads), so a kernel whose verifier refuses a program fails here too; then
 * each feature with the mechanism it uses here, and every tracepoint the objects name. Text or
 * JSON (docs/observer.md, --check) on out. want: request timing's mechanism as a run would be
 * asked for it (LOADLENS_OBSERVER_TIMING; OFF: the best). Returns 0 when the observer can run
 * here, else 1.
 */
int obs_check(FILE *out, bool as_json, enum obs_reqtime_mech want);

#endif /* LOADLENS_CHECK_H */
