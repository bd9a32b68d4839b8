// SPDX-License-Identifier: MIT
/*
 * The processes feature: targets' exits and restarts (ring-buffer events, /proc), new children,
 * the cgroup's processes, the owners of the target listeners and any process whose syscalls
 * failed; and, per process, open fds against RLIMIT_NOFILE -> growth -> time to exhaustion.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include "loadlens/cli.h"
#include "sockets.h"
#include "failures_object.h"
#include "feature.h"
#include "snapshots.h"
#include "fditer.h"
#include "processes.h"
#include "target.h"
#include "output/interval_record.h"
#include "rules/rules.h"

#define OWNER_SCAN_S 5.0

struct obs_processes {
	const char *prog;
	struct obs_processes_opts o;
	struct obs_targets *targets;
	bool children;
	struct obs_fditer *fdit; /* fds, exe, netns of processes without /proc (NULL: /proc) */
	struct obs_processes_snap snap;
	/* watched processes: up to max_procs (--max-procs); the others are counted */
	struct obs_proc *procs;
	size_t nprocs, max_procs;
	uint32_t unwatched[OBS_MAX_ERRPROCS]; /* distinct pids not watched for the cap */
	size_t nunwatched;
	uint64_t unwatched_more; /* past that list */
	char first_unwatched_comm[16];
	uint64_t procs_ended; /* slots given back by processes that ended */
	/* this interval's target exits and restarts, for the rules' snapshot */
	struct obs_snap_event ev_now[OBS_SNAP_EVENTS];
	size_t nev_now;
	double next_owner_scan;
	struct obs_fail_proc errprocs[OBS_MAX_ERRPROCS];
	size_t nerrprocs; /* read at the last tick */
	/* their failures seen so far and their network namespace, for the interval's failures
	 * of the watched namespace's processes */
	struct errseen {
		uint32_t pid;
		uint32_t netns; /* 0: unknown (gone before it was read) */
		uint64_t fails[OBS_FAIL_MAX];
	} errseen[OBS_MAX_ERRPROCS];
	size_t nerrseen;
	uint64_t local_total[OBS_FAIL_MAX]; /* the watched namespace's failures since start */
	uint64_t file_nr_max, file_max;
	/* --children: children forked while observed, found at start, ended (badly) */
	uint64_t children_forked, children_found, children_exited, children_abnormal;
	/* --children, this interval: children that ended with status 0, and who forked (a child's
	 * comm at its fork is its parent's), for the rules' spike of exits */
	uint64_t exits_now;
	struct forker {
		uint32_t pid;
		char comm[16];
		uint64_t forks;
	} forkers[OBS_SNAP_NOTES];
	size_t nforkers; /* a parent past the table is not counted: it only names the forker */
};

static double slope(const double *t, const double *y, unsigned int n)
{
	return obs_rule_slope(t, y, n < OBS_PROCS_HIST ? n : OBS_PROCS_HIST);
}

/* A process not watched for the --max-procs cap: counted once, named by `comm` when /proc has no
 * name for it any more (a short-lived child gone before its first tick). */
static void unwatched(struct obs_processes *ps, uint32_t pid, const char *comm)
{
	size_t i;

	for (i = 0; i < ps->nunwatched; i++)
		if (ps->unwatched[i] == pid)
			return;
	if (ps->nunwatched == OBS_MAX_ERRPROCS) {
		ps->unwatched_more++;
		return;
	}
	if (!ps->nunwatched) {
		obs_pid_comm(pid, ps->first_unwatched_comm, sizeof(ps->first_unwatched_comm));
		if (ps->first_unwatched_comm[0] == '?' && comm && comm[0])
			snprintf(ps->first_unwatched_comm, sizeof(ps->first_unwatched_comm),
				 "%.15s", comm);
	}
	ps->unwatched[ps->nunwatched++] = pid;
}

static uint32_t pid_netns(struct obs_processes *ps, uint32_t pid)
{
	struct fdc_task task;
	char path[64];
	struct stat st;

	if (ps->fdit) /* /proc/PID/ns/net is closed to us after the drop */
		return obs_fditer_task(ps->fdit, pid, &task) ? 0 : task.netns;
	snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	return stat(path, &st) ? 0 : (uint32_t)st.st_ino;
}

/* pid is gone, or lives in a network namespace other than `watched`. */
static bool netns_other(struct obs_processes *ps, uint32_t pid, uint32_t watched)
{
	return watched && pid_netns(ps, pid) != watched;
}

/* pid lives in a network namespace other than the watched one (inode `watched`). */
static bool netns_outside(struct obs_processes *ps, uint32_t pid, uint32_t watched)
{
	uint32_t ns;

	if (!watched)
		return false;
	ns = pid_netns(ps, pid);
	return ns && ns != watched;
}

static bool is_target(const struct obs_processes *ps, uint32_t pid)
{
	size_t k;

	for (k = 0; k < ps->targets->npids; k++)
		if (ps->targets->pids[k] == pid)
			return true;
	return false;
}

/* Slot i is given up: the process ended (a --pid target keeps its slot, for its exit note). */
static void unwatch(struct obs_processes *ps, size_t i)
{
	ps->procs_ended++;
	memmove(&ps->procs[i], &ps->procs[i + 1], (ps->nprocs - i - 1) * sizeof(*ps->procs));
	ps->nprocs--;
}

/* Every slot is taken: free those of processes that have ended, so that the cap counts live
 * processes only (a forking server's per-connection children come and go). Returns how many. */
static size_t reclaim(struct obs_processes *ps)
{
	size_t i = 0, n = 0;

	while (i < ps->nprocs) {
		if (!is_target(ps, ps->procs[i].fd.pid) &&
		    (ps->procs[i].exited || !obs_pid_alive(ps->procs[i].fd.pid))) {
			unwatch(ps, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

static struct obs_proc *watch_comm(struct obs_processes *ps, uint32_t pid, const char *comm)
{
	struct obs_proc *p;
	size_t i;

	for (i = 0; i < ps->nprocs; i++)
		if (ps->procs[i].fd.pid == pid)
			return &ps->procs[i];
	if (ps->nprocs == ps->max_procs && !reclaim(ps)) {
		unwatched(ps, pid, comm);
		return NULL;
	}
	p = &ps->procs[ps->nprocs++];
	memset(p, 0, sizeof(*p));
	p->fd.pid = pid;
	p->tte = p->first_forecast_t = p->first_fail_t = -1;
	obs_pid_comm(pid, p->fd.comm, sizeof(p->fd.comm));
	if (p->fd.comm[0] == '?' && comm && comm[0])
		snprintf(p->fd.comm, sizeof(p->fd.comm), "%.15s", comm);
	p->netns_outside = netns_outside(ps, pid, ps->targets->netns);
	return p;
}

static struct obs_proc *watch(struct obs_processes *ps, uint32_t pid)
{
	return watch_comm(ps, pid, NULL);
}

/* A target exit or restart: the rules make it a target_exit finding, printed live. */
static void event_note(struct obs_processes *ps, uint32_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void event_note(struct obs_processes *ps, uint32_t pid, const char *fmt, ...)
{
	struct obs_snap_event *ev;
	va_list ap;

	if (ps->nev_now == OBS_SNAP_EVENTS) {
		ps->snap.ev_lost++;
		return;
	}
	ev = &ps->ev_now[ps->nev_now++];
	ev->pid = pid;
	va_start(ap, fmt);
	vsnprintf(ev->text, sizeof(ev->text), fmt, ap);
	va_end(ap);
}

struct evctx {
	struct obs_processes *ps;
	double t;
};

/*
 * A target's child ended. Per-connection backends and recycled workers end all the time: that is
 * a finding only when the child ended badly, killed by a signal (a crash, the OOM killer) or with
 * a non-zero exit status (obs_rule_target_exit() turns the note into a finding).
 */
static void child_exit(struct obs_processes *ps, const struct obs_event *ev, double t)
{
	int sig = ev->exit_code & 0x7f, code = (ev->exit_code >> 8) & 0xff;

	ps->children_exited++;
	if (!sig && !code) {
		ps->exits_now++;
		return;
	}
	ps->children_abnormal++;
	if (sig)
		event_note(ps, ev->pid, "child pid %u (%.15s) of the targets was killed by "
			      "signal %d (%s)%s, %.1f s into the run", ev->pid, ev->comm, sig,
			      strsignal(sig), ev->exit_code & 0x80 ? ", core dumped" : "", t);
	else
		event_note(ps, ev->pid, "child pid %u (%.15s) of the targets exited with code "
			      "%d, %.1f s into the run", ev->pid, ev->comm, code, t);
}

/* A fork by a target, counted by parent for this interval. */
static void count_fork(struct obs_processes *ps, const struct obs_event *ev)
{
	struct forker *f;
	size_t i;

	for (i = 0; i < ps->nforkers; i++)
		if (ps->forkers[i].pid == ev->ppid) {
			ps->forkers[i].forks++;
			return;
		}
	if (ps->nforkers == OBS_SNAP_NOTES)
		return;
	f = &ps->forkers[ps->nforkers++];
	f->pid = ev->ppid;
	snprintf(f->comm, sizeof(f->comm), "%.15s", ev->comm);
	f->forks = 1;
}

static void on_event(void *arg, const struct obs_event *ev)
{
	struct evctx *c = arg;
	struct obs_processes *ps = c->ps;
	size_t i;

	if (ev->type == OBS_EV_CHILD) {
		ps->children_forked++;
		count_fork(ps, ev);
		watch_comm(ps, ev->pid, ev->comm);
		return;
	}
	if (!is_target(ps, ev->pid)) {
		child_exit(ps, ev, c->t);
		for (i = 0; i < ps->nprocs; i++)
			if (ps->procs[i].fd.pid == ev->pid) {
				unwatch(ps, i);
				break;
			}
		return;
	}
	for (i = 0; i < ps->nprocs; i++) {
		if (ps->procs[i].fd.pid == ev->pid && !ps->procs[i].exited) {
			ps->procs[i].exited = true;
			event_note(ps, ev->pid,
				      "target pid %u (%.15s) exited %.1f s into the run (exit code %d)",
				      ev->pid, ev->comm, c->t, ev->exit_code >> 8);
		}
	}
}

/* Exited --pid targets: one that runs again (same executable) becomes the target. */
static void lifecycle(struct obs_processes *ps, double t)
{
	struct obs_target tv = {.flags = OBS_TARGET_PID};
	struct evctx ctx = {ps, t};
	struct obs_targets *tg = ps->targets;
	uint32_t npid;
	size_t i, k;

	obs_fail_poll(ps->o.fail, on_event, &ctx);
	for (k = 0; k < tg->npids; k++) {
		if (obs_pid_alive(tg->pids[k])) {
			obs_targets_refresh(tg, k);
			continue;
		}
		for (i = 0; i < ps->nprocs; i++)
			if (ps->procs[i].fd.pid == tg->pids[k] && !ps->procs[i].exited) {
				ps->procs[i].exited = true;
				event_note(ps, tg->pids[k],
					      "target pid %u (%s) is gone, %.1f s into the run",
					      tg->pids[k], ps->procs[i].fd.comm, t);
			}
		npid = obs_targets_find_restart(tg, k);
		if (!npid)
			continue;
		obs_sockets_target_set(ps->o.conn, npid, &tv, false);
		event_note(ps, npid,
			      "target pid %u restarted as pid %u, %.1f s into the run (same "
			      "executable %s)", tg->pids[k], npid, t, tg->exes[k]);
		tg->pids[k] = npid;
		watch(ps, npid);
	}
}

/* Which processes own the listening sockets? Port mode only, every few seconds. */
static void owner_scan(struct obs_processes *ps, const struct obs_census *cs)
{
	uint32_t pids[OBS_PROCS_MAX];
	size_t i, n;

	if (ps->fdit)
		n = obs_fditer_owners(ps->fdit, cs->listen_inodes, cs->nlisten, pids,
				      OBS_PROCS_MAX);
	else
		n = obs_fd_owners(cs->listen_inodes, cs->nlisten, pids, OBS_PROCS_MAX);
	for (i = 0; i < n; i++)
		watch(ps, pids[i]);
}

/* With the iterator: every watched process's fds in one pass (open -1: gone or unread). */
static void count_fds(struct obs_processes *ps)
{
	uint32_t pids[OBS_PROCS_MAX];
	int64_t open[OBS_PROCS_MAX];
	size_t i, n = 0;
	int err;

	if (!ps->fdit)
		return;
	for (i = 0; i < ps->nprocs; i++)
		if (!ps->procs[i].exited)
			pids[n++] = ps->procs[i].fd.pid;
	err = obs_fditer_count(ps->fdit, pids, n, open);
	for (i = 0, n = 0; i < ps->nprocs; i++) {
		if (ps->procs[i].exited)
			continue;
		if (err || !obs_pid_alive(pids[n])) {
			ps->procs[i].fd.open = -1;
			ps->procs[i].fd.err = err ? -err : ESRCH;
		} else {
			obs_fd_set(&ps->procs[i].fd, open[n]);
		}
		n++;
	}
}

static void watch_and_count(struct obs_processes *ps, double t, const struct obs_sockstat_snap *ss)
{
	uint32_t pids[OBS_PROCS_MAX];
	size_t i, n;
	struct obs_proc *p;
	double y[OBS_PROCS_HIST], tt[OBS_PROCS_HIST];
	unsigned int k, j, f;

	if (ps->targets->cgroup_id) {
		n = obs_targets_cgroup_pids(ps->targets, pids, OBS_PROCS_MAX);
		for (i = 0; i < n; i++)
			watch(ps, pids[i]);
	} else if (!ps->targets->npids && ss->census_on && t >= ps->next_owner_scan) {
		owner_scan(ps, &ss->cs);
		ps->next_owner_scan = t + OWNER_SCAN_S;
	}
	/* processes whose syscalls failed are named, and watched */
	n = obs_fail_procs(ps->o.fail, ps->errprocs, OBS_MAX_ERRPROCS);
	ps->nerrprocs = n;
	for (i = 0; i < n; i++) {
		uint64_t any = 0;

		for (f = 0; f < OBS_FAIL_MAX; f++)
			any += ps->errprocs[i].e.fails[f];
		if (!any)
			continue;
		/* without --pid/--cgroup the kernel counts every process of the host: only the
		 * watched namespace's are the targets' business */
		if (!ps->targets->npids && !ps->targets->cgroup_id &&
		    netns_other(ps, ps->errprocs[i].pid, ps->targets->netns))
			continue;
		k = (unsigned int)ps->nprocs;
		p = watch(ps, ps->errprocs[i].pid);
		if (!p)
			continue;
		/* any process on the host may fail: where it lives is no note about the targets */
		if (ps->nprocs > k)
			p->netns_outside = false;
		if (p->fd.comm[0] == '?')
			snprintf(p->fd.comm, sizeof(p->fd.comm), "%.15s", ps->errprocs[i].e.comm);
		if (ps->errprocs[i].e.fails[OBS_FAIL_EMFILE] > p->fails[OBS_FAIL_EMFILE] &&
		    p->first_fail_t < 0)
			p->first_fail_t = t;
		memcpy(p->fails, ps->errprocs[i].e.fails, sizeof(p->fails));
		p->last_sys = ps->errprocs[i].e.last_sys;
	}
	count_fds(ps);
	for (i = 0; i < ps->nprocs; i++) {
		p = &ps->procs[i];
		if (p->exited || (ps->fdit ? p->fd.open < 0 : obs_fd_read(&p->fd)))
			continue;
		k = p->nhist % OBS_PROCS_HIST;
		p->t[k] = t;
		p->open[k] = p->fd.open;
		p->nhist++;
		for (j = 0; j < OBS_PROCS_HIST && j < p->nhist; j++) {
			tt[j] = p->t[j];
			y[j] = (double)p->open[j];
		}
		p->rate = slope(tt, y, p->nhist);
		p->tte = -1;
		if (p->fd.soft > 0 && p->rate > 0.1 && p->fd.open < p->fd.soft) {
			p->tte = (double)(p->fd.soft - p->fd.open) / p->rate;
			if (p->tte > OBS_RULE_HORIZON_S)
				p->tte = -1;
		}
		if (p->tte >= 0 && p->first_forecast_t < 0 && p->nhist >= 3) {
			p->first_forecast_t = t;
			p->first_forecast_tte = p->tte;
		}
	}
}

/*
 * --children: the targets' descendants that exist already (a cluster's workers, a pre-fork
 * server's children) become targets like those forked from now on. The fork tracepoint is
 * attached before this runs, so a child forked meanwhile by a process already in the map is
 * caught there; the second pass catches those forked by a process found in the first.
 */
static void children_at_start(struct obs_processes *ps)
{
	uint32_t found[OBS_MAX_TARGETS];
	struct obs_target t = {.flags = OBS_TARGET_CHILD};
	size_t n, i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		n = obs_pid_descendants(ps->targets->pids, ps->targets->npids, found,
					OBS_MAX_TARGETS);
		for (i = 0; i < n; i++) {
			if (!obs_sockets_target_set(ps->o.conn, found[i], &t, true))
				ps->children_found++;
			else if (errno == E2BIG) {
				ll_warn(ps->prog, "note: the kernel's table of targets is full: "
					"child pid %u and %zu more found at the start are not "
					"targets", found[i], n - i - 1);
				return;
			}
			watch(ps, found[i]);
		}
	}
}

struct obs_processes *obs_processes_new(const char *prog, const struct obs_processes_opts *o)
{
	struct obs_processes *ps = calloc(1, sizeof(*ps));
	size_t max = o->max_procs ? o->max_procs : OBS_PROCS_DEFAULT;

	if (ps)
		ps->procs = calloc(max < OBS_PROCS_MAX ? max : OBS_PROCS_MAX, sizeof(*ps->procs));
	if (!ps || !ps->procs) {
		free(ps);
		return NULL;
	}
	ps->max_procs = max < OBS_PROCS_MAX ? max : OBS_PROCS_MAX;
	ps->prog = prog;
	ps->o = *o;
	ps->targets = o->targets;
	ps->children = o->children;
	return ps;
}

void obs_processes_free(struct obs_processes *ps)
{
	if (!ps)
		return;
	if (ps->fdit)
		ps->targets->fdit = NULL;
	obs_fditer_free(ps->fdit);
	free(ps->procs);
	free(ps);
}

/* Attached, still privileged: the task iterator (read later with no capability, fditer.h), the
 * targets and the children there already. */
static int start_feature(void *self)
{
	struct obs_processes *ps = self;
	const char *off = getenv("LOADLENS_OBSERVER_NO_FDITER");
	size_t k;

	ps->fdit = off ? NULL : obs_fditer_new();
	if (!ps->fdit)
		ll_warn(ps->prog, "note: no BPF task iterator (%s); fds are read from /proc/PID/fd, "
				  "for which the observer keeps CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH",
			off ? "LOADLENS_OBSERVER_NO_FDITER is set" : strerror(errno));
	ps->targets->fdit = ps->fdit;
	for (k = 0; k < ps->targets->npids; k++)
		obs_targets_refresh(ps->targets, k);
	for (k = 0; k < ps->targets->npids; k++)
		watch(ps, ps->targets->pids[k]);
	if (ps->children && ps->targets->npids)
		children_at_start(ps);
	return 0;
}

static uint64_t keep_caps(const void *self)
{
	const struct obs_processes *ps = self;

	/* with the iterators, none; else /proc/PID/fd (and exe, ns/net) of a process with other
	 * credentials or more capabilities than ours (ptrace), and its 0500 directory (DAC) */
	return ps->fdit ? 0 : 1ULL << CAP_SYS_PTRACE | 1ULL << CAP_DAC_READ_SEARCH;
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

/* --pid without --children: the targets' children, from /proc/PID/task/TID/children. */
static void kids(const struct obs_processes *ps, struct obs_snap *s)
{
	char path[64], tpath[96];
	unsigned int kid;
	struct dirent *de;
	size_t k;
	DIR *d;
	FILE *f;

	for (k = 0; k < ps->targets->npids && s->nkids < OBS_SNAP_NOTES; k++) {
		snprintf(path, sizeof(path), "/proc/%u/task", ps->targets->pids[k]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d)) && s->nkids < OBS_SNAP_NOTES) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(tpath, sizeof(tpath), "%s/%.16s/children", path, de->d_name);
			f = fopen(tpath, "r");
			if (!f)
				continue;
			while (s->nkids < OBS_SNAP_NOTES && fscanf(f, "%u", &kid) == 1) {
				s->kid[s->nkids].pid = kid;
				obs_pid_comm(kid, s->kid[s->nkids].comm,
					     sizeof(s->kid[s->nkids].comm));
				s->nkids++;
			}
			fclose(f);
		}
		closedir(d);
	}
}

static void snap_procs(const struct obs_processes *ps, struct obs_snap *s)
{
	const struct obs_proc *p;
	struct obs_snap_proc *q;
	size_t i, k;
	uint64_t any;

	for (i = 0; i < ps->nprocs && s->nprocs < OBS_SNAP_PROCS; i++) {
		p = &ps->procs[i];
		q = &s->proc[s->nprocs++];
		q->pid = p->fd.pid;
		memcpy(q->comm, p->fd.comm, sizeof(q->comm));
		q->watched = true;
		q->exited = p->exited;
		q->open = p->fd.open;
		q->soft = p->fd.soft;
		q->hard = p->fd.hard;
		q->emfile = p->fails[OBS_FAIL_EMFILE];
		q->last_sys = q->emfile ? obs_sys_name(p->last_sys) : NULL;
		if (p->netns_outside && s->nnetns_outside < OBS_SNAP_NOTES)
			s->netns_outside[s->nnetns_outside++] = p->fd.pid;
	}
	/* processes that failed past the --max-procs cap are named all the same */
	for (i = 0; i < ps->nerrprocs && s->nprocs < OBS_SNAP_PROCS; i++) {
		const struct obs_fail_proc *e = &ps->errprocs[i];

		for (k = 0, any = 0; k < OBS_FAIL_MAX; k++)
			any += e->e.fails[k];
		if (!any || !e->e.fails[OBS_FAIL_EMFILE])
			continue;
		for (k = 0; k < ps->nprocs && ps->procs[k].fd.pid != e->pid; k++)
			;
		if (k < ps->nprocs)
			continue;
		if (!ps->targets->npids && !ps->targets->cgroup_id &&
		    seen_netns(ps, e->pid) != ps->targets->netns)
			continue; /* another namespace's process (local_fails) */
		q = &s->proc[s->nprocs++];
		q->pid = e->pid;
		snprintf(q->comm, sizeof(q->comm), "%.15s", e->e.comm);
		q->open = q->soft = q->hard = -1;
		q->emfile = e->e.fails[OBS_FAIL_EMFILE];
		q->last_sys = obs_sys_name(e->e.last_sys);
	}
	s->pid_targets = ps->targets->npids > 0;
	if (s->pid_targets && !ps->children)
		kids(ps, s);
	s->max_procs = (unsigned int)ps->max_procs;
	s->targets_max = OBS_MAX_TARGETS;
	s->procs_unwatched = ps->nunwatched + ps->unwatched_more;
	if (ps->nunwatched) {
		s->first_unwatched_pid = ps->unwatched[0];
		memcpy(s->first_unwatched_comm, ps->first_unwatched_comm,
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
	const struct obs_fail_proc *e;
	struct obs_snap_portfail *q;
	size_t i, k;

	s->nportfail = s->portfail_more = 0;
	for (i = 0; i < ps->nerrprocs; i++) {
		e = &ps->errprocs[i];
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
	uint64_t best[OBS_SNAP_FAILS] = {}, d;
	struct errseen *e;
	const struct obs_fail_proc *p;
	size_t i, k;
	unsigned int f;
	bool in;

	for (f = 0; f < OBS_SNAP_FAILS; f++)
		s->fails[f] = 0;
	for (i = 0; i < ps->nerrprocs; i++) {
		p = &ps->errprocs[i];
		for (k = 0; k < ps->nerrseen && ps->errseen[k].pid != p->pid; k++)
			;
		if (k == ps->nerrseen) {
			if (ps->nerrseen == OBS_MAX_ERRPROCS)
				ps->nerrseen = 0; /* start over: an old process' counts are lost */
			k = ps->nerrseen++;
			ps->errseen[k] = (struct errseen){p->pid, pid_netns(ps, p->pid), {0}};
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
				s->fails_sys[f] = obs_sys_name(p->e.last_sys);
			}
		}
	}
}

/* --children: the interval's status-0 exits against the connections closed (the rules' spike of
 * exits), and the parent that forked the most. */
static void snap_exits(const struct obs_processes *ps, const struct obs_tick *tk,
		       struct obs_snap *s)
{
	const struct forker *best = NULL;
	size_t i;

	s->children_on = true;
	s->child_exits = ps->exits_now;
	s->closed = tk->conn->delta.moves[OBS_TCP_STATES + OBS_SNAP_ESTABLISHED];
	for (i = 0; i < ps->nforkers; i++)
		if (!best || ps->forkers[i].forks > best->forks)
			best = &ps->forkers[i];
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
		s->fails_sys[OBS_SNAP_ENFILE] = !sys[best][OBS_FAIL_ENFILE] ? NULL :
						best == OBS_SYS_ACCEPT4 ? "accept4" : obs_sys_name(best);
		for (f = 0; f < OBS_FAIL_MAX && f < OBS_SNAP_FAILS; f++)
			if (f != OBS_SNAP_ENFILE)
				s->fails_total[f] = ps->local_total[f] += s->fails[f];
	}
	portfail(ps, s);
	s->file_nr = ps->snap.file_nr;
	s->file_max = ps->file_max;
	snap_procs(ps, s);
	if (ps->children)
		snap_exits(ps, tk, s);
	for (i = 0; i < ps->nev_now; i++)
		s->event[s->nevents++] = ps->ev_now[i];
	snprintf(s->netns_name, sizeof(s->netns_name), "net:[%u] of %.63s", ps->targets->netns,
		 ps->targets->netns_from);
}

static int tick(void *self, struct obs_tick *tk)
{
	struct obs_processes *ps = self;
	struct obs_processes_snap *sn = &ps->snap;
	uint64_t nr = 0, max = 0;
	double pct;
	size_t i;

	lifecycle(ps, tk->t);
	watch_and_count(ps, tk->t, tk->sockstat);
	sn->fd_pct = -1;
	for (i = 0; i < ps->nprocs; i++) {
		if (ps->procs[i].exited || ps->procs[i].fd.soft <= 0 || ps->procs[i].fd.open < 0)
			continue;
		pct = 100.0 * ps->procs[i].fd.open / ps->procs[i].fd.soft;
		if (pct > sn->fd_pct)
			sn->fd_pct = pct;
	}
	tk->rec->procs = ps->procs;
	tk->rec->nprocs = ps->nprocs;
	sn->have_files = !obs_fd_system(&nr, &max);
	if (sn->have_files) {
		sn->file_nr = nr;
		sn->file_max = max;
		if (nr > ps->file_nr_max)
			ps->file_nr_max = nr;
		ps->file_max = max;
		tk->rec->have_files = true;
		tk->rec->file_nr = nr;
		tk->rec->file_max = max;
	}
	if (tk->snap)
		fill_snap(ps, tk, tk->snap);
	ps->nev_now = 0;
	ps->exits_now = 0;
	ps->nforkers = 0;
	tk->procs = sn;
	return 0;
}

static int summary(void *self, const struct obs_tick *tk, FILE *out)
{
	const struct obs_processes *ps = self;

	(void)tk;
	if (ps->nunwatched || ps->unwatched_more)
		fprintf(out, "  processes watched  %12zu  (--max-procs %zu; %llu more not watched for "
			     "fds)\n", ps->nprocs, ps->max_procs,
			(unsigned long long)(ps->nunwatched + ps->unwatched_more));
	if (ps->children)
		fprintf(out, "  children           %12llu  (--children: %llu there at the start, %llu "
			     "forked since; %llu ended, %llu of them badly: a signal or a non-zero "
			     "status)\n", (unsigned long long)(ps->children_found + ps->children_forked),
			(unsigned long long)ps->children_found, (unsigned long long)ps->children_forked,
			(unsigned long long)ps->children_exited,
			(unsigned long long)ps->children_abnormal);
	return 0;
}

/* "fds", "system_files" and "processes" of the "forensics" object. */
static int json_add(void *self, const struct obs_tick *tk, json_t *root)
{
	const struct obs_processes *ps = self;
	int err;

	(void)tk;
	err = obs_feature_forensics_set(root, "fds", obs_record_procs_json(ps->procs, ps->nprocs));
	if (!err)
		err = obs_feature_forensics_set(root, "system_files",
						json_pack("{s:I, s:I}", "open_max",
							  (json_int_t)ps->file_nr_max, "max",
							  (json_int_t)ps->file_max));
	if (err)
		return err;
	return obs_feature_forensics_set(root, "processes",
		json_pack("{s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}}",
		"watched", (json_int_t)ps->nprocs, "max_procs", (json_int_t)ps->max_procs,
		"unwatched", (json_int_t)(ps->nunwatched + ps->unwatched_more),
		"ended", (json_int_t)ps->procs_ended,
		"children", "found_at_start", (json_int_t)ps->children_found,
		"forked", (json_int_t)ps->children_forked, "ended", (json_int_t)ps->children_exited,
		"ended_badly", (json_int_t)ps->children_abnormal));
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
