// SPDX-License-Identifier: MIT
/* Request timing: its part of the socket object's plan, and reading its per-CPU maps back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "bpfread.h"
#include "reqtime.h"
#include "startup.h"
#include "trace.h"
#include "sockets.skel.h"

#define RT_TIER_PROGS 5 /* the most request programs one mechanism has */

struct obs_reqtime {
	struct sockets_bpf *skel; /* observer/features/conn.c's: loaded, attached and freed there */
	struct obs_reqtime_features features;
	uint16_t ports[RT_MAX_PORTS];
	size_t nports;
	bool owned; /* --pid/--cgroup: only the targets' own sockets are timed */
	bool dyn; /* --pid/--cgroup without --port: slots labelled from the BPF side's dyn_port */
	size_t nslots;
	int ncpu;
	uint64_t *percpu; /* scratch for per-CPU reads */
	size_t percpu_len;
	/* each histogram as last read (summed over CPUs) and its count then (rt_ctrs.n): a tick
	 * reads back only the histograms whose count moved */
	uint64_t (*hist_cache)[RT_NCOMP][LL_HIST_BUCKETS];
	const volatile struct rt_rec *recs; /* the "recs" map, memory-mapped: cpu * nslots + slot */
	size_t recs_len;		    /* bytes mapped */
	uint64_t (*hist_n)[RT_NCOMP];
	struct obs_trace *trace;
	uint64_t trace_written, trace_errors;
	int trace_err; /* errno of the trace's first failed write */
	char attached[256];
	struct bpf_program *arrival; /* the mechanism's arrival program (--arrivals sampled) */
	const char *trace_path;
	uint64_t start_ns;
};

const struct obs_reqtime_features *obs_reqtime_features(const struct obs_reqtime *rt)
{
	return &rt->features;
}

const char *obs_reqtime_attached(const struct obs_reqtime *rt)
{
	return rt->attached;
}

uint16_t obs_reqtime_slot_port(const struct obs_reqtime *rt, size_t slot)
{
	if (rt->dyn)
		return __atomic_load_n(&rt->skel->bss->dyn_port[slot / 2], __ATOMIC_RELAXED);
	return rt->nports ? rt->ports[slot / 2] : 0;
}

static int cmp_reader(const void *a, const void *b)
{
	const struct obs_snap_reader *x = a, *y = b;

	return x->sockets < y->sockets ? 1 : x->sockets > y->sockets ? -1 : 0;
}

size_t obs_reqtime_foreign(const struct obs_reqtime *rt, struct obs_snap_reader *out, size_t n)
{
	struct obs_snap_reader all[RT_FOREIGN_SLOTS];
	struct rt_foreign_key k, next, *prev = NULL;
	struct rt_foreign v;
	int fd = bpf_map__fd(rt->skel->maps.foreign);
	size_t m = 0;

	if (!rt->owned)
		return 0;
	while (m < RT_FOREIGN_SLOTS && !bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue; /* evicted meanwhile */
		all[m].pid = k.tgid;
		memcpy(all[m].comm, v.comm, sizeof(all[m].comm));
		all[m].comm[sizeof(all[m].comm) - 1] = 0;
		all[m].port = k.port;
		all[m].udp = k.udp;
		all[m].sockets = v.sockets;
		m++;
	}
	qsort(all, m, sizeof(all[0]), cmp_reader);
	if (m > n)
		m = n;
	memcpy(out, all, m * sizeof(all[0]));
	return m;
}

bool obs_reqtime_slot_used(const struct obs_reqtime *rt, size_t slot)
{
	return !rt->dyn || obs_reqtime_slot_port(rt, slot);
}

const char *obs_reqtime_scope(const struct obs_reqtime *rt)
{
	if (rt->owned)
		return rt->nports ? "the targets' own sockets on the target ports"
				  : "the targets' own sockets";
	return rt->nports ? "every socket on the target ports" : "every socket";
}

const char *obs_reqtime_slot_proto(size_t slot)
{
	return slot % 2 ? "udp" : "tcp";
}

int obs_reqtime_trace_error(const struct obs_reqtime *rt)
{
	return rt->trace ? obs_trace_error(rt->trace) : rt->trace_err;
}

void obs_reqtime_trace_counts(const struct obs_reqtime *rt, uint64_t *written, uint64_t *lost)
{
	*written = rt->trace_written + obs_trace_written(rt->trace);
	*lost = rt->trace_errors + obs_trace_write_errors(rt->trace);
}

static void x__attached_add(struct obs_reqtime *rt, const char *what)
{
	size_t len = strlen(rt->attached);

	snprintf(rt->attached + len, sizeof(rt->attached) - len, "%s%s", len ? ", " : "", what);
}

static void x__off(struct bpf_program *p)
{
	bpf_program__set_autoload(p, false);
}

/* The request programs of each mechanism: arrival, reads, writes (NULL ends a list). */
static void x__tier_progs(struct sockets_bpf *s, enum obs_rt_mech m, struct bpf_program **p)
{
	if (m == OBS_RT_MECH_TRACEPOINT) {
		p[0] = s->progs.handle_sk_data_ready;
		p[1] = s->progs.handle_sock_recv_length;
		p[2] = s->progs.handle_sock_send_length;
		p[3] = NULL;
	} else {
		p[0] = s->progs.handle_sock_def_readable;
		p[1] = s->progs.handle_inet_recvmsg_exit;
		p[2] = s->progs.handle_inet6_recvmsg_exit;
		p[3] = s->progs.handle_inet_sendmsg_exit;
		p[4] = s->progs.handle_inet6_sendmsg_exit;
		p[5] = NULL;
	}
}

static void x__tier_off(struct sockets_bpf *s, enum obs_rt_mech m)
{
	struct bpf_program *p[RT_TIER_PROGS + 1];
	size_t i;

	x__tier_progs(s, m, p);
	for (i = 0; p[i]; i++)
		x__off(p[i]);
}

const char *obs_rt_mech_name(enum obs_rt_mech m)
{
	switch (m) {
	case OBS_RT_MECH_TRACEPOINT:
		return "tracepoints";
	case OBS_RT_MECH_FENTRY:
		return "fentry";
	default:
		return "off";
	}
}

/*
 * How this kernel can time requests, best first: the sock: tracepoints (Linux 6.3+), else BPF
 * trampolines on the functions they sit in (fentry/fexit: BTF and trampolines, x86-64 5.5+).
 * `want` forces one (LOADLENS_OBSERVER_TIMING, for tests). *why: the reason for "off", or for
 * a missing IPv6 half. Probing a trampoline loads and attaches a tiny program: needs privilege.
 */
enum obs_rt_mech obs_rt_mech_choose(enum obs_rt_mech want, char *why, size_t len)
{
	/* the tracepoint programs read TCP's clocks through bpf_rdonly_cast (6.2, before the
	 * tracepoints' 6.3) with no switch (bpf/observe.bpf.h, LL_READ_KF) */
	bool tp = obs_btf_tracepoint_exists("sk_data_ready") &&
		  obs_btf_tracepoint_exists("sock_recv_length") &&
		  obs_btf_tracepoint_exists("sock_send_length") &&
		  obs_btf_func_exists("bpf_rdonly_cast");
	static const char *const funcs[] = {"sock_def_readable", "inet_recvmsg", "inet_sendmsg"};
	size_t i;
	int err;

	*why = 0;
	if (want == OBS_RT_MECH_OFF)
		want = tp ? OBS_RT_MECH_TRACEPOINT : OBS_RT_MECH_FENTRY;
	if (want == OBS_RT_MECH_TRACEPOINT) {
		if (tp)
			return OBS_RT_MECH_TRACEPOINT;
		snprintf(why, len, "the kernel lacks the tracepoints sock:sk_data_ready/"
				   "sock_recv_length/sock_send_length (Linux 6.3+)");
		return OBS_RT_MECH_OFF;
	}
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		err = obs_fentry_probe(funcs[i]);
		if (err) {
			snprintf(why, len, "%sno BPF trampoline on %s (fentry: %s)",
				 tp ? "" : "the kernel lacks the tracepoints sock:sk_data_ready/"
					   "sock_recv_length/sock_send_length (Linux 6.3+) and ",
				 funcs[i], err == -ENOENT ? "not in the kernel's BTF"
					   : err == -524 ? "not supported" : strerror(-err));
			return OBS_RT_MECH_OFF;
		}
	}
	return OBS_RT_MECH_FENTRY;
}

/* Switch off what the kernel lacks, before load. -ENOTSUP: request timing is not possible. */
static int x__plan(struct obs_reqtime *rt, const char *prog, bool runq, enum obs_rt_mech want)
{
	struct sockets_bpf *s = rt->skel;
	char why[256];

	rt->features.mech = obs_rt_mech_choose(want, why, sizeof(why));
	if (rt->features.mech == OBS_RT_MECH_OFF) {
		ll_warn(prog, "note: request timing is off: %s", why);
		return -ENOTSUP;
	}
	if (rt->features.mech == OBS_RT_MECH_TRACEPOINT) {
		x__tier_off(s, OBS_RT_MECH_FENTRY);
		rt->arrival = s->progs.handle_sk_data_ready;
		x__attached_add(rt, "sk_data_ready, sock_recv_length, sock_send_length");
	} else {
		x__tier_off(s, OBS_RT_MECH_TRACEPOINT);
		rt->arrival = s->progs.handle_sock_def_readable;
		x__attached_add(rt, "fentry sock_def_readable, fexit inet_recvmsg, inet_sendmsg");
		/* IPv6 may be a module (its functions in the module's BTF): try, or go without */
		if (obs_fentry_probe("inet6_recvmsg") || obs_fentry_probe("inet6_sendmsg")) {
			x__off(s->progs.handle_inet6_recvmsg_exit);
			x__off(s->progs.handle_inet6_sendmsg_exit);
			ll_warn(prog, "note: requests on IPv6 sockets are not timed: no BPF trampoline "
				      "on inet6_recvmsg/inet6_sendmsg");
		} else {
			x__attached_add(rt, "inet6_recvmsg, inet6_sendmsg");
		}
	}

	/* the connection programs' tp_btf inet_sock_set_state closes out a server's last response
	 * (the raw_tp fallback does not); accept times come from the syscall tier, when attached */
	rt->features.close_out = bpf_program__autoload(s->progs.handle_inet_sock_set_state);
	if (rt->features.close_out)
		x__attached_add(rt, "inet_sock_set_state");
	rt->features.accept = obs_tracepoint_exists("syscalls", "sys_exit_accept4");

	/* opt-in: these run on every wake-up and context switch of the host */
	rt->features.runq = runq && obs_btf_tracepoint_exists("sched_wakeup") &&
			    obs_btf_tracepoint_exists("sched_wakeup_new") &&
			    obs_btf_tracepoint_exists("sched_switch");
	if (rt->features.runq) {
		x__attached_add(rt, "sched_wakeup, sched_switch");
	} else {
		x__off(s->progs.handle_sched_wakeup);
		x__off(s->progs.handle_sched_wakeup_new);
		x__off(s->progs.handle_sched_switch);
		if (runq)
			ll_warn(prog, "note: no sched_wakeup/sched_switch tracepoints; run-queue "
				      "wait is off");
	}
	s->rodata->targ_runq = rt->features.runq;
	return 0;
}

static int x__configure(struct obs_reqtime *rt, const struct obs_reqtime_opts *opts)
{
	struct sockets_bpf *s = rt->skel;
	size_t i;
	int err;

	if (rt->dyn)
		memset((void *)s->rodata->targ_slot, RT_SLOT_DYN, sizeof(s->rodata->targ_slot));
	else if (!opts->nports)
		memset((void *)s->rodata->targ_slot, 1, sizeof(s->rodata->targ_slot));
	s->rodata->targ_owned = opts->owned;
	for (i = 0; i < opts->nports; i++)
		s->rodata->targ_slot[opts->ports[i]] = (uint8_t)(i + 1);
	s->rodata->targ_requests = 1;
	if (opts->trace_path)
		s->rodata->targ_trace_every = opts->trace_every ? opts->trace_every : 1;
	s->rodata->targ_nslots = (uint32_t)rt->nslots;
	err = bpf_map__set_max_entries(s->maps.recs, (uint32_t)(rt->nslots * rt->ncpu));
	if (!err && !opts->trace_path)
		err = bpf_map__set_max_entries(s->maps.trace, (uint32_t)sysconf(_SC_PAGESIZE));
	return err;
}

struct bpf_program *obs_reqtime_arrivals_sampled(struct obs_reqtime *rt)
{
	bpf_program__set_autoattach(rt->arrival, false);
	rt->features.arrivals_sampled = true;
	return rt->arrival;
}

void obs_reqtime_arrival_window(void *arg)
{
	struct obs_reqtime *rt = arg;

	/* the BPF side reads it with a plain load; a window opens once a second at most */
	__atomic_add_fetch(&rt->skel->bss->arrival_gen, 1, __ATOMIC_SEQ_CST);
}

void obs_reqtime_arrival_share(struct obs_reqtime *rt, double share)
{
	rt->features.arrival_share = share;
}

void obs_reqtime_off(struct sockets_bpf *s)
{
	x__tier_off(s, OBS_RT_MECH_TRACEPOINT);
	x__tier_off(s, OBS_RT_MECH_FENTRY);
	x__off(s->progs.handle_sched_wakeup);
	x__off(s->progs.handle_sched_wakeup_new);
	x__off(s->progs.handle_sched_switch);
	/* the shared programs still reference these maps: keep them, at their smallest */
	bpf_map__set_max_entries(s->maps.recs, 1);
	bpf_map__set_max_entries(s->maps.tcp_slots, 1);
	bpf_map__set_max_entries(s->maps.tls_hs, 1);
	bpf_map__set_max_entries(s->maps.trace, (uint32_t)sysconf(_SC_PAGESIZE));
}

struct obs_reqtime *obs_reqtime_new(const char *prog, const struct obs_reqtime_opts *opts,
				    struct sockets_bpf *skel)
{
	struct obs_reqtime *rt;
	int err;

	if (opts->nports > RT_MAX_PORTS) {
		err = -EINVAL;
		ll_warn(prog, "request timing takes at most %d ports", RT_MAX_PORTS);
		goto fail;
	}
	rt = calloc(1, sizeof(*rt));
	if (!rt) {
		err = -ENOMEM;
		goto fail;
	}
	memcpy(rt->ports, opts->ports, opts->nports * sizeof(opts->ports[0]));
	rt->nports = opts->nports;
	rt->owned = opts->owned;
	rt->dyn = opts->owned && !opts->nports;
	rt->nslots = rt->dyn ? 2 * RT_DYN_PORTS : 2 * (opts->nports ? opts->nports : 1);
	rt->ncpu = libbpf_num_possible_cpus();
	if (rt->ncpu <= 0) {
		err = rt->ncpu ? rt->ncpu : -EINVAL;
		goto cleanup;
	}
	/* the largest per-CPU read: the run-queue histogram */
	rt->percpu_len = (size_t)LL_HIST_BUCKETS * (size_t)rt->ncpu;
	rt->recs = MAP_FAILED;
	rt->percpu = calloc(rt->percpu_len, sizeof(uint64_t));
	rt->hist_cache = calloc(rt->nslots, sizeof(*rt->hist_cache));
	rt->hist_n = calloc(rt->nslots, sizeof(*rt->hist_n));
	if (!rt->percpu || !rt->hist_cache || !rt->hist_n) {
		err = -ENOMEM;
		goto cleanup;
	}
	rt->skel = skel;
	err = x__plan(rt, prog, opts->runq, opts->mech);
	if (err)
		goto cleanup;
	err = x__configure(rt, opts);
	if (err) {
		ll_warn(prog, "cannot size the request-timing maps: %s", strerror(-err));
		goto cleanup;
	}
	rt->trace_path = opts->trace_path;
	return rt;

cleanup:
	obs_reqtime_free(rt);
fail:
	errno = -err;
	return NULL;
}

int obs_reqtime_start(struct obs_reqtime *rt, const char *prog, FILE *trace_out)
{
	struct timespec ts;
	int err;

	if (trace_out && !rt->trace_path) {
		fclose(trace_out);
		trace_out = NULL;
	}
	if (rt->trace_path) {
		if (!trace_out) {
			ll_warn(prog, "--trace file '%s' was not opened", rt->trace_path);
			return -EBADF;
		}
		rt->trace = obs_trace_new(bpf_map__fd(rt->skel->maps.trace), trace_out,
					  rt->skel->rodata->targ_trace_every);
		if (!rt->trace) {
			err = -errno;
			fclose(trace_out);
			ll_warn(prog, "cannot start the --trace writer: %s", strerror(-err));
			return err;
		}
		rt->features.trace = true;
	}
	rt->recs_len = rt->nslots * (size_t)rt->ncpu * sizeof(struct rt_rec);
	rt->recs = mmap(NULL, rt->recs_len, PROT_READ, MAP_SHARED,
			bpf_map__fd(rt->skel->maps.recs), 0);
	if (rt->recs == MAP_FAILED) {
		err = -errno;
		ll_warn(prog, "cannot map the request-timing histograms: %s", strerror(-err));
		return err;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rt->start_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return 0;
}

void obs_reqtime_free(struct obs_reqtime *rt)
{
	if (!rt)
		return;
	obs_trace_free(rt->trace);
	if (rt->recs != MAP_FAILED && rt->recs)
		munmap((void *)rt->recs, rt->recs_len);
	free(rt->hist_n);
	free(rt->hist_cache);
	free(rt->percpu);
	free(rt);
}

/* Stop the trace writer (after draining the ring), keeping its counts. */
void x__reqtime_trace_stop(struct obs_reqtime *rt)
{
	if (!rt->trace)
		return;
	obs_trace_stop(rt->trace); /* drains first; an fclose error counts as a write error */
	rt->trace_written += obs_trace_written(rt->trace);
	rt->trace_errors += obs_trace_write_errors(rt->trace);
	rt->trace_err = obs_trace_error(rt->trace);
	obs_trace_free(rt->trace);
	rt->trace = NULL;
}

struct obs_reqtime_stats *obs_reqtime_stats_new(const struct obs_reqtime *rt)
{
	struct obs_reqtime_stats *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->nslots = rt->nslots;
	st->slot = calloc(rt->nslots, sizeof(*st->slot));
	if (!st->slot) {
		free(st);
		return NULL;
	}
	return st;
}

void obs_reqtime_stats_free(struct obs_reqtime_stats *st)
{
	if (!st)
		return;
	free(st->slot);
	free(st);
}

/* Sum a counter block over CPUs: first_ns is a min over CPUs that saw one, maxima are maxima. */
static void x__sum_ctrs(const uint64_t *v, int ncpu, struct rt_ctrs *out)
{
	const size_t words = sizeof(struct rt_ctrs) / 8;
	uint64_t *o = (uint64_t *)out;
	const struct rt_ctrs *c;
	int i, k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < ncpu; i++) {
		c = (const struct rt_ctrs *)(v + (size_t)i * words);
		for (k = 0; k < (int)words; k++)
			o[k] += ((const uint64_t *)c)[k];
	}
	out->first_ns = 0;
	out->last_ns = 0;
	for (k = 0; k < RT_NCOMP; k++)
		out->max_ns[k] = 0;
	for (i = 0; i < ncpu; i++) {
		c = (const struct rt_ctrs *)(v + (size_t)i * words);
		if (c->first_ns && (!out->first_ns || c->first_ns < out->first_ns))
			out->first_ns = c->first_ns;
		if (c->last_ns > out->last_ns)
			out->last_ns = c->last_ns;
		for (k = 0; k < RT_NCOMP; k++)
			if (c->max_ns[k] > out->max_ns[k])
				out->max_ns[k] = c->max_ns[k];
	}
}

/* A slot's counter blocks, one per CPU, copied out of the mapping into v. */
static void x__copy_ctrs(const struct obs_reqtime *rt, size_t slot, uint64_t *v)
{
	const size_t words = sizeof(struct rt_ctrs) / 8;
	const volatile uint64_t *c;
	size_t k;
	int i;

	for (i = 0; i < rt->ncpu; i++) {
		c = (const volatile uint64_t *)&rt->recs[(size_t)i * rt->nslots + slot].c;
		for (k = 0; k < words; k++)
			v[(size_t)i * words + k] = c[k];
	}
}

int obs_reqtime_read(struct obs_reqtime *rt, struct obs_reqtime_stats *st)
{
	uint32_t k, c, b;
	uint64_t sum;
	int i, err;

	if (rt->recs == MAP_FAILED)
		return -EBADF; /* before obs_reqtime_start() */
	for (k = 0; k < rt->nslots; k++) {
		x__copy_ctrs(rt, k, rt->percpu);
		x__sum_ctrs(rt->percpu, rt->ncpu, &st->slot[k].c);
	}

	err = obs_read_percpu(rt->skel->maps.global, RT_G_MAX, rt->ncpu, 1,
			      rt->percpu, rt->percpu_len);
	if (err)
		return err;
	for (k = 0; k < RT_G_MAX; k++) {
		st->global[k] = 0;
		for (i = 0; i < rt->ncpu; i++) {
			uint64_t v = rt->percpu[(size_t)k * rt->ncpu + i];

			if (k == RT_G_RUNQ_MAX_NS)
				st->global[k] = v > st->global[k] ? v : st->global[k];
			else
				st->global[k] += v;
		}
	}

	err = obs_read_percpu(rt->skel->maps.runq_hist, LL_HIST_BUCKETS, rt->ncpu, 1,
			      rt->percpu, rt->percpu_len);
	if (err)
		return err;
	for (k = 0; k < LL_HIST_BUCKETS; k++) {
		for (sum = 0, i = 0; i < rt->ncpu; i++)
			sum += rt->percpu[(size_t)k * rt->ncpu + i];
		st->runq[k] = sum;
	}

	for (k = 0; k < rt->nslots; k++) {
		const struct rt_ctrs *ct = &st->slot[k].c;
		uint64_t n[RT_NCOMP] = {
			[RT_QUEUE] = ct->requests - ct->no_arrival,
			[RT_SERVICE] = ct->requests,
			[RT_RESIDENCE] = ct->requests - ct->no_arrival,
			[RT_ACCEPT] = ct->accept_n,
			[RT_MULTI_FIRST] = ct->multi_write,
			[RT_MULTI_LAST] = ct->multi_write,
			[RT_TLS_HS] = ct->tls_handshakes,
			[RT_TLS_WORK] = ct->tls_handshakes,
		};

		for (c = 0; c < RT_NCOMP; c++) {
			if (n[c] != rt->hist_n[k][c]) {
				for (b = 0; b < LL_HIST_BUCKETS; b++)
					rt->hist_cache[k][c][b] = 0;
				for (i = 0; i < rt->ncpu; i++) {
					const volatile __u64 *h =
						rt->recs[(size_t)i * rt->nslots + k].hist[c];

					for (b = 0; b < LL_HIST_BUCKETS; b++)
						rt->hist_cache[k][c][b] += h[b];
				}
				rt->hist_n[k][c] = n[c];
			}
			memcpy(st->slot[k].hist[c], rt->hist_cache[k][c], sizeof(rt->hist_cache[k][c]));
		}
	}
	{
		struct bpf_program *progs[RT_TIER_PROGS + 4];
		size_t n;

		x__tier_progs(rt->skel, rt->features.mech, progs);
		for (n = 0; progs[n]; n++)
			;
		progs[n++] = rt->skel->progs.handle_sched_wakeup;
		progs[n++] = rt->skel->progs.handle_sched_wakeup_new;
		progs[n++] = rt->skel->progs.handle_sched_switch;
		st->missed = obs_progs_missed(progs, n);
	}
	return 0;
}

int obs_reqtime_verify(void *arg)
{
	struct obs_reqtime *rt = arg;
	struct obs_reqtime_stats *st = obs_reqtime_stats_new(rt);
	int err;

	if (!st)
		return -ENOMEM;
	err = obs_reqtime_read(rt, st);
	obs_reqtime_stats_free(st);
	return err;
}

void obs_reqtime_stats_sub(struct obs_reqtime_stats *st, const struct obs_reqtime_stats *a,
			   const struct obs_reqtime_stats *b)
{
	const size_t words = sizeof(struct rt_ctrs) / 8;
	size_t s, k, c;

	for (s = 0; s < st->nslots; s++) {
		uint64_t *o = (uint64_t *)&st->slot[s].c;
		const uint64_t *x = (const uint64_t *)&a->slot[s].c;
		const uint64_t *y = (const uint64_t *)&b->slot[s].c;

		for (k = 0; k < words; k++)
			o[k] = x[k] - y[k];
		st->slot[s].c.first_ns = a->slot[s].c.first_ns;
		st->slot[s].c.last_ns = a->slot[s].c.last_ns;
		for (k = 0; k < RT_NCOMP; k++)
			st->slot[s].c.max_ns[k] = 0;
		for (c = 0; c < RT_NCOMP; c++)
			for (k = 0; k < LL_HIST_BUCKETS; k++)
				st->slot[s].hist[c][k] = a->slot[s].hist[c][k] - b->slot[s].hist[c][k];
	}
	for (k = 0; k < RT_G_MAX; k++)
		st->global[k] = a->global[k] - b->global[k];
	st->global[RT_G_RUNQ_MAX_NS] = 0;
	for (k = 0; k < LL_HIST_BUCKETS; k++)
		st->runq[k] = a->runq[k] - b->runq[k];
	st->missed = a->missed - b->missed;
}

/*
 * Service to the last write, derived without a per-request cost: every request is in SERVICE;
 * those whose response took several writes are also in MULTI_FIRST (same value) and MULTI_LAST.
 * So last-write = SERVICE - MULTI_FIRST + MULTI_LAST, bucket by bucket. In an interval a request
 * can be in SERVICE one tick and in MULTI_* the next; a bucket that would go negative is 0.
 */
static void x__service_last(const struct obs_rt_slot *sl, struct ll_hist *h)
{
	int64_t n;
	uint32_t i;

	for (i = 0; i < LL_HIST_BUCKETS; i++) {
		n = (int64_t)sl->hist[RT_SERVICE][i] - (int64_t)sl->hist[RT_MULTI_FIRST][i] +
		    (int64_t)sl->hist[RT_MULTI_LAST][i];
		if (n > 0)
			ll_hist_add_bucket(h, i, (uint64_t)n);
	}
	if (!h->total)
		return;
	h->sum = sl->c.sum_ns[RT_SERVICE] - sl->c.sum_ns[RT_MULTI_FIRST] +
		 sl->c.sum_ns[RT_MULTI_LAST];
	if (sl->c.max_ns[RT_SERVICE] || sl->c.max_ns[RT_MULTI_LAST])
		h->max = sl->c.max_ns[RT_SERVICE] > sl->c.max_ns[RT_MULTI_LAST]
				 ? sl->c.max_ns[RT_SERVICE]
				 : sl->c.max_ns[RT_MULTI_LAST];
}

void obs_reqtime_hist(const struct obs_reqtime_stats *st, size_t slot, unsigned int which,
		      struct ll_hist *h)
{
	const struct obs_rt_slot *sl = &st->slot[slot];
	uint32_t i;

	ll_hist_reset(h);
	if (which == OBS_RT_SERVICE_LAST) {
		x__service_last(sl, h);
		return;
	}
	for (i = 0; i < LL_HIST_BUCKETS; i++)
		ll_hist_add_bucket(h, i, sl->hist[which][i]);
	if (!h->total)
		return;
	h->sum = sl->c.sum_ns[which];
	if (sl->c.max_ns[which])
		h->max = sl->c.max_ns[which];
}
