/* SPDX-License-Identifier: MIT */
/*
 * The syscall tier: the observer's programs on syscalls:sys_exit_* tracepoints (accept-queue wait
 * per connection, accept() errors, EMFILE/ENFILE/EADDRINUSE by syscall), attached only while
 * they are wanted.
 *
 * Why: once any syscall tracepoint is registered, the kernel sends every syscall of every task on
 * the host through its slow path (SYSCALL_WORK_SYSCALL_TRACEPOINT), whether or not a program runs
 * for that syscall. On a hello-world server that alone costs more than the whole 3% overhead
 * budget (BENCHMARKS.md). Everything the observer must count exactly is counted without it.
 *
 * Modes (--syscalls):
 *   on    attached for the whole run
 *   off   never attached
 *   auto  attached for one interval in every OBS_SYSTIER_SAMPLE_EVERY (a sample of accept-queue
 *         waits; with obs_systier_brief_samples(), its first OBS_SYSTIER_SAMPLE_MS only), and for
 *         as long as something nears exhaustion: a target's fds or the
 *         system's files past half their limit, a port group past half the range, connect()
 *         failing for want of a port, the accept queue past half its backlog, listen overflows
 *         or drops; it stays OBS_SYSTIER_LINGER intervals after the last such sign.
 *
 * Attaching needs privilege the observer gives up after start, so in auto mode a forked child
 * keeps CAP_BPF and CAP_PERFMON only and does nothing but attach and detach these programs when
 * the observer asks over a socketpair. It runs as the observer's unprivileged user too: the
 * classic tracepoints' ids are read from tracefs (root's) before the fork, and it attaches them
 * by id with perf_event_open(). It exits when the observer does.
 *
 * The requests feature (observer/features/requests.c) uses a second one, in AUTO mode and
 * never under pressure, for --arrivals sampled: request timing's sk_data_ready, attached one interval in ten.
 */
#ifndef LOADLENS_OBSERVER_SYSTIER_H
#define LOADLENS_OBSERVER_SYSTIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OBS_SYSTIER_MAX_PROGS 16
#define OBS_SYSTIER_SAMPLE_EVERY 10
#define OBS_SYSTIER_LINGER 5
#define OBS_SYSTIER_SAMPLE_MS 250

enum obs_systier_mode {
	OBS_SYSTIER_AUTO = 0,
	OBS_SYSTIER_ON,
	OBS_SYSTIER_OFF,
};

struct bpf_program;
struct obs_systier;

/* AUTO mode's decisions, one a tick (obs_systier_plan()): pure, unit-tested. */
struct obs_systier_state {
	bool attached;	   /* by a '1' (a brief sample leaves it false) */
	bool brief;	   /* a sample lasts OBS_SYSTIER_SAMPLE_MS, not the interval */
	unsigned int ticks; /* this one included */
	unsigned int linger; /* intervals left to stay after the last sign of pressure */
};
struct obs_systier_step {
	bool want;	    /* attached for the coming interval */
	bool brief;	    /* ... for its first OBS_SYSTIER_SAMPLE_MS only */
	bool lead;	    /* on_lead's: an attach is at most an interval away (a sample's, or pressure
			     * soon), or one just ended */
	unsigned int linger; /* the state's next */
};
struct obs_systier_step obs_systier_plan(const struct obs_systier_state *st, bool pressure,
					 bool soon);

/* "auto", "on", "off" -> mode; -1 if none of them. */
int obs_systier_mode_parse(const char *s);
const char *obs_systier_mode_name(enum obs_systier_mode m);

/*
 * Take the programs (loaded, not attached). ON attaches them now; AUTO forks the attaching child
 * (call while still privileged, before obs_startup_drop_privileges). Returns NULL and sets errno;
 * prints one line.
 */
struct obs_systier *obs_systier_new(const char *prog, enum obs_systier_mode mode,
				    struct bpf_program *const *progs, size_t n);
void obs_systier_free(struct obs_systier *t);
/* AUTO mode: a sample is the first OBS_SYSTIER_SAMPLE_MS of its interval, not all of it (the
 * child detaches on its own; a sign of pressure meanwhile attaches for good as ever). */
void obs_systier_brief_samples(struct obs_systier *t);
/* Call fn(arg) just before each attach (AUTO mode). */
void obs_systier_on_attach(struct obs_systier *t, void (*fn)(void *), void *arg);
/*
 * AUTO mode: fn(arg, true) an interval before a sample attaches, while obs_systier_tick() is told
 * pressure may come, and just before any other attach; fn(arg, false) an interval after the tier
 * detached: what the tier's programs read must
 * be written from a little before they are attached (connection tracking's handshake stamps, for
 * the accepts of a sample whose handshake came before it).
 */
void obs_systier_on_lead(struct obs_systier *t, void (*fn)(void *, bool), void *arg);

/*
 * AUTO mode, programs it holds by mask instead (the lean hooks, observer/kernel/lean.h): ask the
 * child to have exactly those of mask attached (bit i: the i-th program; at most 7), attaching
 * before it detaches. wait_ms 0: do not wait (an error surfaces at the next call); else wait that
 * long for this answer. 0 or a negative errno.
 */
#define OBS_SYSTIER_MASK 0x80
int obs_systier_want(struct obs_systier *t, unsigned int mask, int wait_ms);

/* One interval passed; `pressure` names a sign of exhaustion (NULL: none; features/pressure.h),
 * `soon` a sign that may become one (on_lead's true, no attach). In AUTO mode this attaches or
 * detaches the tier for the next interval. Returns 0 or a negative errno. */
int obs_systier_tick(struct obs_systier *t, const char *pressure, bool soon);
bool obs_systier_attached(const struct obs_systier *t);
enum obs_systier_mode obs_systier_mode(const struct obs_systier *t);
/* Share of the run so far the tier was attached, 0..1, and the last sign of exhaustion that held
 * it on (NULL: none in the run, samples only). */
double obs_systier_share(const struct obs_systier *t);
const char *obs_systier_reason(const struct obs_systier *t);

#endif /* LOADLENS_OBSERVER_SYSTIER_H */
