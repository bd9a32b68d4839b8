// SPDX-License-Identifier: MIT
/* The forensics' part of the rules' snapshot (observer/rules/snapshot.h): census, ports, failures,
 * fds and processes of the interval, as plain data. */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "loadlens/parse.h"
#include "forensics_int.h"

static bool x__loopback(uint8_t family, const uint8_t *a)
{
	static const uint8_t v6lo[16] = {[15] = 1};
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};

	if (family == AF_INET)
		return a[0] == 127;
	return !memcmp(a, v6lo, 16) || (!memcmp(a, mapped, 12) && a[12] == 127);
}


static void x__census(const struct obs_fx *fx, struct obs_snap *s)
{
	const struct obs_census *cs = &fx->cs;
	struct obs_snap_group *g;
	size_t i;

	s->tw_reuse = cs->tw_reuse;
	s->fin_timeout_s = cs->fin_timeout_s;
	s->max_tw_buckets = cs->max_tw_buckets;
	if (!s->listen_port) /* the listen pass of this tick names it first */
		s->listen_port = cs->listen_port;
	for (i = 0; i < cs->nno_listener && i < OBS_SNAP_NOTES; i++)
		s->no_listener[s->nno_listener++] = cs->no_listener[i];
	if (!fx->census_fresh) {
		if (fx->live_ok && !fx->live_err) {
			s->held_live = true;
			s->held = (uint64_t)(fx->live[1] + fx->live[OBS_TCP_CLOSE_WAIT]);
		}
		return;
	}
	s->census = true;
	memcpy(s->state, cs->state, sizeof(s->state));
	s->close_wait_old = cs->close_wait_old;
	s->fin_wait2_old = cs->fin_wait2_old;
	s->range = obs_census_range(cs);
	for (i = 0; i < cs->ntop && i < OBS_SNAP_GROUPS; i++) {
		g = &s->group[s->ngroups++];
		ll_format_ip(cs->top[i].family, cs->top[i].saddr, -1, g->src, sizeof(g->src));
		ll_format_ip(cs->top[i].family, cs->top[i].daddr, -1, g->dst, sizeof(g->dst));
		g->dport = cs->top[i].dport;
		g->loopback = x__loopback(cs->top[i].family, cs->top[i].saddr) &&
			      x__loopback(cs->top[i].family, cs->top[i].daddr);
		g->in_use = cs->top[i].in_use;
		g->time_wait = cs->top[i].time_wait;
		g->fin_wait2 = cs->top[i].fin_wait2;
	}
	s->groups_total = cs->ngroups;
	s->groups_capped = cs->groups_capped;
	for (i = 0; i < cs->nports && i < OBS_SNAP_PORTS; i++) {
		s->port[i].port = cs->ports[i].port;
		s->port[i].server_side = cs->ports[i].server_side;
		s->port[i].close_wait = cs->ports[i].close_wait;
		s->port[i].close_wait_old = cs->ports[i].close_wait_old;
		s->port[i].fin_wait2_old = cs->ports[i].fin_wait2_old;
		s->port[i].fin_wait2 = cs->ports[i].fin_wait2;
		s->port[i].time_wait = cs->ports[i].time_wait;
		s->nports++;
	}
}

/* The call that failed most with class f in sys. */
static const char *x__top_sys(const uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX], unsigned int f)
{
	unsigned int k, best = 0;

	for (k = 0; k < OBS_SYS_MAX; k++)
		if (sys[k][f] > sys[best][f])
			best = k;
	if (!sys[best][f])
		return NULL;
	return best == OBS_SYS_ACCEPT4 ? "accept4" : obs_sys_name(best);
}

/* The netns x__local_fails() read for pid: 0 unknown. */
static uint32_t x__seen_netns(const struct obs_fx *fx, uint32_t pid)
{
	size_t k;

	for (k = 0; k < fx->nerrseen; k++)
		if (fx->errseen[k].pid == pid)
			return fx->errseen[k].netns;
	return 0;
}

/* --pid without --children: the targets' children, from /proc/PID/task/TID/children. */
static void x__kids(const struct obs_fx *fx, struct obs_snap *s)
{
	char path[64], tpath[96];
	unsigned int kid;
	struct dirent *de;
	size_t k;
	DIR *d;
	FILE *f;

	for (k = 0; k < fx->targets->npids && s->nkids < OBS_SNAP_NOTES; k++) {
		snprintf(path, sizeof(path), "/proc/%u/task", fx->targets->pids[k]);
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

static void x__procs(const struct obs_fx *fx, struct obs_snap *s)
{
	const struct obs_fx_proc *p;
	struct obs_snap_proc *q;
	size_t i, k;
	uint64_t any;

	for (i = 0; i < fx->nprocs && s->nprocs < OBS_SNAP_PROCS; i++) {
		p = &fx->procs[i];
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
	for (i = 0; i < fx->nerrprocs && s->nprocs < OBS_SNAP_PROCS; i++) {
		const struct obs_fail_proc *e = &fx->errprocs[i];

		for (k = 0, any = 0; k < OBS_FAIL_MAX; k++)
			any += e->e.fails[k];
		if (!any || !e->e.fails[OBS_FAIL_EMFILE])
			continue;
		for (k = 0; k < fx->nprocs && fx->procs[k].fd.pid != e->pid; k++)
			;
		if (k < fx->nprocs)
			continue;
		if (!fx->targets->npids && !fx->targets->cgroup_id &&
		    x__seen_netns(fx, e->pid) != fx->targets->netns)
			continue; /* another namespace's process (x__local_fails) */
		q = &s->proc[s->nprocs++];
		q->pid = e->pid;
		snprintf(q->comm, sizeof(q->comm), "%.15s", e->e.comm);
		q->open = q->soft = q->hard = -1;
		q->emfile = e->e.fails[OBS_FAIL_EMFILE];
		q->last_sys = obs_sys_name(e->e.last_sys);
	}
	s->pid_targets = fx->targets->npids > 0;
	if (s->pid_targets && !fx->children)
		x__kids(fx, s);
	s->max_procs = (unsigned int)fx->max_procs;
	s->targets_max = OBS_MAX_TARGETS;
	s->targets_full = fx->fail_cur.fx[OBS_FX_TARGETS_FULL];
	s->procs_unwatched = fx->nunwatched + fx->unwatched_more;
	if (fx->nunwatched) {
		s->first_unwatched_pid = fx->unwatched[0];
		memcpy(s->first_unwatched_comm, fx->first_unwatched_comm,
		       sizeof(s->first_unwatched_comm));
	}
}

/*
 * The processes whose connect() found no free port, the most failed first: the kernel names the
 * caller of each failed port search (errprocs, conn.bpf.h), in the watched namespace only and,
 * with --pid/--cgroup, only the targets. Their counts are the kernel's, one per failure.
 */
static void x__portfail(const struct obs_fx *fx, struct obs_snap *s)
{
	const struct obs_fail_proc *e;
	struct obs_snap_portfail *q;
	size_t i, k;

	s->nportfail = s->portfail_more = 0;
	for (i = 0; i < fx->nerrprocs; i++) {
		e = &fx->errprocs[i];
		if (!e->e.fails[OBS_FAIL_EADDRNOTAVAIL])
			continue;
		if (!fx->targets->npids && !fx->targets->cgroup_id &&
		    x__seen_netns(fx, e->pid) != fx->targets->netns)
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
 * targets' here (one gone before its namespace could be read is not). fails[] gets them, fails_sys[] the call that
 * failed last in the process that failed most.
 */
static void x__local_fails(struct obs_fx *fx, struct obs_snap *s)
{
	uint64_t best[OBS_SNAP_FAILS] = {}, d;
	struct obs_fx_errseen *e;
	const struct obs_fail_proc *p;
	size_t i, k;
	unsigned int f;
	bool in;

	for (f = 0; f < OBS_SNAP_FAILS; f++)
		s->fails[f] = 0;
	for (i = 0; i < fx->nerrprocs; i++) {
		p = &fx->errprocs[i];
		for (k = 0; k < fx->nerrseen && fx->errseen[k].pid != p->pid; k++)
			;
		if (k == fx->nerrseen) {
			if (fx->nerrseen == OBS_MAX_ERRPROCS)
				fx->nerrseen = 0; /* start over: an old process' counts are lost */
			k = fx->nerrseen++;
			fx->errseen[k] = (struct obs_fx_errseen){p->pid, obs_fx__netns(fx, p->pid), {0}};
		}
		e = &fx->errseen[k];
		in = e->netns && e->netns == fx->targets->netns;
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

void obs_fx__snap(struct obs_fx *fx, const struct obs_conn_stats *d,
		  const uint64_t dsys[OBS_SYS_MAX][OBS_FAIL_MAX], double t, double dt,
		  struct obs_snap *s)
{
	unsigned int f, k;
	size_t i;

	s->t = t;
	s->dt = dt;
	s->accepted = d->ctr[OBS_CTR_ACCEPTED];
	s->tw_entries = d->ctr[OBS_CTR_TW_ENTRIES];
	x__census(fx, s);
	s->tw_overflow = fx->tw_overflow_delta;
	s->listen_overflows = fx->listen_overflow_delta;
	s->listen_target_full += d->ctr[OBS_CTR_QLEN_FULL] +
				fx->fail_delta.fx[OBS_FX_SYNACK_RETRANS] +
				(fx->census_fresh && fx->cs.listen_backlog &&
				 fx->cs.listen_qlen_max >= fx->cs.listen_backlog);
	s->listen_qlen_max = (uint32_t)fx->conn_last->ctr[OBS_CTR_QLEN_MAX];
	s->listen_backlog = (uint32_t)fx->conn_last->ctr[OBS_CTR_BACKLOG_MAX];
	if (fx->cs.listen_backlog) {
		s->listen_qlen_max = fx->cs.listen_qlen_max;
		s->listen_backlog = fx->cs.listen_backlog;
	}
	for (f = 0; f < OBS_FAIL_MAX && f < OBS_SNAP_FAILS; f++) {
		for (k = 0; k < OBS_SYS_MAX; k++) {
			s->fails[f] += dsys[k][f];
			s->fails_total[f] += fx->run.fails[k][f];
		}
		s->fails_sys[f] = x__top_sys(dsys, f);
	}
	if (!fx->targets->npids && !fx->targets->cgroup_id) {
		/* the kernel counted every process: keep the watched namespace's, and the failed
		 * port searches on the target ports (judged by socket, so the namespace's) */
		x__local_fails(fx, s);
		/* EADDRNOTAVAIL is a port search that failed: the kernel's count on the target
		 * ports, exact (the processes' counts, read at another moment, are not added in:
		 * the larger of two counts per interval over-counted the run's total) */
		s->fails[OBS_SNAP_EADDRNOTAVAIL] = d->ctr[OBS_CTR_CONNECT_NOPORT];
		s->fails_sys[OBS_SNAP_EADDRNOTAVAIL] =
			s->fails[OBS_SNAP_EADDRNOTAVAIL] ? "connect" : NULL;
		/* the system's file table is the host's: every ENFILE counts */
		for (k = 0, s->fails[OBS_SNAP_ENFILE] = 0; k < OBS_SYS_MAX; k++)
			s->fails[OBS_SNAP_ENFILE] += dsys[k][OBS_FAIL_ENFILE];
		s->fails_sys[OBS_SNAP_ENFILE] = x__top_sys(dsys, OBS_FAIL_ENFILE);
		for (f = 0; f < OBS_FAIL_MAX && f < OBS_SNAP_FAILS; f++)
			if (f != OBS_SNAP_ENFILE)
				s->fails_total[f] = fx->local_total[f] += s->fails[f];
	}
	x__portfail(fx, s);
	s->file_nr = fx->file_nr_now;
	s->file_max = fx->run.file_max;
	x__procs(fx, s);
	for (i = 0; i < fx->nev_now; i++)
		s->event[s->nevents++] = fx->ev_now[i];
	snprintf(s->netns_name, sizeof(s->netns_name), "net:[%u] of %.63s", fx->targets->netns,
		 fx->targets->netns_from);
}
