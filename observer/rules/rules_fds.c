// SPDX-License-Identifier: MIT
/* Rules on processes: fds against RLIMIT_NOFILE, fd leaks, system file handles, the watch cap,
 * target exits, a spike of children's exits. */
#include <stdio.h>
#include <string.h>
#include "rules/rules.h"

static const struct obs_snap_proc *proc(const struct obs_snap *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < s->nprocs; i++)
		if (s->proc[i].pid == pid)
			return &s->proc[i];
	return NULL;
}

/* Open fds of pid, newest first, while each snapshot has them; returns how many. */
static unsigned int fd_series(const struct obs_snap_hist *h, uint32_t pid, double *t, double *y,
				 unsigned int max)
{
	const struct obs_snap_proc *p;
	const struct obs_snap *s;
	unsigned int b, n = 0;

	for (b = 0; n < max && (s = obs_snap_at(h, b)); b++) {
		p = proc(s, pid);
		if (!p || !p->watched || p->exited || p->open < 0)
			break;
		t[n] = s->t;
		y[n++] = (double)p->open;
	}
	return n;
}

/*
 * The trend a forecast needs (rules.h, OBS_RULE_TREND_S): t/y newest first, n samples. Returns
 * how many of the newest samples make up the trend (its span >= OBS_RULE_TREND_S), 0 if none;
 * *rate gets its slope. Below `limit`, a ramp slowing down that would level off short of it is
 * no trend (a ramp of 90,000 connections levelling off at 75% of the fds).
 */
static unsigned int trend(const double *t, const double *y, unsigned int n, double limit,
			  double *rate)
{
	unsigned int b, c = 0, m = 0;
	double left;

	*rate = 0;
	if (n < 3 || y[0] <= y[1])
		return 0;
	for (b = 1; b < n && !m; b++)
		if (t[0] - t[b] >= OBS_RULE_TREND_S - 1e-6 && b >= 2)
			m = b + 1;
	if (!m)
		return 0;
	*rate = obs_rule_slope(t, y, m);
	/* every step of about a second rose, at a fair share of the trend's rate */
	for (b = 1; b < m; b++) {
		if (t[c] - t[b] < OBS_RULE_TREND_STEP_S - 1e-6 && b + 1 < m)
			continue;
		if (y[c] - y[b] < OBS_RULE_TREND_STEP_SHARE * *rate * (t[c] - t[b]) ||
		    y[c] <= y[b]) {
			*rate = 0;
			return 0;
		}
		c = b;
	}
	left = obs_rule_growth_left(t, y, m);
	if (left >= 0 && y[0] + left < limit) {
		*rate = 0;
		return 0;
	}
	return m;
}

static json_t *fd_evidence(const struct obs_snap_proc *p, uint64_t emfile, double tte)
{
	return json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:o}", "pid", (int)p->pid, "comm", p->comm,
			 "open", (json_int_t)p->open, "soft", (json_int_t)p->soft, "hard",
			 (json_int_t)p->hard, "emfile", (json_int_t)emfile, "forecast_s",
			 tte >= 0 ? json_real(tte) : json_null());
}

void obs_rule_fds(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *prev = obs_snap_at(h, 1);
	const struct obs_snap_proc *p, *pp;
	double t[OBS_SNAP_HIST], y[OBS_SNAP_HIST], rate, tte, pct;
	char a[32], key[24], open[96];
	unsigned int n, m;
	uint64_t new;
	size_t i;

	for (i = 0; i < now->nprocs; i++) {
		p = &now->proc[i];
		snprintf(key, sizeof(key), "pid %u", p->pid);
		pp = prev ? proc(prev, p->pid) : NULL;
		new = p->emfile - (pp && pp->emfile <= p->emfile ? pp->emfile : 0);
		if (new) {
			if (p->open >= 0 && p->soft > 0)
				snprintf(open, sizeof(open), "%lld open of RLIMIT_NOFILE %lld (hard "
					 "%lld)", (long long)p->open, (long long)p->soft,
					 (long long)p->hard);
			else if (p->watched)
				snprintf(open, sizeof(open), "its fds could not be read");
			else
				snprintf(open, sizeof(open), "its fds are not watched (--max-procs)");
			obs_findings_add(out, "fd_exhaustion", OBS_SEV_CRITICAL, key,
					 fd_evidence(p, p->emfile, -1),
					 "fds: %s (pid %u) ran out of file descriptors: EMFILE %s time%s "
					 "(the latest in %s()); %s; raise the limit (ulimit -n, "
					 "LimitNOFILE=) or close fds sooner", p->comm, p->pid,
					 obs_rule_num(p->emfile, a, sizeof(a)), p->emfile == 1 ? "" : "s",
					 p->last_sys ? p->last_sys : "?", open);
			continue;
		}
		if (!p->watched || p->exited || p->open < 0 || p->soft <= 0)
			continue;
		pct = 100.0 * p->open / p->soft;
		n = fd_series(h, p->pid, t, y, OBS_SNAP_HIST);
		m = trend(t, y, n, (double)p->soft, &rate);
		tte = -1;
		if (rate > 0.1 && p->open < p->soft) {
			tte = (p->soft - p->open) / rate;
			if (tte > OBS_RULE_HORIZON_S ||
			    (pct < OBS_RULE_FD_FORECAST_PCT && tte > OBS_RULE_FD_SOON_S))
				tte = -1;
		}
		if (tte >= 0)
			obs_findings_add(out, "fd_exhaustion", OBS_SEV_WARNING, key,
					 fd_evidence(p, 0, tte),
					 "fds: %s (pid %u) will run out of file descriptors in ~%.0f s "
					 "(%lld of %lld, %+.0f/s over the last %.0f s)", p->comm,
					 p->pid, tte, (long long)p->open, (long long)p->soft, rate,
					 t[0] - t[m - 1]);
		else if (pct >= OBS_RULE_FD_HIGH_PCT)
			obs_findings_add(out, "fd_exhaustion", OBS_SEV_WARNING, key,
					 fd_evidence(p, 0, -1),
					 "fds: %s (pid %u) has %lld file descriptors open, %.0f%% of "
					 "its RLIMIT_NOFILE of %lld", p->comm, p->pid, (long long)p->open,
					 pct, (long long)p->soft);
	}
}

/* Whether the sockets applications hold, ESTABLISHED and CLOSE_WAIT (a census, or the exact live
 * counts between censuses), explain fds that rose by RISE since `since` at SLOPE a second: they
 * grew at half that rate or more, or fell by more than the fds rose (below). With fewer than 2
 * counts nothing is known of them, and the fds judge alone: false. */
static bool held_explains(const struct obs_snap_hist *h, double since, double slope, double rise)
{
	double t[OBS_SNAP_HIST], y[OBS_SNAP_HIST];
	const struct obs_snap *s;
	unsigned int b, n = 0;
	double q;

	for (b = 0; (s = obs_snap_at(h, b)) && s->t >= since; b++) {
		if (!s->census && !s->held_live)
			continue;
		t[n] = s->t;
		y[n] = s->census ? (double)(s->state[OBS_SNAP_ESTABLISHED] +
					    s->state[OBS_SNAP_CLOSE_WAIT])
				 : (double)s->held;
		/* ... less those still in the accept queues, which no process holds yet: a server
		 * draining a backlog of connections already ESTABLISHED (slapd taking 256 at 40/s;
		 * nginx starved of its CPU, 200 at 10/s) holds more of them each second, its fds
		 * rising with its accepts. This tick's queues: the fullest one seen is a count that
		 * never falls, and a census' is as old as the census */
		q = s->listen_queued_ok ? (double)s->listen_queued : (double)s->listen_qlen_max;
		y[n] = y[n] > q ? y[n] - q : 0;
		n++;
	}
	if (n < 2)
		return false;
	/* The counts are the host's, both ends of a connection on it: when clients on the same
	 * host close (a load ending), their ends leave at once while the server's wait in
	 * CLOSE_WAIT until it gets to them, and a server behind (starved of its CPU) still takes
	 * its backlog, fds rising. A fall larger than the fds' rise is connections closing, not
	 * the steady backdrop a leak is told against; a leak still rising is named once the
	 * window is past the fall. */
	if (y[n - 1] - y[0] > rise)
		return true;
	return obs_rule_slope(t, y, n) >= 0.5 * slope;
}

void obs_rule_fd_leak(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *s;
	double t[OBS_SNAP_HIST], y[OBS_SNAP_HIST], amin = -1, amax = 0, a;
	const struct obs_snap_proc *p;
	unsigned int n, k;
	char key[24], acc[48];
	bool up;
	size_t i;

	for (i = 0; i < now->nprocs; i++) {
		p = &now->proc[i];
		if (!p->watched || p->exited || p->emfile)
			continue;
		n = fd_series(h, p->pid, t, y, OBS_RULE_LEAK_SAMPLES);
		if (n < OBS_RULE_LEAK_SAMPLES || y[0] - y[n - 1] < OBS_RULE_LEAK_MIN_FDS)
			continue;
		for (k = 1, up = true; k < n && up; k++)
			up = y[k - 1] > y[k];
		if (!up)
			continue;
		/* accepts over the same intervals: steady (a leak grows while the load does not) */
		amin = -1;
		amax = 0;
		for (k = 0; k + 1 < n && (s = obs_snap_at(h, k)); k++) {
			a = s->dt > 0 ? s->accepted / s->dt : 0;
			if (amin < 0 || a < amin)
				amin = a;
			if (a > amax)
				amax = a;
		}
		if (amax > 1.5 * amin + 1.0)
			continue;
		/* connections held open are not an fd leak: ESTABLISHED growing with the fds; nor
		 * is a CLOSE_WAIT leak, which close_wait_leak names (one finding per cause) */
		if (held_explains(h, t[n - 1], obs_rule_slope(t, y, n), y[0] - y[n - 1]))
			continue;
		snprintf(key, sizeof(key), "pid %u", p->pid);
		if ((long)(amin + 0.5) == (long)(amax + 0.5))
			snprintf(acc, sizeof(acc), "%.0f", amax);
		else
			snprintf(acc, sizeof(acc), "%.0f-%.0f", amin, amax);
		obs_findings_add(out, "fd_leak", OBS_SEV_WARNING, key,
				 json_pack("{s:i, s:s, s:I, s:f, s:f}", "pid", (int)p->pid, "comm",
					   p->comm, "open", (json_int_t)p->open, "per_s",
					   obs_rule_slope(t, y, n), "accept_per_s", amax),
				 "fds: %s (pid %u) leaks file descriptors: %.0f more open in %.0f s "
				 "(%+.1f/s, %lld now) while accepted connections held steady at "
				 "%s/s", p->comm, p->pid, y[0] - y[n - 1], t[0] - t[n - 1],
				 obs_rule_slope(t, y, n), (long long)p->open, acc);
	}
}

void obs_rule_system_fds(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	uint64_t n = now->fails[OBS_SNAP_ENFILE];
	const char *sys = now->fails_sys[OBS_SNAP_ENFILE];
	char a[32], b[32], c[32];

	if (n)
		obs_findings_add(out, "system_fds", OBS_SEV_CRITICAL, "",
				 json_pack("{s:I, s:I, s:I}", "enfile", (json_int_t)n, "file_nr",
					   (json_int_t)now->file_nr, "file_max",
					   (json_int_t)now->file_max),
				 "files: the system ran out of file handles: %s() failed with ENFILE %s "
				 "time%s in %.1f s; fs.file-nr %s of fs.file-max %s", sys ? sys : "open",
				 obs_rule_num(n, a, sizeof(a)), n == 1 ? "" : "s", now->dt,
				 obs_rule_num(now->file_nr, b, sizeof(b)),
				 obs_rule_num(now->file_max, c, sizeof(c)));
	else if (now->file_max && now->file_nr * 100.0 >= OBS_RULE_FILES_HIGH_PCT * now->file_max)
		obs_findings_add(out, "system_fds", OBS_SEV_WARNING, "",
				 json_pack("{s:I, s:I, s:I}", "enfile", (json_int_t)0, "file_nr",
					   (json_int_t)now->file_nr, "file_max",
					   (json_int_t)now->file_max),
				 "files: %s file handles open of fs.file-max %s (%.0f%%)",
				 obs_rule_num(now->file_nr, b, sizeof(b)),
				 obs_rule_num(now->file_max, c, sizeof(c)),
				 100.0 * now->file_nr / now->file_max);
}

void obs_rule_process_cap(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	char a[32];

	if (now->targets_full)
		obs_findings_add(out, "process_cap", OBS_SEV_WARNING, "targets",
				 json_pack("{s:I, s:i}", "targets_full", (json_int_t)now->targets_full,
					   "targets_max", (int)now->targets_max),
				 "processes: %s new children were not made targets: the kernel's "
				 "table of %u targets is full; their sockets, requests and failures "
				 "are not the target's", obs_rule_num(now->targets_full, a, sizeof(a)),
				 now->targets_max);
	if (!now->procs_unwatched)
		return;
	obs_findings_add(out, "process_cap", OBS_SEV_WARNING, "",
			 json_pack("{s:i, s:I, s:i, s:s}", "max_procs", (int)now->max_procs,
				   "unwatched", (json_int_t)now->procs_unwatched, "pid",
				   (int)now->first_unwatched_pid, "comm", now->first_unwatched_comm),
			 "processes: the watched-process limit (--max-procs %u) was reached: %s (pid "
			 "%u) and %llu more are not watched for fds nor CPU waits (their EMFILE "
			 "failures are still named; CPU saturation is judged from the watched "
			 "ones' waits and the CPUs' busy time); raise --max-procs", now->max_procs, now->first_unwatched_comm,
			 now->first_unwatched_pid, (unsigned long long)(now->procs_unwatched - 1));
}

void obs_rule_target_exit(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	char key[24];
	size_t i;

	for (i = 0; i < now->nevents; i++) {
		snprintf(key, sizeof(key), "pid %u at %.1f", now->event[i].pid, now->t);
		obs_findings_add(out, "target_exit", OBS_SEV_WARNING, key,
				 json_pack("{s:i, s:s}", "pid", (int)now->event[i].pid, "event",
					   now->event[i].text), "targets: %s", now->event[i].text);
	}
}

/* What a child per connection or per request may end in one interval: the connections closed,
 * or the requests timed when more. */
static uint64_t exit_bound(const struct obs_snap *s)
{
	uint64_t req = 0;
	size_t i;

	for (i = 0; s->requests_on && i < s->nslots; i++)
		req += s->slot[i].requests;
	return req > s->closed ? req : s->closed;
}

static bool exit_spike_in(const struct obs_snap *s)
{
	return s && s->children_on && s->child_exits >= OBS_RULE_EXITS_MIN &&
	       s->child_exits > OBS_RULE_EXITS_RATIO * exit_bound(s) + OBS_RULE_EXITS_MARGIN;
}

void obs_rule_exit_spike(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *before;
	char key[24], who[40];
	unsigned int b;

	for (b = 0; b < OBS_RULE_EXITS_INTERVALS; b++)
		if (!exit_spike_in(obs_snap_at(h, b)))
			return;
	before = obs_snap_at(h, 1);
	if (now->forker.pid)
		snprintf(who, sizeof(who), "pid %u (%s)", now->forker.pid, now->forker.comm);
	else
		snprintf(who, sizeof(who), "the targets");
	snprintf(key, sizeof(key), "pid %u", now->forker.pid);
	obs_findings_add(out, "exit_spike", OBS_SEV_WARNING, key,
			 json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "pid",
				   (int)now->forker.pid, "comm", now->forker.comm, "forked",
				   (json_int_t)now->forker.forks, "exits",
				   (json_int_t)now->child_exits, "closed", (json_int_t)now->closed,
				   "bound", (json_int_t)exit_bound(now), "exits_before",
				   (json_int_t)before->child_exits, "closed_before",
				   (json_int_t)before->closed, "interval_s", now->dt),
			 "processes: %llu children of %s ended with status 0 in %.1f s (%llu the "
			 "interval before) while %llu target sockets closed (%llu before) and %llu "
			 "were forked: workers end faster than their clients leave: a respawn loop? "
			 "see the server's log", (unsigned long long)now->child_exits, who, now->dt,
			 (unsigned long long)before->child_exits, (unsigned long long)now->closed,
			 (unsigned long long)before->closed, (unsigned long long)now->forker.forks);
}
