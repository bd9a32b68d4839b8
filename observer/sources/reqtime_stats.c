// SPDX-License-Identifier: MIT
/* Request timing: its plan (observer/kernel/reqtime_mech.c), its counters and histograms read
 * back through the socket object's owner (kernel/sockets.c) into labelled stats and deltas. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "kernel/sockets.h"
#include "sources/reqtime_stats.h"
#include "sources/trace.h"
#include "sources/ssl_libs.h"
#include "kernel/ssl_probes.h"

struct obs_reqtime {
	struct obs_sockets *conn; /* the socket object's owner: every read of its maps goes there */
	struct obs_reqtime_features features;
	struct bpf_program *lean_progs[OBS_LEAN_PROGS]; /* features.lean: arrival, recv, copy, send
							 * (kernel/lean.h) */
	struct bpf_program *lean_sweep, *lean_udp;	/* the copy hook alone's passes */
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
	struct obs_ssl_probes *ssl; /* TLS plaintext's uprobes (NULL: none attached) */
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
		return obs_sockets_dyn_port(rt->conn, slot / 2);
	return rt->nports ? rt->ports[slot / 2] : 0;
}

static int cmp_reader(const void *a, const void *b)
{
	const struct obs_snap_reader *x = a, *y = b;

	return x->sockets < y->sockets ? 1 : x->sockets > y->sockets ? -1 : 0;
}

size_t obs_reqtime_foreign(const struct obs_reqtime *rt, struct obs_snap_reader *out, size_t n)
{
	struct rt_foreign_key keys[RT_FOREIGN_SLOTS];
	struct rt_foreign vals[RT_FOREIGN_SLOTS];
	struct obs_snap_reader all[RT_FOREIGN_SLOTS];
	size_t i, m;

	if (!rt->owned)
		return 0;
	m = obs_sockets_foreign(rt->conn, keys, vals, RT_FOREIGN_SLOTS);
	for (i = 0; i < m; i++) {
		all[i].pid = keys[i].tgid;
		memcpy(all[i].comm, vals[i].comm, sizeof(all[i].comm));
		all[i].comm[sizeof(all[i].comm) - 1] = 0;
		all[i].port = keys[i].port;
		all[i].udp = keys[i].udp;
		all[i].sockets = vals[i].sockets;
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

void obs_reqtime_arrival_window(void *arg)
{
	struct obs_reqtime *rt = arg;

	/* the BPF side reads it with a plain load; a window opens once a second at most */
	obs_sockets_arrival_window(rt->conn);
}

void obs_reqtime_arrival_share(struct obs_reqtime *rt, double share)
{
	rt->features.arrival_share = share;
}

struct obs_reqtime *obs_reqtime_new(const char *prog, const struct obs_reqtime_opts *opts,
				    struct obs_sockets *conn)
{
	struct obs_reqtime_mech_plan plan;
	struct obs_reqtime_mech_got got;
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
	rt->percpu = calloc(rt->percpu_len, sizeof(uint64_t));
	rt->hist_cache = calloc(rt->nslots, sizeof(*rt->hist_cache));
	rt->hist_n = calloc(rt->nslots, sizeof(*rt->hist_n));
	if (!rt->percpu || !rt->hist_cache || !rt->hist_n) {
		err = -ENOMEM;
		goto cleanup;
	}
	rt->conn = conn;
	plan = (struct obs_reqtime_mech_plan){opts->mech, opts->runq, opts->ports, opts->nports,
					      opts->owned, rt->dyn, rt->nslots, rt->ncpu,
					      opts->trace_path, opts->trace_every,
					      opts->arrivals_sampled, opts->lean, opts->h2_headers,
					      opts->h2_frames, opts->detach, opts->no_tls_uprobes};
	err = obs_reqtime_mech_plan(prog, conn, &plan, &got);
	if (err)
		goto cleanup;
	rt->features.mech = got.mech;
	rt->features.close_out = got.close_out;
	rt->features.accept = got.accept;
	rt->features.runq = got.runq;
	rt->features.arrivals_sampled = opts->arrivals_sampled;
	rt->features.lean = got.lean;
	rt->features.lean_mode = opts->lean;
	memcpy(rt->lean_progs, got.lean_progs, sizeof(rt->lean_progs));
	rt->lean_sweep = got.lean_sweep;
	rt->lean_udp = got.lean_udp;
	rt->arrival = opts->arrivals_sampled ? got.arrival : NULL;
	memcpy(rt->attached, got.attached, sizeof(rt->attached));
	rt->features.tls_possible = got.ssl;
	rt->features.h2_headers = got.h2_headers;
	snprintf(rt->features.tls_text, sizeof(rt->features.tls_text), "off: %s",
		 got.ssl ? "not attached" : got.ssl_why);
	if (!got.ssl)
		ll_warn(prog, "note: TLS plaintext is off (%s): TLS connections count as connections "
			      "and handshakes, not requests", got.ssl_why);
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
		rt->trace = obs_trace_new(obs_sockets_trace_fd(rt->conn), trace_out,
					  obs_sockets_trace_every(rt->conn));
		if (!rt->trace) {
			err = -errno;
			fclose(trace_out);
			ll_warn(prog, "cannot start the --trace writer: %s", strerror(-err));
			return err;
		}
		rt->features.trace = true;
	}
	rt->recs_len = rt->nslots * (size_t)rt->ncpu * sizeof(struct rt_rec);
	rt->recs = obs_sockets_recs_map(rt->conn, rt->recs_len);
	if (!rt->recs) {
		err = -errno;
		ll_warn(prog, "cannot map the request-timing histograms: %s", strerror(-err));
		return err;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rt->start_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return 0;
}

int obs_reqtime_ssl_attach(struct obs_reqtime *rt, const uint32_t *pids, size_t npids,
			   bool scoped)
{
	struct obs_reqtime_features *f = &rt->features;
	struct obs_ssl_file files[OBS_SSL_LIBS];
	struct obs_ssl_libs *libs;
	size_t len, i;
	bool host;

	if (!f->tls_possible)
		return 0;
	libs = calloc(1, sizeof(*libs));
	if (!libs)
		return -ENOMEM;
	obs_ssl_libs_find(libs, pids, npids);
	/* no server found (it starts after the observer): the host's libssl, which covers it if
	 * it uses the host's */
	host = !libs->procs && obs_ssl_libs_host(libs);
	for (i = 0; i < libs->nlibs; i++)
		files[i] = (struct obs_ssl_file){libs->lib[i].open, libs->lib[i].path};
	rt->ssl = obs_ssl_probes_attach(rt->conn, files, libs->nlibs, pids, npids, scoped);
	if (!rt->ssl) {
		free(libs);
		return -ENOMEM;
	}
	f->tls_plaintext = obs_ssl_probes_count(rt->ssl) > 0;
	snprintf(f->tls_text, sizeof(f->tls_text), "%s%s", obs_ssl_probes_text(rt->ssl),
		 host && f->tls_plaintext ? " (the host's: no serving process found at start)" : "");
	f->tls_without = libs->without;
	f->tls_without_pid = libs->without_pid;
	memcpy(f->tls_without_comm, libs->without_comm, sizeof(f->tls_without_comm));
	if (f->tls_plaintext) {
		len = strlen(rt->attached);
		snprintf(rt->attached + len, sizeof(rt->attached) - len, "; TLS plaintext: %zu "
			 "libssl", obs_ssl_probes_count(rt->ssl));
	}
	free(libs);
	return 0;
}

void obs_reqtime_free(struct obs_reqtime *rt)
{
	if (!rt)
		return;
	obs_ssl_probes_free(rt->ssl);
	obs_trace_free(rt->trace);
	obs_sockets_recs_unmap(rt->recs, rt->recs_len);
	free(rt->hist_n);
	free(rt->hist_cache);
	free(rt->percpu);
	free(rt);
}

void obs_reqtime_trace_stop(struct obs_reqtime *rt)
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
	struct obs_reqtime_stats *st = calloc(1, sizeof(*st) + rt->nslots * sizeof(st->slot[0]));

	if (!st)
		return NULL;
	st->nslots = rt->nslots;
	return st;
}

void obs_reqtime_stats_free(struct obs_reqtime_stats *st)
{
	free(st);
}

/* Sum a counter block over CPUs: first_ns is a min over CPUs that saw one, maxima are maxima. */
static void sum_ctrs(const uint64_t *v, int ncpu, struct rt_ctrs *out)
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
static void copy_ctrs(const struct obs_reqtime *rt, size_t slot, uint64_t *v)
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

	if (!rt->recs)
		return -EBADF; /* before obs_reqtime_start() */
	for (k = 0; k < rt->nslots; k++) {
		copy_ctrs(rt, k, rt->percpu);
		sum_ctrs(rt->percpu, rt->ncpu, &st->slot[k].c);
	}

	err = obs_sockets_read_percpu(rt->conn, OBS_SOCKETS_RT_GLOBAL, RT_G_MAX, rt->ncpu, 1,
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

	/* run-queue waits only with --runq: its 4,096 per-CPU buckets are the largest read of a
	 * tick (about 1 ms of the observer's CPU on 2 CPUs), and without its programs all zero */
	if (!rt->features.runq) {
		memset(st->runq, 0, sizeof(st->runq));
	} else {
		err = obs_sockets_read_percpu(rt->conn, OBS_SOCKETS_RT_RUNQ, LL_HIST_BUCKETS,
					      rt->ncpu, 1, rt->percpu, rt->percpu_len);
		if (err)
			return err;
		for (k = 0; k < LL_HIST_BUCKETS; k++) {
			for (sum = 0, i = 0; i < rt->ncpu; i++)
				sum += rt->percpu[(size_t)k * rt->ncpu + i];
			st->runq[k] = sum;
		}
	}

	for (k = 0; k < rt->nslots; k++) {
		const struct rt_ctrs *ct = &st->slot[k].c;
		uint64_t n[RT_NCOMP] = {
			[RT_QUEUE] = ct->requests - ct->no_arrival,
			[RT_SERVICE] = ct->requests - ct->untimed,
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
	for (k = 0; k < rt->nslots; k++) {
		st->slot[k].port = obs_reqtime_slot_port(rt, k);
		st->slot[k].used = obs_reqtime_slot_used(rt, k);
		st->slot[k].udp = k % 2;
	}
	st->missed = obs_reqtime_mech_missed(rt->conn, rt->features.mech);
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
		st->slot[s].port = a->slot[s].port;
		st->slot[s].used = a->slot[s].used;
		st->slot[s].udp = a->slot[s].udp;
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

struct bpf_program *obs_reqtime_arrival_prog(const struct obs_reqtime *rt)
{
	return rt->arrival;
}

struct obs_lean *obs_reqtime_lean_new(struct obs_reqtime *rt, const char *prog, int netns_fd)
{
	struct obs_lean_kernel k = {
		.sweep = rt ? rt->lean_sweep : NULL,
		.udp = rt ? rt->lean_udp : NULL,
		.netns_fd = netns_fd,
	};

	if (!rt || !rt->features.lean)
		return NULL;
	memcpy(k.progs, rt->lean_progs, sizeof(k.progs));
	obs_sockets_lean_bss(rt->conn, &k.marks, &k.solo, &k.udp_socks);
	/* the passes find a socket's slot by its port: not for --pid/--cgroup's own ports, nor
	 * --all-ports */
	k.solo_ok = rt->nports && !rt->dyn;
	return obs_lean_new(prog, rt->features.lean_mode, &k);
}


void obs_reqtime_lean_said(struct obs_reqtime *rt, const struct obs_lean *l)
{
	static const char *const states[] = {
		[OBS_LEAN_FULL] = "full", [OBS_LEAN_GOING] = "going lean", [OBS_LEAN_LEAN] = "lean",
		[OBS_LEAN_LEAVING] = "leaving lean", [OBS_LEAN_DONE] = "full",
		[OBS_LEAN_SOLO_GOING] = "lean", [OBS_LEAN_SOLO] = "copy hook alone",
		[OBS_LEAN_START] = "deciding"};
	const char *why;

	if (!l)
		return;
	rt->features.lean_share = obs_lean_share(l);
	rt->features.lean_solo_share = obs_lean_solo_share(l);
	rt->features.lean_reads = obs_lean_reads(l);
	rt->features.lean_state = states[obs_lean_state(l)];
	why = obs_lean_why(l);
	snprintf(rt->features.lean_why, sizeof(rt->features.lean_why), "%s", why ? why : "");
}

void obs_reqtime_lost(const struct obs_reqtime *rt, const struct obs_reqtime_stats *st,
		 struct obs_reqtime_lost *out)
{
	uint64_t written;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->no_storage = st->global[RT_G_NO_STORAGE];
	out->tgids_full = st->global[RT_G_TGIDS_FULL];
	out->ssl_procs_full = st->global[RT_G_SSL_PROCS_FULL];
	out->skipped_runs = st->missed;
	for (i = 0; i < st->nslots; i++)
		out->trace_lost += st->slot[i].c.trace_lost;
	obs_reqtime_trace_counts(rt, &written, &out->trace_write_errors);
	out->trace_errno = obs_reqtime_trace_error(rt);
}

uint64_t obs_reqtime_lost_total(const struct obs_reqtime_lost *l)
{
	return l->no_storage + l->tgids_full + l->skipped_runs + l->trace_lost + l->ssl_procs_full;
}
