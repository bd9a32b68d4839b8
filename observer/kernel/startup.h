/* SPDX-License-Identifier: MIT */
/*
 * Privileged start-up shared by everything that loads BPF: file systems, prerequisite checks,
 * tracepoint probes, libbpf's log, and dropping privileges once programs are attached.
 *
 * Diagnostics are one line each, "prog: what is missing; what to do". A missing hard
 * prerequisite makes obs_startup_check() fail with -EPERM (privilege) or -ENOENT (kernel
 * feature); the caller exits LL_EXIT_USAGE (64).
 */
#ifndef LOADLENS_OBSERVER_STARTUP_H
#define LOADLENS_OBSERVER_STARTUP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define OBS_TRACEFS "/sys/kernel/tracing"
#define OBS_TRACEFS_OLD "/sys/kernel/debug/tracing"
#define OBS_BPFFS "/sys/fs/bpf"
#define OBS_VMLINUX_BTF "/sys/kernel/btf/vmlinux"

enum obs_startup_need {
	OBS_NEED_TRACEFS = 1 << 0, /* classic tracepoints will be attached */
	OBS_NEED_BPFFS = 1 << 1,   /* objects will be pinned (mounted if missing; else a note) */
};

/* Route libbpf's log to stderr when verbose, else nowhere. Call before any libbpf call. */
void obs_startup_libbpf_log(bool verbose);
/* err (libbpf's load or attach of an object, 0 or -errno) said in one line: "cannot <what>: ...;
 * rerun with -v for libbpf's log". Returns err. */
int obs_startup_libbpf_refused(const char *prog, const char *what, int err);

/*
 * Check privilege (root, or CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN) and BTF, and mount what
 * `needs` asks for when it is missing: in a mount namespace of the observer's own (slave to the
 * host's), so the host's mounts never change and the mount is gone at exit; one line says so.
 * Call it while the process has one thread. Prints one line per missing hard prerequisite.
 * Returns 0, -EPERM or -ENOENT.
 */
int obs_startup_check(const char *prog, unsigned int needs);

/* Does the effective capability set hold CAP_BPF + CAP_PERFMON (or CAP_SYS_ADMIN)? */
bool obs_startup_have_bpf_privilege(void);

/* The mounted tracefs ("/sys/kernel/tracing" or the old debugfs path), or NULL. */
const char *obs_startup_tracefs(void);
/* Find tracefs; mount: mount it where it is missing (needs privilege; a note says so). */
const char *obs_startup_tracefs_find(bool mount);

/* A classic tracepoint <category>/<name> exists in tracefs (needs a mounted tracefs). */
bool obs_startup_tracepoint_exists(const char *category, const char *name);

/* A tp_btf / raw_tp target: the kernel's BTF has the type btf_trace_<name>. */
bool obs_startup_btf_tracepoint_exists(const char *name);
/* The arguments a tp_btf / raw_tp target passes (its btf_trace_<name> less the context), or -1
 * where the kernel's BTF lacks it (sched_switch: 4 from 5.18, 3 before). */
int obs_startup_btf_tracepoint_nargs(const char *name);
/* The kernel's BTF has this enum (e.g. skb_drop_reason, 5.17). */
bool obs_startup_btf_enum_exists(const char *name);
/* The kernel's BTF describes this function (a kfunc, or one a trampoline can attach to). */
bool obs_startup_btf_func_exists(const char *name);
/* Can a BPF trampoline (fentry) attach to this kernel function? Loads and attaches a program that
 * does nothing, then closes it: 0, -ENOENT (no such function in the kernel's BTF), or the errno
 * the kernel gave (EPERM, ENOTSUPP/524 where trampolines are missing or refused). Needs privilege. */
int obs_startup_fentry_probe(const char *func);
/* Does the verifier know helper `func_id` in a tracing program of this attach type, attached at
 * the kernel's BTF `target` (a tp_btf's "btf_trace_NAME" typedef, an iterator's "bpf_iter_NAME"
 * function)? Loads a program that calls it and reads the verifier's log: false where it says
 * "invalid func" (a helper newer than the kernel) or "unknown func" (not allowed there, as
 * bpf_sk_storage_get in tracing programs before 5.11), true otherwise. Needs privilege; false without the target. */
bool obs_startup_tracing_helper_known(int func_id, int attach_type, const char *target);
/* Does the verifier take BPF_ATOMIC's fetching forms (compare-and-exchange: 5.12)? Loads a socket
 * filter that does one on its stack. Needs privilege; true where it cannot tell. */
bool obs_startup_atomics_known(void);

/*
 * Drop every capability (effective, permitted, inheritable, ambient; uid unchanged) and set
 * PR_SET_NO_NEW_PRIVS. verify(arg) runs while only the effective set is empty; if it fails
 * (an older kernel that checks privilege on every bpf() call) the effective set is restored,
 * the error returned, and the caller keeps working with its capabilities.
 */
int obs_startup_drop_privileges(int (*verify)(void *arg), void *arg);
/* The same, but the capabilities in `keep` (a mask of 1 << CAP_*) stay permitted and effective;
 * the bounding set is emptied too. */
int obs_startup_drop_privileges_keep(int (*verify)(void *arg), void *arg, uint64_t keep);

/*
 * This thread only (capabilities are per thread): its bounding set emptied (with CAP_SETPCAP),
 * its permitted and effective sets cut to `keep` (a mask of 1 << CAP_*, of what it has),
 * inheritable and ambient emptied, and PR_SET_NO_NEW_PRIVS. For a helper thread made while the process is privileged, before the
 * process drops privilege (keep CAP_SETUID and CAP_SETGID there: glibc applies the uid change
 * to every thread and aborts the process where one may not follow). Returns 0 or -errno.
 */
int obs_startup_thread_keep_caps(uint64_t keep);

/* The unprivileged user the observer runs as once attached: OBS_USER when it exists (the
 * package creates it), else nobody, else the overflow uid/gid 65534. */
#define OBS_USER "loadlens"
struct obs_user {
	uid_t uid;
	gid_t gid;
	char name[32];
};
int obs_startup_unprivileged_user(struct obs_user *u);

/*
 * obs_startup_drop_privileges_keep(), and between the bounding set and the final capability
 * sets, the uid, gid and supplementary groups change to u's (the permitted set kept across, then
 * cut to `keep`). Returns 0; 1 when verify() failed and the capabilities were given back (nothing
 * changed); or -errno from a later step, which cannot be undone: then the caller must exit.
 */
int obs_startup_drop_to_user(int (*verify)(void *arg), void *arg, uint64_t keep,
			     const struct obs_user *u);

/* Free what the checks cached (vmlinux BTF). */
void obs_startup_cleanup(void);

#endif /* LOADLENS_OBSERVER_STARTUP_H */
