// SPDX-License-Identifier: MIT
/*
 * The processes the forensics watch: targets' exits and restarts (ring-buffer events, /proc), new
 * children, the cgroup's processes, the owners of the target listeners and any process whose
 * syscalls failed; and, per process, open fds against RLIMIT_NOFILE -> growth -> time to exhaustion.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "forensics_int.h"

#define OWNER_SCAN_S 5.0

/* A process not watched for the --max-procs cap: counted once, named by `comm` when /proc has no
 * name for it any more (a short-lived child gone before its first tick). */
static void x__unwatched(struct obs_fx *fx, uint32_t pid, const char *comm)
{
	size_t i;

	for (i = 0; i < fx->nunwatched; i++)
		if (fx->unwatched[i] == pid)
			return;
	if (fx->nunwatched == OBS_MAX_ERRPROCS) {
		fx->unwatched_more++;
		return;
	}
	if (!fx->nunwatched) {
		obs_pid_comm(pid, fx->first_unwatched_comm, sizeof(fx->first_unwatched_comm));
		if (fx->first_unwatched_comm[0] == '?' && comm && comm[0])
			snprintf(fx->first_unwatched_comm, sizeof(fx->first_unwatched_comm),
				 "%.15s", comm);
	}
	fx->unwatched[fx->nunwatched++] = pid;
}

uint32_t obs_fx__netns(struct obs_fx *fx, uint32_t pid)
{
	struct fdc_task task;
	char path[64];
	struct stat st;

	if (fx->fdit) /* /proc/PID/ns/net is closed to us after the drop */
		return obs_fditer_task(fx->fdit, pid, &task) ? 0 : task.netns;
	snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	return stat(path, &st) ? 0 : (uint32_t)st.st_ino;
}

/* pid is gone, or lives in a network namespace other than `watched`. */
static bool x__netns_other(struct obs_fx *fx, uint32_t pid, uint32_t watched)
{
	return watched && obs_fx__netns(fx, pid) != watched;
}

/* pid lives in a network namespace other than the watched one (inode `watched`). */
static bool x__netns_outside(struct obs_fx *fx, uint32_t pid, uint32_t watched)
{
	uint32_t ns;

	if (!watched)
		return false;
	ns = obs_fx__netns(fx, pid);
	return ns && ns != watched;
}

static bool x__is_target(const struct obs_fx *fx, uint32_t pid)
{
	size_t k;

	for (k = 0; k < fx->targets->npids; k++)
		if (fx->targets->pids[k] == pid)
			return true;
	return false;
}

/* Slot i is given up: the process ended (a --pid target keeps its slot, for its exit note). */
static void x__unwatch(struct obs_fx *fx, size_t i)
{
	fx->procs_ended++;
	memmove(&fx->procs[i], &fx->procs[i + 1], (fx->nprocs - i - 1) * sizeof(*fx->procs));
	fx->nprocs--;
}

/* Every slot is taken: free those of processes that have ended, so that the cap counts live
 * processes only (a forking server's per-connection children come and go). Returns how many. */
static size_t x__reclaim(struct obs_fx *fx)
{
	size_t i = 0, n = 0;

	while (i < fx->nprocs) {
		if (!x__is_target(fx, fx->procs[i].fd.pid) &&
		    (fx->procs[i].exited || !obs_pid_alive(fx->procs[i].fd.pid))) {
			x__unwatch(fx, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

static struct obs_fx_proc *x__watch(struct obs_fx *fx, uint32_t pid, const char *comm)
{
	struct obs_fx_proc *p;
	size_t i;

	for (i = 0; i < fx->nprocs; i++)
		if (fx->procs[i].fd.pid == pid)
			return &fx->procs[i];
	if (fx->nprocs == fx->max_procs && !x__reclaim(fx)) {
		x__unwatched(fx, pid, comm);
		return NULL;
	}
	p = &fx->procs[fx->nprocs++];
	memset(p, 0, sizeof(*p));
	p->fd.pid = pid;
	p->tte = p->first_forecast_t = p->first_fail_t = -1;
	obs_pid_comm(pid, p->fd.comm, sizeof(p->fd.comm));
	if (p->fd.comm[0] == '?' && comm && comm[0])
		snprintf(p->fd.comm, sizeof(p->fd.comm), "%.15s", comm);
	p->netns_outside = x__netns_outside(fx, pid, fx->targets->netns);
	return p;
}

struct obs_fx_proc *obs_fx__watch(struct obs_fx *fx, uint32_t pid)
{
	return x__watch(fx, pid, NULL);
}

/* A target exit or restart: the rules make it a target_exit finding, printed live. */
static void x__event_note(struct obs_fx *fx, uint32_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void x__event_note(struct obs_fx *fx, uint32_t pid, const char *fmt, ...)
{
	struct obs_snap_event *ev;
	va_list ap;

	if (fx->nev_now == OBS_SNAP_EVENTS) {
		fx->ev_lost++;
		return;
	}
	ev = &fx->ev_now[fx->nev_now++];
	ev->pid = pid;
	va_start(ap, fmt);
	vsnprintf(ev->text, sizeof(ev->text), fmt, ap);
	va_end(ap);
}

struct x__evctx {
	struct obs_fx *fx;
	double t;
};

/*
 * A target's child ended. Per-connection backends and recycled workers end all the time: that is
 * a finding only when the child ended badly, killed by a signal (a crash, the OOM killer) or with
 * a non-zero exit status (obs_rule_target_exit() turns the note into a finding).
 */
static void x__child_exit(struct obs_fx *fx, const struct obs_event *ev, double t)
{
	int sig = ev->exit_code & 0x7f, code = (ev->exit_code >> 8) & 0xff;

	fx->run.children_exited++;
	if (!sig && !code)
		return;
	fx->run.children_abnormal++;
	if (sig)
		x__event_note(fx, ev->pid, "child pid %u (%.15s) of the targets was killed by "
			      "signal %d (%s)%s, %.1f s into the run", ev->pid, ev->comm, sig,
			      strsignal(sig), ev->exit_code & 0x80 ? ", core dumped" : "", t);
	else
		x__event_note(fx, ev->pid, "child pid %u (%.15s) of the targets exited with code "
			      "%d, %.1f s into the run", ev->pid, ev->comm, code, t);
}

static void x__on_event(void *arg, const struct obs_event *ev)
{
	struct x__evctx *c = arg;
	struct obs_fx *fx = c->fx;
	size_t i;

	if (ev->type == OBS_EV_CHILD) {
		fx->run.children_forked++;
		x__watch(fx, ev->pid, ev->comm);
		return;
	}
	if (!x__is_target(fx, ev->pid)) {
		x__child_exit(fx, ev, c->t);
		for (i = 0; i < fx->nprocs; i++)
			if (fx->procs[i].fd.pid == ev->pid) {
				x__unwatch(fx, i);
				break;
			}
		return;
	}
	for (i = 0; i < fx->nprocs; i++) {
		if (fx->procs[i].fd.pid == ev->pid && !fx->procs[i].exited) {
			fx->procs[i].exited = true;
			fx->procs[i].exited_at = c->t;
			x__event_note(fx, ev->pid,
				      "target pid %u (%.15s) exited %.1f s into the run (exit code %d)",
				      ev->pid, ev->comm, c->t, ev->exit_code >> 8);
		}
	}
}

/* Exited --pid targets: one that runs again (same executable) becomes the target. */
void obs_fx__lifecycle(struct obs_fx *fx, double t)
{
	struct obs_target tv = {.flags = OBS_TARGET_PID};
	struct x__evctx ctx = {fx, t};
	struct obs_targets *tg = fx->targets;
	uint32_t npid;
	size_t i, k;

	obs_fail_poll(fx->fail, x__on_event, &ctx);
	for (k = 0; k < tg->npids; k++) {
		if (obs_pid_alive(tg->pids[k])) {
			obs_targets_refresh(tg, k);
			continue;
		}
		for (i = 0; i < fx->nprocs; i++)
			if (fx->procs[i].fd.pid == tg->pids[k] && !fx->procs[i].exited) {
				fx->procs[i].exited = true;
				fx->procs[i].exited_at = t;
				x__event_note(fx, tg->pids[k],
					      "target pid %u (%s) is gone, %.1f s into the run",
					      tg->pids[k], fx->procs[i].fd.comm, t);
			}
		npid = obs_targets_find_restart(tg, k);
		if (!npid)
			continue;
		bpf_map_update_elem(bpf_map__fd(obs_conn_map(fx->conn, "targets")), &npid, &tv,
				    BPF_ANY);
		x__event_note(fx, npid,
			      "target pid %u restarted as pid %u, %.1f s into the run (same "
			      "executable %s)", tg->pids[k], npid, t, tg->exes[k]);
		tg->pids[k] = npid;
		obs_fx__watch(fx, npid);
	}
}

/* Which processes own the listening sockets? Port mode only, every few seconds. */
static void x__owner_scan(struct obs_fx *fx)
{
	uint32_t pids[OBS_FX_PROCS_MAX];
	size_t i, n;

	if (fx->fdit)
		n = obs_fditer_owners(fx->fdit, fx->cs.listen_inodes, fx->cs.nlisten, pids,
				      OBS_FX_PROCS_MAX);
	else
		n = obs_fd_owners(fx->cs.listen_inodes, fx->cs.nlisten, pids, OBS_FX_PROCS_MAX);
	for (i = 0; i < n; i++)
		obs_fx__watch(fx, pids[i]);
}

/* With the iterator: every watched process's fds in one pass (open -1: gone or unread). */
static void x__count_fds(struct obs_fx *fx)
{
	uint32_t pids[OBS_FX_PROCS_MAX];
	int64_t open[OBS_FX_PROCS_MAX];
	size_t i, n = 0;
	int err;

	if (!fx->fdit)
		return;
	for (i = 0; i < fx->nprocs; i++)
		if (!fx->procs[i].exited)
			pids[n++] = fx->procs[i].fd.pid;
	err = obs_fditer_count(fx->fdit, pids, n, open);
	for (i = 0, n = 0; i < fx->nprocs; i++) {
		if (fx->procs[i].exited)
			continue;
		if (err || !obs_pid_alive(pids[n])) {
			fx->procs[i].fd.open = -1;
			fx->procs[i].fd.err = err ? -err : ESRCH;
		} else {
			obs_fd_set(&fx->procs[i].fd, open[n]);
		}
		n++;
	}
}

void obs_fx__procs(struct obs_fx *fx, double t)
{
	uint32_t pids[OBS_FX_PROCS_MAX];
	size_t i, n;
	struct obs_fx_proc *p;
	double y[OBS_FX_HIST], tt[OBS_FX_HIST];
	unsigned int k, j, f;

	if (fx->targets->cgroup_id) {
		n = obs_targets_cgroup_pids(fx->targets, pids, OBS_FX_PROCS_MAX);
		for (i = 0; i < n; i++)
			obs_fx__watch(fx, pids[i]);
	} else if (!fx->targets->npids && fx->census && t >= fx->next_owner_scan) {
		x__owner_scan(fx);
		fx->next_owner_scan = t + OWNER_SCAN_S;
	}
	/* processes whose syscalls failed are named, and watched */
	n = obs_fail_procs(fx->fail, fx->errprocs, OBS_MAX_ERRPROCS);
	fx->nerrprocs = n;
	for (i = 0; i < n; i++) {
		uint64_t any = 0;

		for (f = 0; f < OBS_FAIL_MAX; f++)
			any += fx->errprocs[i].e.fails[f];
		if (!any)
			continue;
		/* without --pid/--cgroup the kernel counts every process of the host: only the
		 * watched namespace's are the targets' business */
		if (!fx->targets->npids && !fx->targets->cgroup_id &&
		    x__netns_other(fx, fx->errprocs[i].pid, fx->targets->netns))
			continue;
		k = (unsigned int)fx->nprocs;
		p = obs_fx__watch(fx, fx->errprocs[i].pid);
		if (!p)
			continue;
		/* any process on the host may fail: where it lives is no note about the targets */
		if (fx->nprocs > k)
			p->netns_outside = false;
		if (p->fd.comm[0] == '?')
			snprintf(p->fd.comm, sizeof(p->fd.comm), "%.15s", fx->errprocs[i].e.comm);
		if (fx->errprocs[i].e.fails[OBS_FAIL_EMFILE] > p->fails[OBS_FAIL_EMFILE] &&
		    p->first_fail_t < 0)
			p->first_fail_t = t;
		memcpy(p->fails, fx->errprocs[i].e.fails, sizeof(p->fails));
		p->last_sys = fx->errprocs[i].e.last_sys;
	}
	x__count_fds(fx);
	for (i = 0; i < fx->nprocs; i++) {
		p = &fx->procs[i];
		if (p->exited || (fx->fdit ? p->fd.open < 0 : obs_fd_read(&p->fd)))
			continue;
		k = p->nhist % OBS_FX_HIST;
		p->t[k] = t;
		p->open[k] = p->fd.open;
		p->nhist++;
		for (j = 0; j < OBS_FX_HIST && j < p->nhist; j++) {
			tt[j] = p->t[j];
			y[j] = (double)p->open[j];
		}
		p->rate = obs_fx_slope(tt, y, p->nhist);
		p->tte = -1;
		if (p->fd.soft > 0 && p->rate > 0.1 && p->fd.open < p->fd.soft) {
			p->tte = (double)(p->fd.soft - p->fd.open) / p->rate;
			if (p->tte > OBS_FX_FORECAST_HORIZON_S)
				p->tte = -1;
		}
		if (p->tte >= 0 && p->first_forecast_t < 0 && p->nhist >= 3) {
			p->first_forecast_t = t;
			p->first_forecast_tte = p->tte;
		}
	}
}
