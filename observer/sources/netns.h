/* SPDX-License-Identifier: MIT */
/*
 * Which network namespace the observer watches: --netns PATH|PID, and whether a process lives in
 * another one (the `netns_outside` note: its sockets are not the watched namespace's, so the
 * kernel filters leave them out).
 */
#ifndef LOADLENS_OBSERVER_SOURCES_NETNS_H
#define LOADLENS_OBSERVER_SOURCES_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sources/targets.h"

/*
 * --netns SPEC: a PID (its /proc/PID/ns/net) or a path to a network namespace file (such as
 * /run/netns/NAME). Replaces t's namespace (inode, open fd for sock_diag and sysctls, and the
 * banner's "from"). Returns 0, or -errno after one line on stderr.
 */
int obs_netns_apply(const char *prog, const char *spec, struct obs_targets *t);

/* Inode number of pid's network namespace (pid 0: the observer's own); 0 if unknown. */
uint32_t obs_netns_of(uint32_t pid);

/* pid lives in a network namespace other than `watched` (false if it cannot be told). */
bool obs_netns_outside(uint32_t pid, uint32_t watched);

/* One note on stderr for each --pid target outside t's namespace; returns how many. */
size_t obs_netns_check_targets(const char *prog, const struct obs_targets *t);

#endif /* LOADLENS_OBSERVER_SOURCES_NETNS_H */
