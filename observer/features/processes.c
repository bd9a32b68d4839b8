// SPDX-License-Identifier: MIT
/*
 * The processes feature: its callbacks (feature.h) and what goes into its snapshot and the
 * rules': per watched process, fds against RLIMIT_NOFILE and their forecast, the failures of the
 * processes that matter (port searches that failed, named per process; the watched namespace's
 * failures), the --children exits, the targets' exits and restarts, the system's file table.
 * Which processes are watched, and their events, is sources/watched.c's, read by the tick's read
 * phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include "kernel/failures_object.h"
#include "features/feature.h"
#include "sources/holders.h"
#include "tick/snapshots.h"
#include "features/processes.h"
#include "sources/targets.h"
#include "sources/tick_reader.h"
#include "sources/watched.h"
#include "tick/record.h"
#include "output/interval_record.h"

struct obs_processes {
	struct obs_processes_opts o;
	struct obs_targets *targets;
	bool children;
	struct obs_watched *w; /* the processes watched, and their events */
	struct obs_processes_snap snap;
	/* the failed processes' failures seen so far and their network namespace, for the
	 * interval's failures of the watched namespace's processes */
	struct errseen {
		uint32_t pid;
		uint32_t netns; /* 0: unknown (gone before it was read) */
		uint64_t fails[OBS_FAIL_MAX];
	} errseen[OBS_MAX_ERRPROCS];
	size_t nerrseen;
	uint64_t local_total[OBS_FAIL_MAX]; /* the watched namespace's failures since start */
	uint64_t file_nr_max, file_max;
	struct obs_holders holders; /* who holds a pressed port group's connections */
};

struct obs_processes *obs_processes_new(const char *prog, const struct obs_processes_opts *o)
{
	struct obs_processes *ps = calloc(1, sizeof(*ps));

	if (ps)
		ps->w = obs_watched_new(prog, o->conn, o->fail, o->targets, o->max_procs);
	if (!ps || !ps->w) {
		free(ps);
		return NULL;
	}
	ps->o = *o;
	ps->targets = o->targets;
	ps->children = o->children;
	return ps;
}

void obs_processes_free(struct obs_processes *ps)
{
	if (!ps)
		return;
	obs_watched_free(ps->w);
	free(ps);
}

/* Attached, still privileged: the task iterator (read later with no capability, fditer.h), the
 * targets and the children there already. */
static int start_feature(void *self)
{
	struct obs_processes *ps = self;

	return obs_watched_start(ps->w, ps->children);
}

void obs_processes_reads(struct obs_processes *ps, struct obs_reader_opts *o)
{
	o->watched = ps->w;
	o->holders = &ps->holders;
	o->netns = ps->targets->netns;
	o->local_fails = !ps->targets->npids && !ps->targets->cgroup_id;
}

static uint64_t keep_caps(const void *self)
{
	const struct obs_processes *ps = self;

	/* with the iterators, none; else /proc/PID/fd (and exe, ns/net) of a process with other
	 * credentials or more capabilities than ours (ptrace), and its 0500 directory (DAC) */
	return ps->w->fdit ? 0 : 1ULL << CAP_SYS_PTRACE | 1ULL << CAP_DAC_READ_SEARCH;
}

/* The netns local_fails() read for pid: 0 unknown. */
static uint32_t seen_netns(const struct obs_processes *ps, uint32_t pid)
{
	size_t k;

	for (k = 0; k < ps->nerrseen; k++)
		if (ps->errseen[k].pid == pid)
			return ps->errseen[k].netns;
	return 0;
}

/* The targets' threads on and waiting for a CPU over the interval (cpuwait.h). */
static void snap_cpu(const struct obs_watched *w, struct obs_snap *s)
{
	const struct obs_proc *p;
	uint64_t run = 0, wait = 0;
	size_t i;

	for (i = 0; i < w->nprocs; i++) {
		p = &w->procs[i];
		if (!p->cpu_grew)
			continue;
		run += p->cpu_run_d;
		wait += p->cpu_wait_d;
		if (p->cpus > s->cpu_cpus)
			s->cpu_cpus = p->cpus;
		s->cpu_procs++;
	}
	s->cpu_on = s->cpu_procs > 0 && s->dt > 0;
	s->cpu_busy = -1;
	if (!s->cpu_on)
		return;
	s->cpu_running = (double)run / (s->dt * 1e9);
	s->cpu_waiting = (double)wait / (s->dt * 1e9);
	s->cpu_unread = w->nunwatched_live + w->unwatched_more;
	if (!w->cpu_stat_grew)
		return;
	s->cpu_lost = (double)w->cpu_lost_d / (s->dt * 1e9);
	/* (USER_HZ ticks against the tick's own interval: a tick's worth either way) */
	s->cpu_busy = CPU_COUNT(&w->cpu_stat_mask) - (double)w->cpu_idle_d / (s->dt * 1e9);
	if (s->cpu_busy < 0)
		s->cpu_busy = 0;
}

static void snap_procs(const struct obs_processes *ps, struct obs_snap *s)
{
	const struct obs_watched *w = ps->w;
	const struct obs_proc *p;
	struct obs_snap_proc *q;
	size_t i, k;
	uint64_t any;

	for (i = 0; i < w->nprocs && s->nprocs < OBS_SNAP_PROCS; i++) {
		p = &w->procs[i];
		q = &s->proc[s->nprocs++];
		q->pid = p->fd.pid;
		memcpy(q->comm, p->fd.comm, sizeof(q->comm));
		q->watched = true;
		q->exited = p->exited;
		q->open = p->fd.open;
		q->soft = p->fd.soft;
		q->hard = p->fd.hard;
		q->emfile = p->fails[OBS_FAIL_EMFILE];
		q->last_sys = q->emfile ? obs_fail_sys_name(p->last_sys) : NULL;
		if (p->netns_outside && s->nnetns_outside < OBS_SNAP_NOTES)
			s->netns_outside[s->nnetns_outside++] = p->fd.pid;
	}
	/* processes that failed past the --max-procs cap are named all the same */
	for (i = 0; i < w->nerrprocs && s->nprocs < OBS_SNAP_PROCS; i++) {
		const struct obs_fail_proc *e = &w->errprocs[i];

		for (k = 0, any = 0; k < OBS_FAIL_MAX; k++)
			any += e->e.fails[k];
		if (!any || !e->e.fails[OBS_FAIL_EMFILE])
			continue;
		for (k = 0; k < w->nprocs && w->procs[k].fd.pid != e->pid; k++)
			;
		if (k < w->nprocs)
			continue;
		if (!ps->targets->npids && !ps->targets->cgroup_id &&
		    seen_netns(ps, e->pid) != ps->targets->netns)
			continue; /* another namespace's process (local_fails) */
		q = &s->proc[s->nprocs++];
		q->pid = e->pid;
		snprintf(q->comm, sizeof(q->comm), "%.15s", e->e.comm);
		q->open = q->soft = q->hard = -1;
		q->emfile = e->e.fails[OBS_FAIL_EMFILE];
		q->last_sys = obs_fail_sys_name(e->e.last_sys);
	}
	snap_cpu(w, s);
	s->pid_targets = ps->targets->npids > 0;
	if (s->pid_targets && !ps->children) {
		memcpy(s->kid, w->kids, w->nkids * sizeof(w->kids[0]));
		s->nkids = w->nkids;
	}
	s->max_procs = (unsigned int)w->max_procs;
	s->targets_max = OBS_MAX_TARGETS;
	s->procs_unwatched = w->nunwatched + w->unwatched_more;
	if (w->nunwatched) {
		s->first_unwatched_pid = w->unwatched[0];
		memcpy(s->first_unwatched_comm, w->first_unwatched_comm,
		       sizeof(s->first_unwatched_comm));
	}
}

/*
 * The processes whose connect() found no free port, the most failed first: the kernel names the
 * caller of each failed port search (errprocs, conn.bpf.h), in the watched namespace only and,
 * with --pid/--cgroup, only the targets. Their counts are the kernel's, one per failure.
 */
static void portfail(const struct obs_processes *ps, struct obs_snap *s)
{
	const struct obs_watched *w = ps->w;
	const struct obs_fail_proc *e;
	struct obs_snap_portfail *q;
	size_t i, k;

	s->nportfail = s->portfail_more = 0;
	for (i = 0; i < w->nerrprocs; i++) {
		e = &w->errprocs[i];
		if (!e->e.fails[OBS_FAIL_EADDRNOTAVAIL])
			continue;
		if (!ps->targets->npids && !ps->targets->cgroup_id &&
		    seen_netns(ps, e->pid) != ps->targets->netns)
			continue;
		/* insert in order, most failures first; the least falls off the end */
		for (k = s->nportfail; k > 0 && s->portfail[k - 1].total < e->e.fails[OBS_FAIL_EADDRNOTAVAIL];
		     k--)
			;
		if (k == OBS_SNAP_PORTFAIL) {
			s->portfail_more++;
			continue;
		}
		if (s->nportfail == OBS_SNAP_PORTFAIL)
			s->portfail_more++;
		else
			s->nportfail++;
		memmove(&s->portfail[k + 1], &s->portfail[k],
			(s->nportfail - 1 - k) * sizeof(s->portfail[0]));
		q = &s->portfail[k];
		q->pid = e->pid;
		snprintf(q->comm, sizeof(q->comm), "%.15s", e->e.comm);
		q->total = e->e.fails[OBS_FAIL_EADDRNOTAVAIL];
	}
}

/*
 * The interval's failures of the processes that matter: without --pid/--cgroup every process of
 * the host is counted in the kernel, so only those of the watched network namespace are the
 * targets' here (one gone before its namespace could be read is not). fails[] gets them,
 * fails_sys[] the call that failed last in the process that failed most.
 */
static void local_fails(struct obs_processes *ps, struct obs_snap *s)
{
	const struct obs_watched *w = ps->w;
	uint64_t best[OBS_SNAP_FAILS] = {}, d;
	struct errseen *e;
	const struct obs_fail_proc *p;
	size_t i, k;
	unsigned int f;
	bool in;

	for (f = 0; f < OBS_SNAP_FAILS; f++)
		s->fails[f] = 0;
	for (i = 0; i < w->nerrprocs; i++) {
		p = &w->errprocs[i];
		for (k = 0; k < ps->nerrseen && ps->errseen[k].pid != p->pid; k++)
			;
		if (k == ps->nerrseen) {
			if (ps->nerrseen == OBS_MAX_ERRPROCS)
				ps->nerrseen = 0; /* start over: an old process' counts are lost */
			k = ps->nerrseen++;
			ps->errseen[k] = (struct errseen){p->pid, w->errnetns[i], {0}};
		}
		e = &ps->errseen[k];
		in = e->netns && e->netns == ps->targets->netns;
		for (f = 0; f < OBS_FAIL_MAX && f < OBS_SNAP_FAILS; f++) {
			d = p->e.fails[f] >= e->fails[f] ? p->e.fails[f] - e->fails[f] : p->e.fails[f];
			e->fails[f] = p->e.fails[f];
			if (!in || !d)
				continue;
			s->fails[f] += d;
			if (d > best[f]) {
				best[f] = d;
				s->fails_sys[f] = obs_fail_sys_name(p->e.last_sys);
			}
		}
	}
}

/* --children: the interval's status-0 exits against the connections closed (the rules' spike of
 * exits), and the parent that forked the most. */
static void snap_exits(const struct obs_processes *ps, const struct obs_tick *tk,
		       struct obs_snap *s)
{
	const struct obs_watched *w = ps->w;
	const struct obs_watched_forker *best = NULL;
	size_t i;

	s->children_on = true;
	s->child_exits = w->exits_now;
	s->closed = tk->conn->delta.moves[OBS_TCP_STATES + OBS_SNAP_ESTABLISHED];
	for (i = 0; i < w->nforkers; i++)
		if (!best || w->forkers[i].forks > best->forks)
			best = &w->forkers[i];
	if (best) {
		s->forker.pid = best->pid;
		snprintf(s->forker.comm, sizeof(s->forker.comm), "%s", best->comm);
		s->forker.forks = best->forks;
	} else if (ps->targets->npids) {
		s->forker.pid = ps->targets->pids[0];
		snprintf(s->forker.comm, sizeof(s->forker.comm), "%s", ps->targets->comms[0]);
	}
}

/* The rules' part. Without --pid/--cgroup the kernel counted every process: the failures of the
 * watched namespace's replace those the failures feature put in. */
static void fill_snap(struct obs_processes *ps, const struct obs_tick *tk, struct obs_snap *s)
{
	const struct obs_watched *w = ps->w;
	static const uint64_t none[OBS_SYS_MAX][OBS_FAIL_MAX];
	const uint64_t(*sys)[OBS_FAIL_MAX] = tk->fail ? tk->fail->sys : none;
	unsigned int f, k, best;
	size_t i;

	if (!ps->targets->npids && !ps->targets->cgroup_id) {
		local_fails(ps, s);
		/* EADDRNOTAVAIL is a port search that failed: the kernel's count on the target
		 * ports, exact (the processes' counts, read at another moment, are not added in:
		 * the larger of two counts per interval over-counted the run's total) */
		s->fails[OBS_SNAP_EADDRNOTAVAIL] = tk->conn->delta.ctr[OBS_CTR_CONNECT_NOPORT];
		s->fails_sys[OBS_SNAP_EADDRNOTAVAIL] =
			s->fails[OBS_SNAP_EADDRNOTAVAIL] ? "connect" : NULL;
		/* the system's file table is the host's: every ENFILE counts */
		for (k = 0, best = 0, s->fails[OBS_SNAP_ENFILE] = 0; k < OBS_SYS_MAX; k++) {
			s->fails[OBS_SNAP_ENFILE] += sys[k][OBS_FAIL_ENFILE];
			if (sys[k][OBS_FAIL_ENFILE] > sys[best][OBS_FAIL_ENFILE])
				best = k;
		}
		s->fails_sys[OBS_SNAP_ENFILE] = !sys[best][OBS_FAIL_ENFILE] ? NULL
						: best == OBS_SYS_ACCEPT4 ? "accept4"
						: obs_fail_sys_name(best);
		for (f = 0; f < OBS_FAIL_MAX && f < OBS_SNAP_FAILS; f++)
			if (f != OBS_SNAP_ENFILE)
				s->fails_total[f] = ps->local_total[f] += s->fails[f];
	}
	portfail(ps, s);
	s->holders = ps->holders.last;
	s->have_files = ps->snap.have_files;
	s->file_nr = ps->snap.file_nr;
	s->file_max = ps->file_max;
	snap_procs(ps, s);
	if (ps->children)
		snap_exits(ps, tk, s);
	for (i = 0; i < w->nev_now; i++)
		s->event[s->nevents++] = w->ev_now[i];
	snprintf(s->netns_name, sizeof(s->netns_name), "net:[%u] of %.63s", ps->targets->netns,
		 ps->targets->netns_from);
}

static int tick(void *self, struct obs_tick *tk)
{
	struct obs_processes *ps = self;
	const struct obs_watched *w = ps->w;
	struct obs_processes_snap *sn = &ps->snap;
	uint64_t nr = 0, max = 0;
	double pct;
	size_t i;

	sn->fd_pct = -1;
	for (i = 0; i < w->nprocs; i++) {
		if (w->procs[i].exited || w->procs[i].fd.soft <= 0 || w->procs[i].fd.open < 0)
			continue;
		pct = 100.0 * w->procs[i].fd.open / w->procs[i].fd.soft;
		if (pct > sn->fd_pct)
			sn->fd_pct = pct;
	}
	tk->rec->procs = w->procs;
	tk->rec->nprocs = w->nprocs;
	sn->have_files = tk->reads->have_files;
	nr = tk->reads->file_nr;
	max = tk->reads->file_max;
	if (sn->have_files) {
		sn->file_nr = nr;
		sn->file_max = max;
		if (nr > ps->file_nr_max)
			ps->file_nr_max = nr;
		ps->file_max = max;
	}
	if (tk->snap)
		fill_snap(ps, tk, tk->snap);
	sn->ev_lost = w->ev_lost;
	obs_watched_next(ps->w);
	tk->procs = sn;
	return 0;
}

static int summary(void *self, const struct obs_tick *tk, FILE *out)
{
	const struct obs_processes *ps = self;
	const struct obs_watched *w = ps->w;

	(void)tk;
	if (w->nunwatched || w->unwatched_more)
		fprintf(out, "  processes watched  %12zu  (--max-procs %zu; %llu more not watched for "
			     "fds nor CPU waits)\n", w->nprocs, w->max_procs,
			(unsigned long long)(w->nunwatched + w->unwatched_more));
	if (ps->children)
		fprintf(out, "  children           %12llu  (--children: %llu there at the start, %llu "
			     "forked since; %llu ended, %llu of them badly: a signal or a non-zero "
			     "status)\n", (unsigned long long)(w->children_found + w->children_forked),
			(unsigned long long)w->children_found, (unsigned long long)w->children_forked,
			(unsigned long long)w->children_exited,
			(unsigned long long)w->children_abnormal);
	return 0;
}

/* "fds", "system_files" and "processes" of the "forensics" object. */
static int json_add(void *self, const struct obs_tick *tk, json_t *root)
{
	const struct obs_processes *ps = self;
	const struct obs_watched *w = ps->w;
	int err;

	(void)tk;
	err = obs_feature_forensics_set(root, "fds", obs_record_procs_json(w->procs, w->nprocs));
	if (!err)
		err = obs_feature_forensics_set(root, "system_files",
						json_pack("{s:I, s:I}", "open_max",
							  (json_int_t)ps->file_nr_max, "max",
							  (json_int_t)ps->file_max));
	if (!err)
		err = obs_feature_forensics_set(root, "port_holders",
						json_pack("{s:I, s:I, s:f}", "passes",
							  (json_int_t)ps->holders.passes, "failed",
							  (json_int_t)ps->holders.failed, "slowest_ms",
							  ps->holders.ms_max));
	if (err)
		return err;
	return obs_feature_forensics_set(root, "processes",
		json_pack("{s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}}",
		"watched", (json_int_t)w->nprocs, "max_procs", (json_int_t)w->max_procs,
		"unwatched", (json_int_t)(w->nunwatched + w->unwatched_more),
		"ended", (json_int_t)w->procs_ended,
		"children", "found_at_start", (json_int_t)w->children_found,
		"forked", (json_int_t)w->children_forked, "ended", (json_int_t)w->children_exited,
		"ended_badly", (json_int_t)w->children_abnormal));
}

static void free_feature(void *self)
{
	obs_processes_free(self);
}

const struct obs_feature obs_processes_ops = {
	.name = "processes", .start = start_feature, .keep_caps = keep_caps, .tick = tick,
	.finish = tick, .summary = summary, .json = json_add,
	.free = free_feature,
};
