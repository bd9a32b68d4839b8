// SPDX-License-Identifier: MIT
/*
 * bpf/sockets.bpf.c's one owner: attach plan, load, attach, and every read and write of its maps
 * (the connection counters, the "targets" map, request timing's and payload sampling's counters
 * for reqtime_stats.c and payload.c). Request timing's plan (observer/kernel/reqtime_mech.c)
 * configures the same object between open and load.
 */
#include <errno.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "kernel/bpfread.h"
#include "kernel/sockets.h"
#include "kernel/startup.h"
#include "loadlens/reqtime.h" /* types of the skeleton's bss (request timing) */
#include "sockets.skel.h"
#include "sockets_compat.skel.h"

struct obs_sockets {
	struct sockets_bpf *skel;
	struct obs_sockets_features features;
	bool by_calls;		/* accepts counted at accept() (--pid/--cgroup): the syscall
				 * tier stays attached */
	bool queued0_set;	/* queued0 holds the listeners' queues at start */
	uint64_t queued0;
	uint64_t qlen_max, backlog; /* longest accept queue a census saw, and its backlog */
	int ncpu;
	uint64_t *percpu; /* scratch: LL_HIST_BUCKETS x ncpu values (>= one block per CPU) */
	char attached[256];
};

const struct obs_sockets_features *obs_sockets_features(const struct obs_sockets *c)
{
	return &c->features;
}

const char *obs_sockets_attached(const struct obs_sockets *c)
{
	return c->attached;
}

static void attached_add(struct obs_sockets *c, const char *what)
{
	size_t len = strlen(c->attached);

	snprintf(c->attached + len, sizeof(c->attached) - len, "%s%s", len ? ", " : "", what);
}

/* A socket's own request state (bpf/req.bpf.h, ll_sk_hash): its sk_storage where tracing programs
 * may use it (5.11), else bounded hashes by the socket's address, emptied as sockets are destroyed
 * (a trampoline on inet_sock_destruct: 5.5 with BTF, as the request timing before 6.3 needs). */
#define SK_HASH_TCP 65536 /* TCP sockets: those whose table entry another socket holds, or every
			   * timed one where no compare-and-exchange claims an entry (5.12) */
#define SK_HASH_UDP 1024  /* UDP sockets that read requests (4.3 kB each) */
#define SK_HASH_H2 16384  /* HTTP/2 connections */

/* The programs as this kernel takes them: sockets.bpf.o, or before 5.12 (no BPF_ATOMIC fetching
 * forms, which the kernel refuses anywhere in a program, nor pointer arguments of global
 * functions) the same source built as sockets_compat.bpf.o (bpf/observe.bpf.h, LL_PRE_5_12), opened
 * through this skeleton: the two are laid out alike (tests/unit/test_sockets_compat.c). */
static struct sockets_bpf *skel_open(bool compat)
{
	struct sockets_bpf *obj;
	int err;

	if (!compat)
		return sockets_bpf__open();
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return NULL;
	err = sockets_bpf__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = sockets_compat_bpf__elf_bytes(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	}
	if (err) {
		sockets_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

static void sk_state(struct obs_sockets *c, const char *prog)
{
	struct sockets_bpf *s = c->skel;
	bool storage = obs_startup_tracing_helper_known(BPF_FUNC_sk_storage_get, BPF_TRACE_RAW_TP,
						"btf_trace_inet_sock_set_state");

	s->rodata->targ_atomics = !c->features.compat;
	if (storage && s->rodata->targ_atomics) {
		bpf_program__set_autoload(s->progs.handle_inet_sock_destruct, false);
		c->features.sk_state = "sk_storage";
		return;
	}
	/* (5.11 has the storage but not the atomics: the hash, inserted atomically, for both) */
	s->rodata->ll_sk_hash = 1;
	bpf_map__set_max_entries(s->maps.tcp_socks_hash, SK_HASH_TCP);
	bpf_map__set_max_entries(s->maps.udp_socks_hash, SK_HASH_UDP);
	bpf_map__set_max_entries(s->maps.h2_conns_hash, SK_HASH_H2);
	c->features.sk_state = "hash";
	if (!storage)
		ll_warn(prog, "note: tracing programs here have no socket storage (bpf_sk_storage_get: "
			      "5.11): request state of at most %d TCP sockets, %d UDP sockets and %d "
			      "HTTP/2 connections at once, in hashes by socket (a socket past them goes "
			      "untimed, counted)", SK_HASH_TCP, SK_HASH_UDP, SK_HASH_H2);
	if (!s->rodata->targ_atomics)
		ll_warn(prog, "note: no atomic compare-and-exchange here (BPF_ATOMIC: 5.12): TCP request "
			      "state in a hash by socket (at most %d at once); UDP datagrams read by "
			      "several threads of one socket at once, and ports or processes first seen on "
			      "two CPUs at the same moment, may be miscounted", SK_HASH_TCP);
}

/* The current task as a BTF pointer (5.11) and its user registers (5.15): bpf/observe.bpf.h.
 * The registers are reached through the BTF task, so they need both. */
static void task_helpers(struct obs_sockets *c, const char *prog)
{
	struct sockets_bpf *s = c->skel;
	const char *tp = "btf_trace_inet_sock_set_state";

	s->rodata->targ_task_btf = obs_startup_tracing_helper_known(BPF_FUNC_get_current_task_btf,
								    BPF_TRACE_RAW_TP, tp);
	/* (the compat object: a kernel before 5.12 has no bpf_task_pt_regs, and the walks that use
	 * the registers' buffers hold socket addresses as numbers only as global functions) */
	s->rodata->targ_pt_regs = s->rodata->targ_task_btf && !c->features.compat &&
		obs_startup_tracing_helper_known(BPF_FUNC_task_pt_regs, BPF_TRACE_RAW_TP, tp);
	/* without it, the registers the kernel saved at the top of the task's kernel stack
	 * (bpf/observe.bpf.h's ll_stack_regs(): THREAD_SIZE, 16 KiB on x86-64 and arm64) */
	if (!s->rodata->targ_pt_regs && OBS_SYSCALL_REGS)
		s->rodata->targ_stack_size = OBS_THREAD_SIZE;	/* (0: not this architecture) */
	c->features.user_regs = (s->rodata->targ_pt_regs || s->rodata->targ_stack_size) &&
		OBS_SYSCALL_REGS;
	c->features.stack_regs = !s->rodata->targ_pt_regs && c->features.user_regs;
	if (c->features.stack_regs)
		ll_warn(prog, "note: no bpf_task_pt_regs here (5.15): a read's or a write's user "
			      "buffer is found through the registers saved on the task's kernel stack "
			      "(%u KiB), read by helper; accept errors are not counted by port",
			OBS_THREAD_SIZE / 1024);
	else if (!s->rodata->targ_pt_regs)
		ll_warn(prog, "note: no bpf_task_pt_regs here (5.15): the programs cannot find a read's "
			      "or a write's user buffer, so payload sampling is off, HTTP/2 streams and "
			      "TLS handshakes are not told apart from requests (a connection's requests "
			      "are counted by turns), and accept errors are not counted by port");
	else if (!c->features.user_regs)
		ll_warn(prog, "note: the programs do not read this architecture's system call "
			      "registers (x86-64 and arm64 only): payload sampling is off, and HTTP/2 "
			      "streams and TLS handshakes are not told apart from requests (a "
			      "connection's requests are counted by turns)");
}

/* Decide what to attach: switch off what the kernel lacks, before load. Returns 0 or -ENOENT. */
static int plan(struct obs_sockets *c, const char *prog, const struct obs_sockets_opts *opts)
{
	struct sockets_bpf *s = c->skel;
	bool btf_tp, raw_tp;

	/* the syscall tier: observer/kernel/systier.c attaches these when they are wanted */
	bpf_program__set_autoattach(s->progs.handle_sys_exit_accept4, false);
	bpf_program__set_autoattach(s->progs.handle_sys_exit_accept, false);
	c->features.accept4 = obs_startup_tracepoint_exists("syscalls", "sys_exit_accept4");
	if (!c->features.accept4) {
		/* accepted is still counted (handshakes and listen queues); only the syscall
		 * tier's figures go, unless accepts must be judged by process (obs_sockets_open) */
		bpf_program__set_autoload(s->progs.handle_sys_exit_accept4, false);
		bpf_program__set_autoload(s->progs.handle_sys_exit_accept, false);
		ll_warn(prog, "note: no syscalls:sys_exit_accept4 tracepoint (CONFIG_FTRACE_SYSCALLS); "
			      "accept-queue wait per connection and accept errors are off");
		c->features.accept = false;
	} else {
		attached_add(c, "accept4 [syscall tier]");
		c->features.accept = obs_startup_tracepoint_exists("syscalls", "sys_exit_accept");
		if (c->features.accept) {
			attached_add(c, "accept [syscall tier]");
		} else {
			bpf_program__set_autoload(s->progs.handle_sys_exit_accept, false);
			ll_warn(prog, "note: no syscalls:sys_exit_accept tracepoint; accept() (not "
				      "accept4) is not timed");
		}
	}

	/* a socket seen as the tcp_sock/inet_sock it is: direct loads through the 6.2 kfunc,
	 * else one helper read per field (bpf/observe.bpf.h, LL_READ) */
	s->rodata->targ_rdonly_cast =
		!opts->no_kfuncs && obs_startup_btf_func_exists("bpf_rdonly_cast");
	c->features.reads = s->rodata->targ_rdonly_cast ? "bpf_rdonly_cast" : "bpf_probe_read_kernel";

	sk_state(c, prog);
	task_helpers(c, prog);

	/* tp_btf where the kernel's BTF describes the tracepoint, else raw_tp */
	btf_tp = !opts->no_tp_btf && obs_startup_btf_tracepoint_exists("inet_sock_set_state");
	raw_tp = obs_startup_btf_tracepoint_exists("inet_sock_set_state") ||
		 obs_startup_tracepoint_exists("sock", "inet_sock_set_state");
	if (btf_tp) {
		bpf_program__set_autoload(s->progs.handle_inet_sock_set_state_raw, false);
		c->features.set_state = "tp_btf";
	} else {
		bpf_program__set_autoload(s->progs.handle_inet_sock_set_state, false);
		if (raw_tp) {
			c->features.set_state = "raw_tp";
		} else {
			bpf_program__set_autoload(s->progs.handle_inet_sock_set_state_raw, false);
			ll_warn(prog, "note: no sock:inet_sock_set_state tracepoint; handshakes and "
				      "accept-queue wait are off");
		}
	}
	if (btf_tp)
		attached_add(c, "inet_sock_set_state");
	else if (c->features.set_state)
		attached_add(c, "inet_sock_set_state via raw_tp");
	return 0;
}

static void set_targets(struct sockets_bpf *s, const struct obs_sockets_opts *opts)
{
	OBS_SET_TARGETS(s->rodata, opts);
	/* a smaller "targets" map, for tests of what happens when it is full */
	if (opts->max_targets)
		bpf_map__set_max_entries(s->maps.targets, (uint32_t)opts->max_targets);
}

/* After load: the --pid processes go into the "targets" map. */
static int add_pids(struct obs_sockets *c, const struct obs_sockets_opts *opts)
{
	struct obs_target t = {.flags = OBS_TARGET_PID};
	int fd = bpf_map__fd(c->skel->maps.targets);
	size_t i;

	for (i = 0; i < opts->npids; i++)
		if (bpf_map_update_elem(fd, &opts->pids[i], &t, BPF_ANY))
			return -errno;
	return 0;
}

int obs_sockets_verify(void *arg)
{
	struct obs_sockets_stats *st = calloc(1, sizeof(*st));
	int err = st ? obs_sockets_read(arg, st) : -ENOMEM;

	free(st);
	return err;
}

int obs_sockets_target_set(struct obs_sockets *c, uint32_t pid, const struct obs_target *t,
			bool only_new)
{
	return bpf_map_update_elem(bpf_map__fd(c->skel->maps.targets), &pid, t,
				   only_new ? BPF_NOEXIST : BPF_ANY);
}

int obs_sockets_read_percpu(struct obs_sockets *c, enum obs_sockets_percpu m, uint32_t n, int ncpu,
			 size_t words, uint64_t *buf, size_t len)
{
	const struct bpf_map *map = m == OBS_SOCKETS_RT_GLOBAL ? c->skel->maps.global
				    : m == OBS_SOCKETS_RT_RUNQ ? c->skel->maps.runq_hist
							    : c->skel->maps.pl_ctrs;

	return obs_bpfread_percpu(map, n, ncpu, words, buf, len);
}

const volatile struct rt_rec *obs_sockets_recs_map(struct obs_sockets *c, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, bpf_map__fd(c->skel->maps.recs), 0);

	return p == MAP_FAILED ? NULL : p;
}

void obs_sockets_recs_unmap(const volatile struct rt_rec *recs, size_t len)
{
	if (recs)
		munmap((void *)recs, len);
}

int obs_sockets_trace_fd(struct obs_sockets *c)
{
	return bpf_map__fd(c->skel->maps.trace);
}

int obs_sockets_h2_hb_fd(struct obs_sockets *c)
{
	return bpf_map__fd(c->skel->maps.h2_hb);
}

volatile uint32_t *obs_sockets_h2_hb_idle(struct obs_sockets *c)
{
	return &c->skel->bss->h2_hb_idle;
}

volatile uint8_t *obs_sockets_h2_hb_quiet(struct obs_sockets *c)
{
	return c->skel->bss->h2_hb_quiet;
}

uint32_t obs_sockets_trace_every(const struct obs_sockets *c)
{
	return c->skel->rodata->targ_trace_every;
}

uint16_t obs_sockets_dyn_port(const struct obs_sockets *c, size_t i)
{
	return __atomic_load_n(&c->skel->bss->dyn_port[i], __ATOMIC_RELAXED);
}

size_t obs_sockets_foreign(struct obs_sockets *c, struct rt_foreign_key *keys,
			   struct rt_foreign *vals, size_t max)
{
	struct rt_foreign_key next, *prev = NULL;
	int fd = bpf_map__fd(c->skel->maps.foreign);
	size_t m = 0;

	while (m < max && !bpf_map_get_next_key(fd, prev, &next)) {
		keys[m] = next;
		prev = &keys[m];
		if (!bpf_map_lookup_elem(fd, &keys[m], &vals[m]))
			m++; /* else evicted meanwhile: its slot is reused */
	}
	return m;
}

void obs_sockets_arrival_window(struct obs_sockets *c)
{
	/* the BPF side reads it with a plain load; a window opens once a second at most */
	__atomic_add_fetch(&c->skel->bss->arrival_gen, 1, __ATOMIC_SEQ_CST);
}

void obs_sockets_lean_bss(struct obs_sockets *c, volatile uint8_t **marks, volatile uint8_t **solo,
			  volatile uint32_t **udp_socks)
{
	*marks = &c->skel->bss->lean_marks;
	*solo = &c->skel->bss->lean_solo;
	*udp_socks = &c->skel->bss->lean_udp_socks;
}

volatile uint8_t *obs_sockets_handshake_stamps(struct obs_sockets *c)
{
	return &c->skel->bss->handshake_stamps;
}

bool obs_sockets_payload_on(const struct obs_sockets *c)
{
	return c->skel->rodata->targ_payload;
}

uint64_t obs_sockets_payload_period_ns(const struct obs_sockets *c)
{
	return c->skel->rodata->targ_payload_period_ns;
}

struct bpf_map *obs_sockets_map(const struct obs_sockets *c, const char *name)
{
	if (!strcmp(name, "targets"))
		return c->skel->maps.targets;
	if (!strcmp(name, "errprocs"))
		return c->skel->maps.errprocs;
	return NULL;
}

struct obs_sockets *obs_sockets_open(const char *prog, const struct obs_sockets_opts *opts)
{
	struct obs_sockets *c;
	bool proc;
	int err;

	c = calloc(1, sizeof(*c));
	if (!c) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = obs_bpfread_percpu_scratch(LL_HIST_BUCKETS, &c->ncpu, &c->percpu);
	if (err) {
		ll_warn(prog, "cannot set up per-CPU reads: %s", strerror(-err));
		goto cleanup;
	}
	c->features.compat = !obs_startup_atomics_known();
	c->skel = skel_open(c->features.compat);
	if (!c->skel) {
		err = -errno;
		ll_warn(prog, "cannot open the BPF object: %s", strerror(-err));
		goto cleanup;
	}
	err = plan(c, prog, opts);
	if (err)
		goto cleanup;
	set_targets(c->skel, opts);
	/* a process filter: only accept() itself knows which process took a connection. A
	 * handshake on a target port is not the targets' alone: processes sharing the port
	 * (SO_REUSEPORT) each take their own. */
	proc = opts->npids || opts->cgroup_id;
	c->by_calls = proc && (c->features.accept4 || !opts->nports);
	if (obs_sockets_by_calls(c) && !c->features.accept4) {
		ll_warn(prog, "accepts can only be counted at accept() here (%s), and the kernel has "
			      "no syscalls:sys_exit_accept4 tracepoint; add --port PORT",
			c->by_calls ? "--pid/--cgroup without --port" : "no inet_sock_set_state");
		err = -ENOENT;
		goto cleanup;
	}
	if (proc && !c->by_calls)
		ll_warn(prog, "note: no syscalls:sys_exit_accept4 tracepoint: accepted counts every "
			      "connection accepted on the target ports, the targets' and any other "
			      "process's sharing them");
	return c;

cleanup:
	obs_sockets_free(c);
	errno = -err;
	return NULL;
}

struct sockets_bpf *obs_sockets_skel(struct obs_sockets *c)
{
	return c->skel;
}

int obs_sockets_load(struct obs_sockets *c, const char *prog, const struct obs_sockets_opts *opts)
{
	int err;

	err = obs_startup_libbpf_refused(prog, "load BPF programs", sockets_bpf__load(c->skel));
	if (err)
		return err;
	err = add_pids(c, opts);
	if (err)
		ll_warn(prog, "cannot fill the target map: %s", strerror(-err));
	return err;
}

int obs_sockets_attach(struct obs_sockets *c, const char *prog)
{
	return obs_startup_libbpf_refused(prog, "attach BPF programs",
					  sockets_bpf__attach(c->skel));
}

size_t obs_sockets_tier_progs(struct obs_sockets *c, struct bpf_program **out)
{
	size_t n = 0;

	if (!c->features.accept4)
		return 0;
	out[n++] = c->skel->progs.handle_sys_exit_accept4;
	if (c->features.accept)
		out[n++] = c->skel->progs.handle_sys_exit_accept;
	return n;
}

bool obs_sockets_by_calls(const struct obs_sockets *c)
{
	return c->by_calls || !c->features.set_state;
}

void obs_sockets_base(struct obs_sockets *c, const struct obs_listen_queue *q)
{
	c->queued0 = q->queued;
	c->queued0_set = q->ok;
}

void obs_sockets_accepted(struct obs_sockets *c, struct obs_sockets_stats *st,
		       const struct obs_listen_queue *q)
{
	uint64_t *ctr = st->ctr, in, out;

	if (q && q->ok) {
		if (q->qlen_max > c->qlen_max) {
			c->qlen_max = q->qlen_max;
			c->backlog = q->backlog;
		}
	}
	if (c->qlen_max > ctr[OBS_CTR_QLEN_MAX]) {
		ctr[OBS_CTR_QLEN_MAX] = c->qlen_max;
		ctr[OBS_CTR_BACKLOG_MAX] = c->backlog;
	}
	if (obs_sockets_by_calls(c) || !q || !q->ok || !c->queued0_set) {
		ctr[OBS_CTR_ACCEPTED] = ctr[OBS_CTR_ACCEPT_CALLS];
		return;
	}
	/* every child that completed its handshake was accepted, unless it is still queued or its
	 * listener closed over it; children queued at start are accepted first (FIFO) */
	in = ctr[OBS_CTR_HANDSHAKES] + c->queued0;
	out = q->queued + ctr[OBS_CTR_LISTEN_DISCARD];
	ctr[OBS_CTR_ACCEPTED] = in > out ? in - out : 0;
}

void obs_sockets_free(struct obs_sockets *c)
{
	if (!c)
		return;
	sockets_bpf__destroy(c->skel);
	free(c->percpu);
	free(c);
}

static int sum(struct obs_sockets *c, const struct bpf_map *map, uint32_t n, uint64_t *out)
{
	return obs_bpfread_percpu_sum(map, n, c->ncpu, c->percpu, (size_t)LL_HIST_BUCKETS * c->ncpu,
				   out);
}

/* The per-CPU block of counters and state moves: sums, and maxima for the max counters. */
static int read_block(struct obs_sockets *c, struct obs_sockets_stats *st)
{
	const struct obs_conn_block *blk = (const struct obs_conn_block *)c->percpu;
	uint32_t zero = 0;
	unsigned int k;
	int i;

	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.block), &zero, c->percpu))
		return -errno;
	memset(st->ctr, 0, sizeof(st->ctr));
	memset(st->moves, 0, sizeof(st->moves));
	for (i = 0; i < c->ncpu; i++) {
		for (k = 0; k < OBS_CTR_MAX; k++) {
			if (!obs_ctr_is_max(k))
				st->ctr[k] += blk[i].ctr[k];
			else if (blk[i].ctr[k] > st->ctr[k])
				st->ctr[k] = blk[i].ctr[k];
		}
		for (k = 0; k < OBS_STATE_MOVES; k++)
			st->moves[k] += blk[i].moves[k];
	}
	return 0;
}

int obs_sockets_read_moves(struct obs_sockets *c, uint64_t moves[OBS_STATE_MOVES])
{
	static struct obs_sockets_stats st; /* one observer thread */
	int err = read_block(c, &st);

	if (!err)
		memcpy(moves, st.moves, sizeof(st.moves));
	return err;
}

/*
 * The accept-queue waits: each is added to wait_hist right after its accept() call is counted
 * (bpf/conn.bpf.h, record_wait()), so with the count unchanged since a read that began a tick
 * after the count last moved, the histogram is what that read found.
 */
static int read_waits(struct obs_sockets *c, struct obs_sockets_stats *st, uint64_t prev_calls)
{
	uint64_t calls = st->ctr[OBS_CTR_ACCEPT_CALLS];
	int err;

	if (calls == prev_calls && st->wait_settled == calls + 1)
		return 0;
	err = sum(c, c->skel->maps.wait_hist, LL_HIST_BUCKETS, st->wait);
	st->wait_settled = !err && calls == prev_calls ? calls + 1 : 0;
	return err;
}

int obs_sockets_read(struct obs_sockets *c, struct obs_sockets_stats *st)
{
	uint64_t prev_calls = st->ctr[OBS_CTR_ACCEPT_CALLS];
	int err;

	err = read_block(c, st);
	if (!err)
		err = sum(c, c->skel->maps.accept_errnos, OBS_ERRNO_SLOTS, st->errnos);
	if (!err)
		err = read_waits(c, st, prev_calls);
	{
		struct bpf_program *progs[] = {
			c->skel->progs.handle_inet_sock_set_state,
			c->skel->progs.handle_inet_sock_set_state_raw,
			c->skel->progs.handle_sys_exit_accept4,
			c->skel->progs.handle_sys_exit_accept,
		};

		st->missed = obs_bpfread_progs_missed(progs, sizeof(progs) / sizeof(progs[0]));
	}
	return err;
}
