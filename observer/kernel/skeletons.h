/* SPDX-License-Identifier: MIT */
/*
 * The observer's two BPF objects and the one order they are brought up in: open both
 * (bpf/sockets.bpf.c: connections and request timing, owned by observer/kernel/sockets.c;
 * bpf/failures.bpf.c: failures, drops, resets, process events, owned by
 * observer/features/failures.c) -> each feature's plan (what to load, rodata) -> load (sockets
 * first: failures reuses its "targets" and "errprocs" maps) -> what must be read before attach
 * (the listen queues) -> attach -> the syscall tier (observer/kernel/systier.c).
 */
#ifndef LOADLENS_OBSERVER_KERNEL_SKELETONS_H
#define LOADLENS_OBSERVER_KERNEL_SKELETONS_H

#include <stdbool.h>
#include "kernel/sockets.h"
#include "kernel/failures_object.h"
#include "kernel/systier.h"

struct obs_kernel;

/* A feature's part of the plan: configure the opened objects before load. */
struct obs_kernel_plan {
	int (*plan)(void *self, struct obs_kernel *k); /* 0, or a negative errno (printed) */
	void *self;
};

struct obs_kernel_start_opts {
	const struct obs_kernel_plan *plans; /* in order */
	size_t nplans;
	/* after load, before attach: reads the programs must not race (NULL: none). Returns why
	 * the syscall tier must stay on (accepts then counted at accept() only), or NULL. */
	const char *(*before_attach)(void *arg, struct obs_kernel *k);
	void *arg;
	enum obs_systier_mode syscalls;
};

/* Open both objects (the connection and failure programs plan their own part). NULL and errno
 * (ENOENT: a hard prerequisite missing, printed) on failure. */
struct obs_kernel *obs_kernel_open(const char *prog, const struct obs_sockets_opts *copts,
				   bool children);
/* The features' plans, then load both objects (the verifier checks every program): 0 or -errno
 * (printed). obs_kernel_start() begins with it; --check stops there. */
int obs_kernel_load(struct obs_kernel *k, const struct obs_kernel_plan *plans, size_t nplans);
/* The features' plans, load, before_attach, attach, then the syscall tier. 0 or -errno. */
int obs_kernel_start(struct obs_kernel *k, const struct obs_kernel_start_opts *o);
void obs_kernel_free(struct obs_kernel *k);

struct obs_sockets *obs_kernel_conn(struct obs_kernel *k);
struct obs_fail *obs_kernel_fail(struct obs_kernel *k);
struct obs_systier *obs_kernel_systier(struct obs_kernel *k);

#endif /* LOADLENS_OBSERVER_KERNEL_SKELETONS_H */
