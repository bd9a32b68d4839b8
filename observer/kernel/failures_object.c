// SPDX-License-Identifier: MIT
/*
 * bpf/failures.bpf.c's one owner: attach plan, load, attach, and every read of its maps (the
 * failures feature, features/failures.c, each interval; the processes feature and --metrics ask
 * through obs_fail_*).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "kernel/bpfread.h"
#include "kernel/failures_object.h"
#include "kernel/startup.h"
#include "failures.skel.h"

#define DROP_PREFIX "SKB_DROP_REASON_"

struct obs_fail {
	struct failures_bpf *skel;
	struct ring_buffer *rb;
	struct obs_fail_features features;
	int ncpu;
	uint64_t *percpu; /* scratch: OBS_DROP_REASON_SLOTS x ncpu */
	char *reason_names[OBS_DROP_REASON_SLOTS];
	/* ring buffer delivery */
	void (*cb)(void *arg, const struct obs_event *ev);
	void *cb_arg;
	int delivered;
};

static const char *const sys_names[OBS_SYS_MAX] = {
	[OBS_SYS_ACCEPT4] = "accept4",	  [OBS_SYS_ACCEPT] = "accept",
	[OBS_SYS_SOCKET] = "socket",	  [OBS_SYS_CONNECT] = "connect",
	[OBS_SYS_BIND] = "bind",	  [OBS_SYS_OPENAT] = "openat",
	[OBS_SYS_OPEN] = "open",	  [OBS_SYS_PIPE2] = "pipe2",
	[OBS_SYS_DUP] = "dup",		  [OBS_SYS_DUP2] = "dup2",
	[OBS_SYS_DUP3] = "dup3",	  [OBS_SYS_SOCKETPAIR] = "socketpair",
	[OBS_SYS_EPOLL_CREATE1] = "epoll_create1", [OBS_SYS_EVENTFD2] = "eventfd2",
};

static const char *const fail_names[OBS_FAIL_MAX] = {
	[OBS_FAIL_EMFILE] = "EMFILE", [OBS_FAIL_ENFILE] = "ENFILE",
	[OBS_FAIL_EADDRNOTAVAIL] = "EADDRNOTAVAIL", [OBS_FAIL_EADDRINUSE] = "EADDRINUSE",
};

const char *obs_fail_sys_name(unsigned int sys)
{
	return sys < OBS_SYS_MAX ? sys_names[sys] : "?";
}

const char *obs_fail_name(unsigned int fail)
{
	return fail < OBS_FAIL_MAX ? fail_names[fail] : "?";
}

const struct obs_fail_features *obs_fail_features(const struct obs_fail *f)
{
	return &f->features;
}

/* Names of enum skb_drop_reason, from the running kernel's BTF. */
static void load_reason_names(struct obs_fail *f)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	const char *name;
	int id, i;

	if (!btf)
		return;
	id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM);
	if (id > 0) {
		t = btf__type_by_id(btf, id);
		e = btf_enum(t);
		for (i = 0; i < btf_vlen(t); i++, e++) {
			if (e->val < 0 || e->val >= OBS_DROP_REASON_SLOTS - 1)
				continue;
			name = btf__name_by_offset(btf, e->name_off);
			if (!name)
				continue;
			if (!strncmp(name, DROP_PREFIX, strlen(DROP_PREFIX)))
				name += strlen(DROP_PREFIX);
			free(f->reason_names[e->val]);
			f->reason_names[e->val] = strdup(name);
		}
	}
	btf__free(btf);
}

/* The sys_exit_<call> program of this object (accept()/accept4() are sockets.bpf.c's: NULL). */
static struct bpf_program *find_sys_prog(const struct obs_fail *f, unsigned int sys)
{
	char name[64];

	if (sys == OBS_SYS_ACCEPT4 || sys == OBS_SYS_ACCEPT)
		return NULL;
	snprintf(name, sizeof(name), "handle_sys_exit_%s", sys_names[sys]);
	return bpf_object__find_program_by_name(f->skel->obj, name);
}

size_t obs_fail_tier_progs(struct obs_fail *f, struct bpf_program **out, size_t max)
{
	struct bpf_program *p;
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < OBS_SYS_MAX && n < max; i++) {
		p = find_sys_prog(f, i);
		if (p && bpf_program__fd(p) >= 0)
			out[n++] = p;
	}
	return n;
}

const char *obs_fail_drop_reason_name(const struct obs_fail *f, unsigned int reason)
{
	return reason < OBS_DROP_REASON_SLOTS ? f->reason_names[reason] : NULL;
}

int obs_fail_drop_reason(const struct obs_fail *f, const char *name)
{
	int i;

	for (i = 0; i < OBS_DROP_REASON_SLOTS; i++)
		if (f->reason_names[i] && !strcmp(f->reason_names[i], name))
			return i;
	return -1;
}

static void off(struct bpf_program *p)
{
	bpf_program__set_autoload(p, false);
}

static void plan(struct obs_fail *f, const char *prog, const struct obs_fail_opts *opts)
{
	struct failures_bpf *s = f->skel;
	struct bpf_program *sys_prog;
	char tp[64];
	unsigned int i;

	for (i = 0; i < OBS_SYS_MAX; i++) {
		sys_prog = find_sys_prog(f, i);
		if (!sys_prog)
			continue;
		snprintf(tp, sizeof(tp), "sys_exit_%s", sys_names[i]);
		f->features.sys[i] = obs_startup_tracepoint_exists("syscalls", tp);
		/* the syscall tier: observer/kernel/systier.c attaches these when they are wanted */
		bpf_program__set_autoattach(sys_prog, false);
		if (!f->features.sys[i]) {
			off(sys_prog);
			/* x86-64 has open(), other architectures only openat() */
			if (i != OBS_SYS_OPEN)
				ll_warn(prog, "note: no syscalls:%s tracepoint; %s() failures are "
					      "not counted", tp, sys_names[i]);
		}
	}
	/* the reason came with enum skb_drop_reason (5.17); before, the tracepoint has none */
	f->features.drops = obs_startup_btf_tracepoint_exists("kfree_skb") &&
			    obs_startup_btf_enum_exists("skb_drop_reason");
	if (!f->features.drops) {
		off(s->progs.handle_kfree_skb);
		ll_warn(prog, "note: %s; drops by reason are off (/proc/net/netstat counters "
			      "remain)", obs_startup_btf_tracepoint_exists("kfree_skb")
			      ? "skb:kfree_skb gives no reason before 5.17"
			      : "no skb:kfree_skb tracepoint");
	}
	f->features.synack = obs_startup_btf_tracepoint_exists("tcp_retransmit_synack");
	if (!f->features.synack) {
		off(s->progs.handle_tcp_retransmit_synack);
		ll_warn(prog, "note: no tcp:tcp_retransmit_synack tracepoint; SYN-ACK "
			      "retransmits are off");
	}
	f->features.resets = obs_startup_btf_tracepoint_exists("tcp_send_reset") &&
			     obs_startup_btf_tracepoint_exists("tcp_receive_reset");
	if (!f->features.resets) {
		off(s->progs.handle_tcp_send_reset);
		off(s->progs.handle_tcp_receive_reset);
		ll_warn(prog, "note: no tcp:tcp_send_reset/tcp_receive_reset tracepoints; resets "
			      "are off");
	}
	/* process exits matter only with --pid; forks only with --children */
	f->features.lifecycle =
		opts->conn->npids && obs_startup_btf_tracepoint_exists("sched_process_exit");
	if (!f->features.lifecycle && opts->conn->npids)
		ll_warn(prog, "note: no sched:sched_process_exit tracepoint; target exits are "
			      "found by polling");
	if (!f->features.lifecycle)
		off(s->progs.handle_sched_process_exit);
	if (!opts->children || !opts->conn->npids ||
	    !obs_startup_btf_tracepoint_exists("sched_process_fork"))
		off(s->progs.handle_sched_process_fork);
}

static void set_targets(struct failures_bpf *s, const struct obs_fail_opts *opts)
{
	OBS_SET_TARGETS(s->rodata, opts->conn);
	s->rodata->targ_children = opts->children;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct obs_fail *f = ctx;

	if (len < sizeof(struct obs_event))
		return 0;
	if (f->cb)
		f->cb(f->cb_arg, data);
	f->delivered++;
	return 0;
}

struct obs_fail *obs_fail_open(const char *prog, const struct obs_fail_opts *opts)
{
	struct obs_fail *f;
	int err;

	f = calloc(1, sizeof(*f));
	if (!f) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = obs_bpfread_percpu_scratch(OBS_DROP_REASON_SLOTS, &f->ncpu, &f->percpu);
	if (err)
		goto cleanup;
	load_reason_names(f);
	f->skel = failures_bpf__open();
	if (!f->skel) {
		err = -errno;
		ll_warn(prog, "cannot open the failures BPF object: %s", strerror(-err));
		goto cleanup;
	}
	plan(f, prog, opts);
	set_targets(f->skel, opts);
	return f;

cleanup:
	obs_fail_free(f);
	errno = -err;
	return NULL;
}

int obs_fail_load(struct obs_fail *f, const char *prog, struct obs_sockets *shared)
{
	int err;

	err = bpf_map__reuse_fd(f->skel->maps.targets, bpf_map__fd(obs_sockets_map(shared, "targets")));
	if (!err)
		err = bpf_map__reuse_fd(f->skel->maps.errprocs,
					bpf_map__fd(obs_sockets_map(shared, "errprocs")));
	if (err) {
		ll_warn(prog, "cannot share the target maps: %s", strerror(-err));
		return err;
	}
	return obs_startup_libbpf_refused(prog, "load the failures BPF programs",
				  failures_bpf__load(f->skel));
}

int obs_fail_attach(struct obs_fail *f, const char *prog)
{
	int err;

	err = obs_startup_libbpf_refused(prog, "attach the failures BPF programs",
				 failures_bpf__attach(f->skel));
	if (err)
		return err;
	f->rb = ring_buffer__new(bpf_map__fd(f->skel->maps.events), on_event, f, NULL);
	if (!f->rb) {
		err = -errno;
		ll_warn(prog, "cannot open the event ring buffer: %s", strerror(-err));
	}
	return err;
}

uint32_t obs_fail_targets_full_pid(const struct obs_fail *f)
{
	return __atomic_load_n(&f->skel->bss->targets_full_pid, __ATOMIC_RELAXED);
}

void obs_fail_free(struct obs_fail *f)
{
	int i;

	if (!f)
		return;
	ring_buffer__free(f->rb);
	failures_bpf__destroy(f->skel);
	for (i = 0; i < OBS_DROP_REASON_SLOTS; i++)
		free(f->reason_names[i]);
	free(f->percpu);
	free(f);
}

/* Sum keys [0, n) of a per-CPU array over CPUs. */
static int sum(struct obs_fail *f, const struct bpf_map *map, uint32_t n, uint64_t *out)
{
	return obs_bpfread_percpu_sum(map, n, f->ncpu, f->percpu,
				   (size_t)OBS_DROP_REASON_SLOTS * f->ncpu, out);
}

int obs_fail_read(struct obs_fail *f, struct obs_fail_stats *st)
{
	int err;

	err = sum(f, f->skel->maps.sysfail, OBS_SYS_MAX * OBS_FAIL_MAX, &st->sys[0][0]);
	if (!err)
		err = sum(f, f->skel->maps.drop_reasons, OBS_DROP_REASON_SLOTS, st->drops);
	if (!err)
		err = sum(f, f->skel->maps.failures_ctrs, OBS_FAILURES_CTR_MAX, st->ctrs);
	st->missed = obs_bpfread_obj_missed(f->skel->obj);
	return err;
}

void obs_fail_stats_sub(struct obs_fail_stats *st, const struct obs_fail_stats *a,
			const struct obs_fail_stats *b)
{
	unsigned int i, j;

	for (i = 0; i < OBS_SYS_MAX; i++)
		for (j = 0; j < OBS_FAIL_MAX; j++)
			st->sys[i][j] = a->sys[i][j] - b->sys[i][j];
	for (i = 0; i < OBS_DROP_REASON_SLOTS; i++)
		st->drops[i] = a->drops[i] - b->drops[i];
	for (i = 0; i < OBS_FAILURES_CTR_MAX; i++)
		st->ctrs[i] = a->ctrs[i] - b->ctrs[i];
	st->missed = a->missed - b->missed;
}

size_t obs_fail_procs(struct obs_fail *f, struct obs_fail_proc *out, size_t max)
{
	int fd = bpf_map__fd(f->skel->maps.errprocs);
	uint32_t key, next;
	uint32_t *prev = NULL;
	size_t n = 0;

	while (n < max && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &out[n].e))
			continue; /* evicted between the two calls */
		out[n].pid = key;
		n++;
	}
	return n;
}

int obs_fail_poll(struct obs_fail *f, void (*cb)(void *arg, const struct obs_event *ev),
		  void *arg)
{
	int err;

	f->cb = cb;
	f->cb_arg = arg;
	f->delivered = 0;
	err = ring_buffer__consume(f->rb);
	return err < 0 ? err : f->delivered;
}
