/* SPDX-License-Identifier: MIT */
/*
 * The socket programs (bpf/sockets.bpf.c) from userspace, their one owner: choose what to attach,
 * load, attach, and read and write the maps (the connection counters as totals, the "targets"
 * map, request timing's maps for observer/sources/reqtime_stats.c and payload.c). Request timing's
 * plan (observer/kernel/reqtime_mech.c) configures the object between obs_sockets_open() and
 * obs_kernel_start().
 */
#ifndef LOADLENS_OBSERVER_KERNEL_SOCKETS_H
#define LOADLENS_OBSERVER_KERNEL_SOCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/hist.h"
#include "loadlens/ll_hist.h"
#include "loadlens/observer.h"

struct obs_sockets_opts {
	const uint16_t *ports; /* target ports; nports == 0 means every port (host-wide) */
	size_t nports;
	bool no_tp_btf; /* use the raw_tp fallback for inet_sock_set_state even if tp_btf works */
	bool no_kfuncs; /* read kernel objects as if the kernel had no bpf_rdonly_cast (tests) */
	/* further targets (observer/sources/targets.h); 0 / NULL = off */
	uint32_t netns;		/* sockets of this network namespace only (its inode number) */
	const uint32_t *pids;	/* processes (tgids) named by --pid: the "targets" map */
	size_t npids;
	uint64_t cgroup_id;	/* processes in this cgroup v2 or below it */
	uint32_t cgroup_level;	/* its depth below the cgroup2 root */
	uint64_t max_targets;	/* a smaller "targets" map (tests of a full one); 0: OBS_MAX_TARGETS */
};

/*
 * opts's targets (ports, netns, pids, cgroup) into the read-only data rd of a skeleton built on
 * bpf/observe.bpf.h (its targ_* variables), before it loads.
 */
#define OBS_SET_TARGETS(rd, opts)                                                               \
	do {                                                                                    \
		size_t i_;                                                                      \
                                                                                                \
		for (i_ = 0; i_ < (opts)->nports; i_++)                                         \
			(rd)->targ_port_bits[(opts)->ports[i_] >> 6] |=                         \
				1ULL << ((opts)->ports[i_] & 63);                               \
		(rd)->targ_nports = (uint32_t)(opts)->nports;                                   \
		(rd)->targ_netns = (opts)->netns;                                               \
		(rd)->targ_by_pid = (opts)->npids > 0;                                          \
		(rd)->targ_cgroup_id = (opts)->cgroup_id;                                       \
		(rd)->targ_cgroup_level = (opts)->cgroup_level;                                 \
	} while (0)

/* The architectures whose system call registers and calling convention the programs read
 * (bpf/observe.bpf.h's ll_syscall(), the libssl uprobes of bpf/sockets.bpf.c): elsewhere payload
 * sampling, HTTP/2's and TLS's bytes and TLS plaintext are off, and a note says so. */
#if defined(__x86_64__) || defined(__aarch64__) || defined(__powerpc64__)
#define OBS_SYSCALL_REGS 1
#else
#define OBS_SYSCALL_REGS 0
#endif

/* The kernel's THREAD_SIZE where the programs find the user registers on the task's kernel stack
 * without bpf_task_pt_regs (bpf/observe.bpf.h's ll_stack_regs(): x86-64 and arm64, without
 * KASAN); 0: not there. */
#if defined(__x86_64__) || defined(__aarch64__)
#define OBS_THREAD_SIZE 16384u
#else
#define OBS_THREAD_SIZE 0u
#endif

/* What got attached; NULL strings mean "off". */
struct obs_sockets_features {
	bool accept4;	     /* sys_exit_accept4 exists: the syscall tier can time accepts */
	bool accept;	     /* accept() as well as accept4() */
	const char *set_state; /* "tp_btf", "raw_tp" or NULL: handshakes and queue wait */
	const char *reads;     /* how kernel objects are read: "bpf_rdonly_cast" (6.2+, direct
				* loads) or "bpf_probe_read_kernel" */
	const char *sk_state;  /* where a socket's own request state is kept: "sk_storage" (5.11+
				* in tracing programs) or "hash" (bounded, by the socket's address) */
	bool user_regs;	       /* bpf_task_pt_regs (5.15), or the kernel stack's saved registers
				* (stack_regs), and OBS_SYSCALL_REGS: a read's or write's user
				* buffer */
	bool stack_regs;       /* the user registers read from the task's kernel stack */
	bool compat;	       /* the programs built for kernels before 5.12 (sockets_compat) */
};

/* Totals since load, summed over CPUs (WAIT_MAX_NS: the max over CPUs). */
struct obs_sockets_stats {
	uint64_t ctr[OBS_CTR_MAX];
	uint64_t errnos[OBS_ERRNO_SLOTS]; /* by errno; the last slot holds every larger errno */
	uint64_t wait[LL_HIST_BUCKETS];	  /* accept-queue wait, by ll_hist_bucket() */
	uint64_t moves[OBS_STATE_MOVES];  /* [s] moves into TCP state s, [16 + s] out of it */
	uint64_t missed;		  /* program runs the kernel skipped (recursion) */
	/* 1 + the accept() calls for which wait[] was read a tick after they stopped moving:
	 * wait[] is then whole for them, and obs_sockets_read() keeps it (0: not yet) */
	uint64_t wait_settled;
};

/* The target listeners' accept queues, from a sock_diag census (observer/sources/census.c). */
struct obs_listen_queue {
	uint64_t queued;   /* children waiting in all of them */
	uint32_t qlen_max; /* the fullest one: its queue length */
	uint32_t backlog;  /* and its backlog */
	bool ok;	   /* false: not read (no census) */
};

struct obs_sockets;
struct sockets_bpf;
struct bpf_program;

/*
 * Probe and open. Prints one line for each missing hard prerequisite (then errno is ENOENT) and a
 * note for each optional feature switched off. Returns NULL and sets errno. Needs
 * obs_startup_check(prog, OBS_NEED_TRACEFS) first.
 */
struct obs_sockets *obs_sockets_open(const char *prog, const struct obs_sockets_opts *opts);
/* The object, for observer/kernel/ alone: request timing's plan (reqtime_mech.c) configures its
 * programs before load, --check (check.c) counts them. Its maps are read here only. */
struct sockets_bpf *obs_sockets_skel(struct obs_sockets *c);
/* Load (and fill the targets map); then attach everything but the syscall tier. Each returns 0
 * or a negative errno (printed). observer/kernel/skeletons.c calls them in order. */
int obs_sockets_load(struct obs_sockets *c, const char *prog, const struct obs_sockets_opts *opts);
int obs_sockets_attach(struct obs_sockets *c, const char *prog);
void obs_sockets_free(struct obs_sockets *c);
/* The syscall tier's programs of this object into out[2]; returns how many. */
size_t obs_sockets_tier_progs(struct obs_sockets *c, struct bpf_program **out);
/* Accepts can only be counted at accept() (a process filter alone, or no state tracepoint). */
bool obs_sockets_by_calls(const struct obs_sockets *c);
/* The listen queues before obs_kernel_start() attached anything: their children will be accepted
 * without a handshake we see. Without a base, accepts are counted at accept(). */
void obs_sockets_base(struct obs_sockets *c, const struct obs_listen_queue *q);
/* Set st->ctr[OBS_CTR_ACCEPTED] (and the longest queue seen) from st's counters and the listen
 * queues q read just before st (NULL or !q->ok: count accept() calls instead). */
void obs_sockets_accepted(struct obs_sockets *c, struct obs_sockets_stats *st,
		       const struct obs_listen_queue *q);

const struct obs_sockets_features *obs_sockets_features(const struct obs_sockets *c);
/* Read all counters into st, which holds the previous read of the same caller (or zeros): the
 * accept-queue wait histogram (4,096 per-CPU buckets, the largest read of a tick) is read again
 * only while accept() calls move, and once after. Returns 0 or a negative errno. */
int obs_sockets_read(struct obs_sockets *c, struct obs_sockets_stats *st);
/* The state moves alone (one map read): taken just before and after a census, so that the moves
 * during it bound how far the census can be from one instant. Returns 0 or a negative errno. */
int obs_sockets_read_moves(struct obs_sockets *c, uint64_t moves[OBS_STATE_MOVES]);
/* Names of the attached programs, comma separated (for the "observing" line). */
const char *obs_sockets_attached(const struct obs_sockets *c);
/* The "targets" and "errprocs" maps, which failures.bpf.c shares (NULL if name is unknown). Valid
 * after obs_kernel_start(). */
struct bpf_map *obs_sockets_map(const struct obs_sockets *c, const char *name);
/* pid becomes a target (the "targets" map; only_new: not if it is one already). 0, or -1 and
 * errno (E2BIG: the map is full; EEXIST). */
/* A read that must work after the privilege drop (obs_startup_drop_to_user()'s check): 0 or
 * -errno. */
int obs_sockets_verify(void *c);
int obs_sockets_target_set(struct obs_sockets *c, uint32_t pid, const struct obs_target *t,
			bool only_new);

/* Request timing's and payload sampling's maps of this object, for observer/sources/reqtime_stats.c
 * and payload.c: per-CPU arrays (obs_bpfread_percpu()'s layout), the histograms memory-mapped
 * read-only (NULL and errno on failure), the --trace ring buffer, the constants. */
enum obs_sockets_percpu { OBS_SOCKETS_RT_GLOBAL, OBS_SOCKETS_RT_RUNQ, OBS_SOCKETS_PL_CTRS };
int obs_sockets_read_percpu(struct obs_sockets *c, enum obs_sockets_percpu m, uint32_t n, int ncpu,
			 size_t words, uint64_t *buf, size_t len);
struct rt_rec;
const volatile struct rt_rec *obs_sockets_recs_map(struct obs_sockets *c, size_t len);
void obs_sockets_recs_unmap(const volatile struct rt_rec *recs, size_t len);
int obs_sockets_trace_fd(struct obs_sockets *c);
/* The ring buffer of the server's HTTP/2 header blocks (bpf/req_h2.bpf.h, "h2_hb"). */
int obs_sockets_h2_hb_fd(struct obs_sockets *c);
/* Its reader's flag, "asleep: wake me" (the BPF side's h2_hb_idle). */
volatile uint32_t *obs_sockets_h2_hb_idle(struct obs_sockets *c);
/* Its slots' h2_hb_quiet flags (RT_MAX_SLOTS): their blocks read in the kernel. */
volatile uint8_t *obs_sockets_h2_hb_quiet(struct obs_sockets *c);
uint32_t obs_sockets_trace_every(const struct obs_sockets *c);
/* The port the BPF side gave dynamic slot pair i (--pid/--cgroup without --port), 0: none. */
uint16_t obs_sockets_dyn_port(const struct obs_sockets *c, size_t i);
/* The "foreign" map (--pid/--cgroup: who first read server-side sockets the targets did not),
 * at most max entries in map order. Returns how many. */
struct rt_foreign_key;
struct rt_foreign;
size_t obs_sockets_foreign(struct obs_sockets *c, struct rt_foreign_key *keys,
			   struct rt_foreign *vals, size_t max);
/* A sampled-arrivals window opens (observer/kernel/systier.c's hook). */
void obs_sockets_arrival_window(struct obs_sockets *c);
/* The BPF side's lean_marks byte (after load): the writes leave marks for the copy hook. */
/* Its lean_solo byte (the copy hook alone) and lean_udp_socks (the UDP pass's count) too. */
void obs_sockets_lean_bss(struct obs_sockets *c, volatile uint8_t **marks, volatile uint8_t **solo,
			  volatile uint32_t **udp_socks);
/* The BPF side's handshake_stamps byte (after load): handshakes store their time for the accept
 * exits (the syscall tier) to find. */
volatile uint8_t *obs_sockets_handshake_stamps(struct obs_sockets *c);
bool obs_sockets_payload_on(const struct obs_sockets *c);
uint64_t obs_sockets_payload_period_ns(const struct obs_sockets *c);

/* st = a - b (counter by counter; WAIT_MAX_NS is a's). */
void obs_sockets_stats_sub(struct obs_sockets_stats *st, const struct obs_sockets_stats *a,
			const struct obs_sockets_stats *b);
/* The wait histogram of st as an ll_hist, with its exact sum and max. */
void obs_sockets_wait_hist(const struct obs_sockets_stats *st, struct ll_hist *h);
/* The connection programs' drops (unresolved fd, skipped runs). */
uint64_t obs_sockets_drops(const struct obs_sockets_stats *st);

#endif /* LOADLENS_OBSERVER_KERNEL_SOCKETS_H */
