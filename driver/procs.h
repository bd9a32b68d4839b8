/* SPDX-License-Identifier: MIT */
/*
 * Past one process's open-files limit: the fd budget of a run (RLIMIT_NOFILE raised to the hard
 * limit, and which wall stops it: the hard limit, fs.nr_open or fs.file-max), and -p N worker
 * processes that share -c, the rate and -n as shards of one run and are merged into one result
 * exactly as `loadlens-driver merge` merges shards.
 */
#ifndef LOADLENS_DRV_PROCS_H
#define LOADLENS_DRV_PROCS_H

#include <stddef.h>
#include <stdint.h>
#include "config/config.h"

/* The fds a run of cfg needs in one process holding `connections` of them. */
uint64_t drv_procs_fds_needed(const struct drv_config *cfg, uint64_t connections);

/*
 * Raise the soft RLIMIT_NOFILE to the hard limit (started as root, both up to what is needed,
 * before the privileges go). Returns the soft limit now (UINT64_MAX for unlimited).
 */
uint64_t drv_procs_raise_nofile(const struct drv_config *cfg);

/*
 * Processes for cfg with `limit` fds each: -p if given, else as few as hold -c. When the run
 * cannot fit (one process asked for, or the system-wide fs.file-max), one line in msg saying
 * which wall it is and how to go past it; else msg is empty, or a note when it fans out.
 */
uint64_t drv_procs_plan(const struct drv_config *cfg, uint64_t limit, char *msg, size_t len);

/* Pure: connection share of process i of n (the first c % n get one more). */
static inline uint64_t drv_procs_share(uint64_t c, uint64_t n, uint64_t i)
{
	return c / n + (i < c % n ? 1 : 0);
}

/*
 * Run cfg in cfg->procs worker processes (after the privilege drop) and report their merged
 * result: summary on stdout, the JSON into json_fd (>= 0). Returns the exit status.
 */
int drv_procs_run(const struct drv_config *cfg, int json_fd, uint64_t nofile_limit);

#endif /* LOADLENS_DRV_PROCS_H */
