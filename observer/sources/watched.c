// SPDX-License-Identifier: MIT
/*
 * The watched processes (watched.h), read by the tick's read phase: the slots of the processes
 * whose fds are counted, up to --max-procs, and what adds or frees them: the --pid targets and their exits and
 * restarts (ring-buffer events, /proc), new children and those found at start, the cgroup's
 * processes, the owners of the target listeners, any process whose syscalls failed; per process,
 * open fds (the task iterator, or /proc) -> growth -> time to RLIMIT_NOFILE.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "loadlens/cli.h"
#include "kernel/sockets.h"
#include "kernel/failures_object.h"
#include "sources/fditer.h"
#include "sources/targets.h"
#include "sources/watched.h"
#include "rules/rules.h"

#define OWNER_SCAN_S 5.0

static double slope(const double *t, const double *y, unsigned int n)
{
	return obs_rule_slope(t, y, n < OBS_PROCS_HIST ? n : OBS_PROCS_HIST);
}

/* A process not watched for the --max-procs cap: counted once, named by `comm` when /proc has no
 * name for it any more (a short-lived child gone before its first tick). */
static void unwatched(struct obs_watched *ps, uint32_t pid, const char *comm)
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
		obs_targets_pid_comm(pid, ps->first_unwatched_comm,
				     sizeof(ps->first_unwatched_comm));
		if (ps->first_unwatched_comm[0] == '?' && comm && comm[0])
			snprintf(ps->first_unwatched_comm, sizeof(ps->first_unwatched_comm),
				 "%.15s", comm);
	}
	ps->unwatched[ps->nunwatched++] = pid;
}

static uint32_t pid_netns(struct obs_watched *ps, uint32_t pid)
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
static bool netns_other(struct obs_watched *ps, uint32_t pid, uint32_t watched)
{
	return watched && pid_netns(ps, pid) != watched;
}

/* pid lives in a network namespace other than the watched one (inode `watched`). */
static bool netns_outside(struct obs_watched *ps, uint32_t pid, uint32_t watched)
{
	uint32_t ns;

	if (!watched)
		return false;
	ns = pid_netns(ps, pid);
	return ns && ns != watched;
}

static bool is_target(const struct obs_watched *ps, uint32_t pid)
{
	size_t k;

	for (k = 0; k < ps->targets->npids; k++)
		if (ps->targets->pids[k] == pid)
			return true;
	return false;
}

/* Slot i is given up: the process ended (a --pid target keeps its slot, for its exit note). */
static void unwatch(struct obs_watched *ps, size_t i)
{
	ps->procs_ended++;
	memmove(&ps->procs[i], &ps->procs[i + 1], (ps->nprocs - i - 1) * sizeof(*ps->procs));
	ps->nprocs--;
}

/* Every slot is taken: free those of processes that have ended, so that the cap counts live
 * processes only (a forking server's per-connection children come and go). Returns how many. */
static size_t reclaim(struct obs_watched *ps)
{
	size_t i = 0, n = 0;

	while (i < ps->nprocs) {
		if (!is_target(ps, ps->procs[i].fd.pid) &&
		    (ps->procs[i].exited || !obs_targets_pid_alive(ps->procs[i].fd.pid))) {
			unwatch(ps, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

static struct obs_proc *watch_comm(struct obs_watched *ps, uint32_t pid, const char *comm)
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
	obs_targets_pid_comm(pid, p->fd.comm, sizeof(p->fd.comm));
	if (p->fd.comm[0] == '?' && comm && comm[0])
		snprintf(p->fd.comm, sizeof(p->fd.comm), "%.15s", comm);
	p->netns_outside = netns_outside(ps, pid, ps->targets->netns);
	return p;
}

/* A target: --pid, a child, the cgroup's, a listener's owner (a process watched only for its
 * failed syscalls is watch_comm()'s). */
static struct obs_proc *watch(struct obs_watched *ps, uint32_t pid)
{
	struct obs_proc *p = watch_comm(ps, pid, NULL);

	if (p)
		p->target = true;
	return p;
}

/* The targets' CPUs in /proc/stat, grown since the last read: the time no thread could run on
 * them (lost: what this kernel keeps out of run time, cpuwait.h) and the time none ran (idle).
 * No growth across a change of the CPUs (a process with another affinity joined). */
static void stat_read(struct obs_watched *ps)
{
	uint64_t lost, idle;

	ps->cpu_stat_grew = false;
	if (!CPU_COUNT(&ps->cpu_mask))
		return;
	if (!ps->cpu_kconfig_read) {
		ps->cpu_kconfig = obs_cpuwait_kconfig();
		ps->cpu_kconfig_read = true;
	}
	if (!obs_cpuwait_stat_ns(&ps->cpu_mask, ps->cpu_kconfig, &lost, &idle))
		return;
	if (ps->cpu_stat_read && CPU_EQUAL(&ps->cpu_stat_mask, &ps->cpu_mask)) {
		ps->cpu_lost_d = lost > ps->cpu_lost_ns ? lost - ps->cpu_lost_ns : 0;
		ps->cpu_idle_d = idle > ps->cpu_idle_ns ? idle - ps->cpu_idle_ns : 0;
		ps->cpu_stat_grew = true;
	}
	ps->cpu_lost_ns = lost;
	ps->cpu_idle_ns = idle;
	ps->cpu_stat_mask = ps->cpu_mask;
	ps->cpu_stat_read = true;
}

/* Of the processes left out for the cap, those alive and still not watched now (a slot given
 * back may have taken one in since): their threads' CPU time is nobody's. */
static void unwatched_live(struct obs_watched *ps)
{
	size_t i, k;

	ps->nunwatched_live = 0;
	for (i = 0; i < ps->nunwatched; i++) {
		if (kill((pid_t)ps->unwatched[i], 0) && errno != EPERM)
			continue;
		for (k = 0; k < ps->nprocs; k++)
			if (ps->procs[k].fd.pid == ps->unwatched[i] && !ps->procs[k].exited)
				break;
		if (k == ps->nprocs)
			ps->nunwatched_live++;
	}
}

/* The targets' threads on and waiting for a CPU: each one's growth since the last read. */
static void cpu_read(struct obs_watched *ps)
{
	struct obs_cpuwait c;
	struct obs_proc *p;
	size_t i;

	for (i = 0; i < ps->nprocs; i++) {
		p = &ps->procs[i];
		p->cpu_grew = false;
		if (p->exited || !p->target || obs_cpuwait_read((pid_t)p->fd.pid, &c))
			continue;
		if (p->cpu_read) { /* a thread that ended takes its time with it: no growth */
			p->cpu_run_d = c.run_ns > p->cpu.run_ns ? c.run_ns - p->cpu.run_ns : 0;
			p->cpu_wait_d = c.wait_ns > p->cpu.wait_ns ? c.wait_ns - p->cpu.wait_ns : 0;
			p->cpu_grew = true;
		} else {
			p->cpus = obs_cpuwait_cpus((pid_t)p->fd.pid);
			obs_cpuwait_mask((pid_t)p->fd.pid, &ps->cpu_mask);
		}
		p->cpu = c;
		p->cpu_read = true;
	}
	stat_read(ps);
	unwatched_live(ps);
}

/* A target exit or restart: the rules make it a target_exit finding, printed live. */
static void event_note(struct obs_watched *ps, uint32_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void event_note(struct obs_watched *ps, uint32_t pid, const char *fmt, ...)
{
	struct obs_snap_event *ev;
	va_list ap;

	if (ps->nev_now == OBS_SNAP_EVENTS) {
		ps->ev_lost++;
		return;
	}
	ev = &ps->ev_now[ps->nev_now++];
	ev->pid = pid;
	va_start(ap, fmt);
	vsnprintf(ev->text, sizeof(ev->text), fmt, ap);
	va_end(ap);
}

struct evctx {
	struct obs_watched *ps;
	double t;
};

/*
 * A target's child ended. Per-connection backends and recycled workers end all the time: that is
 * a finding only when the child ended badly, killed by a signal (a crash, the OOM killer) or with
 * a non-zero exit status (obs_rule_target_exit() turns the note into a finding).
 */
static void child_exit(struct obs_watched *ps, const struct obs_event *ev, double t)
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
static void count_fork(struct obs_watched *ps, const struct obs_event *ev)
{
	struct obs_watched_forker *f;
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
	struct obs_watched *ps = c->ps;
	struct obs_proc *p;
	size_t i;

	if (ev->type == OBS_EV_CHILD) {
		ps->children_forked++;
		count_fork(ps, ev);
		p = watch_comm(ps, ev->pid, ev->comm);
		if (p)
			p->target = true; /* a target's child */
		if (p && !p->cpu_read) /* born while observed: its CPU time counts from 0 */
			p->cpu_read = true;
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
static void lifecycle(struct obs_watched *ps, double t)
{
	struct obs_target tv = {.flags = OBS_TARGET_PID};
	struct evctx ctx = {ps, t};
	struct obs_targets *tg = ps->targets;
	uint32_t npid;
	size_t i, k;

	obs_fail_poll(ps->fail, on_event, &ctx);
	for (k = 0; k < tg->npids; k++) {
		if (obs_targets_pid_alive(tg->pids[k])) {
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
		obs_sockets_target_set(ps->conn, npid, &tv, false);
		event_note(ps, npid,
			      "target pid %u restarted as pid %u, %.1f s into the run (same "
			      "executable %s)", tg->pids[k], npid, t, tg->exes[k]);
		tg->pids[k] = npid;
		watch(ps, npid);
	}
}

/* Which processes own the listening sockets? Port mode only, every few seconds. */
static void owner_scan(struct obs_watched *ps, const struct obs_census *cs)
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
static void count_fds(struct obs_watched *ps)
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
		if (err || !obs_targets_pid_alive(pids[n])) {
			ps->procs[i].fd.open = -1;
			ps->procs[i].fd.err = err ? -err : ESRCH;
		} else {
			obs_fd_set(&ps->procs[i].fd, open[n]);
		}
		n++;
	}
}

/* pid's network namespace from the cache, read on a miss; the cache starts over when full. */
static uint32_t seen_netns(struct obs_watched *ps, uint32_t pid)
{
	size_t k;

	for (k = 0; k < ps->nnetns_seen; k++)
		if (ps->netns_seen[k].pid == pid)
			return ps->netns_seen[k].netns;
	if (ps->nnetns_seen == OBS_MAX_ERRPROCS)
		ps->nnetns_seen = 0;
	ps->netns_seen[ps->nnetns_seen++] = (struct obs_watched_netns){pid, pid_netns(ps, pid)};
	return ps->netns_seen[ps->nnetns_seen - 1].netns;
}

static void watch_and_count(struct obs_watched *ps, double t, const struct obs_census *cs)
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
	} else if (!ps->targets->npids && cs && t >= ps->next_owner_scan) {
		owner_scan(ps, cs);
		ps->next_owner_scan = t + OWNER_SCAN_S;
	}
	/* processes whose syscalls failed are named, and watched */
	n = obs_fail_procs(ps->fail, ps->errprocs, OBS_MAX_ERRPROCS);
	ps->nerrprocs = n;
	for (i = 0; i < n && !ps->targets->npids && !ps->targets->cgroup_id; i++)
		ps->errnetns[i] = seen_netns(ps, ps->errprocs[i].pid);
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
		p = watch_comm(ps, ps->errprocs[i].pid, NULL);
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
static void children_at_start(struct obs_watched *ps)
{
	uint32_t found[OBS_MAX_TARGETS];
	struct obs_target t = {.flags = OBS_TARGET_CHILD};
	size_t n, i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		n = obs_targets_pid_descendants(ps->targets->pids, ps->targets->npids, found,
					OBS_MAX_TARGETS);
		for (i = 0; i < n; i++) {
			if (!obs_sockets_target_set(ps->conn, found[i], &t, true))
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

struct obs_watched *obs_watched_new(const char *prog, struct obs_sockets *conn,
				    struct obs_fail *fail, struct obs_targets *targets,
				    unsigned int max_procs)
{
	size_t max = max_procs ? max_procs : OBS_PROCS_DEFAULT;
	struct obs_watched *ps;

	max = max < OBS_PROCS_MAX ? max : OBS_PROCS_MAX;
	ps = calloc(1, sizeof(*ps) + max * sizeof(ps->procs[0]));
	if (!ps)
		return NULL;
	ps->max_procs = max;
	ps->prog = prog;
	ps->conn = conn;
	ps->fail = fail;
	ps->targets = targets;
	return ps;
}

void obs_watched_free(struct obs_watched *ps)
{
	if (!ps)
		return;
	if (ps->fdit)
		ps->targets->fdit = NULL;
	obs_fditer_free(ps->fdit);
	free(ps);
}

int obs_watched_start(struct obs_watched *ps, bool children)
{
	const char *off = getenv("LOADLENS_OBSERVER_NO_FDITER");
	size_t k;

	ps->children = children;
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
	if (children && ps->targets->npids)
		children_at_start(ps);
	return 0;
}

void obs_watched_tick(struct obs_watched *ps, double t, const struct obs_census *cs)
{
	lifecycle(ps, t);
	watch_and_count(ps, t, cs);
	cpu_read(ps);
	if (ps->targets->npids && !ps->children)
		ps->nkids = obs_targets_children(ps->targets, ps->kids, OBS_SNAP_NOTES);
}

void obs_watched_next(struct obs_watched *ps)
{
	ps->nev_now = 0;
	ps->exits_now = 0;
	ps->nforkers = 0;
}
