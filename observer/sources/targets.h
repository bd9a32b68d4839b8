/* SPDX-License-Identifier: MIT */
/*
 * What the observer watches besides ports: processes (--pid, --children), a cgroup (--cgroup),
 * and the network namespace their sockets live in. Resolved while privileged, before attach.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_TARGETS_H
#define LOADLENS_OBSERVER_SOURCES_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rules/snapshot.h"

struct obs_fditer;

#define OBS_MAX_PIDS 16

struct obs_target_spec {
	uint32_t pids[OBS_MAX_PIDS]; /* --pid, in order */
	size_t npids;
	const char *cgroup; /* --cgroup PATH: absolute, or relative to the cgroup2 mount */
	bool children;
};

struct obs_targets {
	uint32_t pids[OBS_MAX_PIDS];
	char comms[OBS_MAX_PIDS][16];
	char exes[OBS_MAX_PIDS][256]; /* readlink /proc/PID/exe, to find a restarted target */
	uint64_t exe_ino[OBS_MAX_PIDS]; /* the executable, from the task iterator (fdit) */
	uint32_t exe_dev[OBS_MAX_PIDS];
	unsigned long long starts[OBS_MAX_PIDS]; /* start time (clock ticks after boot) */
	size_t npids;
	uint64_t cgroup_id;	/* 0: no --cgroup */
	uint32_t cgroup_level;
	char cgroup_path[512];	/* absolute path of the cgroup directory */
	uint32_t netns;		/* inode of the sockets' network namespace */
	int netns_fd;		/* open /proc/PID/ns/net of the first target, or -1: our own */
	char netns_from[64];	/* "pid 1234", "cgroup", "observer" */
	/* set by the processes feature: executables without /proc/PID/exe (after the drop) */
	struct obs_fditer *fdit;
};

/*
 * Resolve spec: every pid must exist (else -ESRCH, one line printed), the cgroup must be a
 * cgroup v2 directory (-ENOENT). Opens the target's netns while privileged. Returns 0 or -errno.
 */
int obs_targets_resolve(const char *prog, const struct obs_target_spec *spec,
			struct obs_targets *t);
void obs_targets_close(struct obs_targets *t);

/* Live pids of the target cgroup (cgroup.procs), up to max; returns how many. */
size_t obs_targets_cgroup_pids(const struct obs_targets *t, uint32_t *out, size_t max);

/* A process other than `old` runs the same executable as target i: its pid, or 0. */
uint32_t obs_targets_find_restart(const struct obs_targets *t, size_t i);
/* Re-read target i's executable while it lives (it may have exec'd since it was named). */
void obs_targets_refresh(struct obs_targets *t, size_t i);

/* The live descendants of roots (children, theirs, ...; /proc/PID/stat), up to max, into out;
 * returns how many. */
size_t obs_targets_pid_descendants(const uint32_t *roots, size_t nroots, uint32_t *out, size_t max);
/* Is pid alive (and not a zombie)? */
bool obs_targets_pid_alive(uint32_t pid);
/* comm of pid into buf ("?" if gone). */
const char *obs_targets_pid_comm(uint32_t pid, char *buf, size_t len);
/* The --pid targets' children now (/proc/PID/task/TID/children), up to max, into out; returns
 * how many. */
size_t obs_targets_children(const struct obs_targets *t, struct obs_snap_kid *out, size_t max);

#endif /* LOADLENS_OBSERVER_SOURCES_TARGETS_H */
