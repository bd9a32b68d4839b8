// SPDX-License-Identifier: MIT
/* Forensics sampling: counters, census, fds -> rates, forecasts, an NDJSON record per interval. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "forensics_int.h"
#include "feature.h"
#include "output/forensics_record.h"
#include "output/ndjson.h"
#include "rules/rules.h"

const char *const obs_tcp_state_names[OBS_TCP_STATES] = {
	[1] = "ESTABLISHED", [2] = "SYN_SENT",	 [3] = "SYN_RECV",   [4] = "FIN_WAIT1",
	[5] = "FIN_WAIT2",   [6] = "TIME_WAIT",	 [7] = "CLOSE",	     [8] = "CLOSE_WAIT",
	[9] = "LAST_ACK",    [10] = "LISTEN",	 [11] = "CLOSING",   [12] = "NEW_SYN_RECV",
};

double obs_fx_slope(const double *t, const double *y, unsigned int n)
{
	return obs_rule_slope(t, y, n < OBS_FX_HIST ? n : OBS_FX_HIST);
}

const char *obs_fx_num(uint64_t v, char *buf, size_t len)
{
	return obs_rule_num(v, buf, len);
}

/*
 * --children: the targets' descendants that exist already (a cluster's workers, a pre-fork
 * server's children) become targets like those forked from now on. The fork tracepoint is
 * attached before this runs, so a child forked meanwhile by a process already in the map is
 * caught there; the second pass catches those forked by a process found in the first.
 */
static void x__children_at_start(struct obs_fx *fx)
{
	uint32_t found[OBS_MAX_TARGETS];
	int fd = bpf_map__fd(obs_conn_map(fx->conn, "targets"));
	struct obs_target t = {.flags = OBS_TARGET_CHILD};
	size_t n, i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		n = obs_pid_descendants(fx->targets->pids, fx->targets->npids, found,
					OBS_MAX_TARGETS);
		for (i = 0; i < n; i++) {
			if (!bpf_map_update_elem(fd, &found[i], &t, BPF_NOEXIST))
				fx->run.children_found++;
			else if (errno == E2BIG) {
				ll_warn(fx->prog, "note: the kernel's table of targets is full: "
					"child pid %u and %zu more found at the start are not "
					"targets", found[i], n - i - 1);
				return;
			}
			obs_fx__watch(fx, found[i]);
		}
	}
}

struct obs_fx *obs_fx_new(const char *prog, const struct obs_fx_opts *opts)
{
	struct obs_fx *fx = calloc(1, sizeof(*fx));
	const struct obs_fail_features *ff;
	int err = 0, i;
	size_t k;

	if (!fx || !(fx->conn_last = calloc(1, sizeof(*fx->conn_last)))) {
		err = -ENOMEM;
		goto cleanup;
	}
	fx->max_procs = opts->max_procs ? opts->max_procs : OBS_FX_PROCS_DEFAULT;
	if (fx->max_procs > OBS_FX_PROCS_MAX)
		fx->max_procs = OBS_FX_PROCS_MAX;
	fx->procs = calloc(fx->max_procs, sizeof(*fx->procs));
	if (!fx->procs) {
		err = -ENOMEM;
		goto cleanup;
	}
	fx->prog = prog;
	fx->targets = opts->targets;
	fx->conn = opts->shared;
	fx->copts = *opts->conn;
	fx->children = opts->children;
	fx->run.ports_first_forecast_t = fx->run.ports_full_t = -1;
	for (i = 0; i < OBS_FAIL_MAX; i++)
		fx->run.first_fail_t[i] = -1;
	fx->run.acc_rate_min = -1;
	fx->ndjson = opts->ndjson;
	fx->fail = opts->fail;
	fx->census = opts->census;
	/* before the privilege drop: read later with no capability (fditer.h) */
	fx->fdit = getenv("LOADLENS_OBSERVER_NO_FDITER") ? NULL : obs_fditer_new();
	if (!fx->fdit)
		ll_warn(prog, "note: no BPF task iterator (%s); fds are read from /proc/PID/fd, for "
			      "which the observer keeps CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH",
			getenv("LOADLENS_OBSERVER_NO_FDITER") ? "LOADLENS_OBSERVER_NO_FDITER is set"
							      : strerror(errno));
	opts->targets->fdit = fx->fdit;
	for (k = 0; k < opts->targets->npids; k++)
		obs_targets_refresh(opts->targets, k);
	for (k = 0; k < opts->targets->npids; k++)
		obs_fx__watch(fx, opts->targets->pids[k]);
	if (fx->children && opts->targets->npids)
		x__children_at_start(fx);
	ff = obs_fail_features(fx->fail);
	snprintf(fx->attached, sizeof(fx->attached), "syscall failures [syscall tier]%s%s%s%s%s",
		 ff->drops ? ", kfree_skb" : "", ff->synack ? ", tcp_retransmit_synack" : "",
		 ff->resets ? ", tcp resets" : "", ff->lifecycle ? ", process exits" : "",
		 fx->census ? ", sock_diag census" : "");
	if (fx->census)
		obs_census_netstat(fx->census, &fx->ns_start);
	fx->ns_cur = fx->ns_start;
	return fx;

cleanup:
	obs_fx_free(fx);
	errno = -err;
	return NULL;
}

void obs_fx_free(struct obs_fx *fx)
{
	if (!fx)
		return;
	if (fx->targets)
		fx->targets->fdit = NULL;
	obs_fditer_free(fx->fdit);
	free(fx->procs);
	free(fx->conn_last);
	free(fx);
}

uint64_t obs_fx_keep_caps(const struct obs_fx *fx)
{
	/* with the iterators, none; else /proc/PID/fd (and exe, ns/net) of a process with other
	 * credentials or more capabilities than ours (ptrace), and its 0500 directory (DAC) */
	return fx->fdit ? 0 : 1ULL << CAP_SYS_PTRACE | 1ULL << CAP_DAC_READ_SEARCH;
}

void obs_fx_census_due(struct obs_fx *fx)
{
	fx->census_next_t = 0;
}

const char *obs_fx_pressure(const struct obs_fx *fx)
{
	return fx->pressure;
}

/* The first sign of exhaustion this interval (half of a limit reached, or failures), or NULL. */
static const char *x__pressure(const struct obs_fx *fx, const uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX],
			       double fdpct, uint64_t file_nr, uint64_t file_max, uint64_t overflows)
{
	unsigned int s;

	if (fdpct >= 50)
		return "fds past half their limit";
	if (file_max && file_nr * 2 >= file_max)
		return "open files past half of fs.file-max";
	if (fx->ports_now.pct >= 50)
		return "ephemeral ports past half the range";
	for (s = 0; s < OBS_SYS_MAX; s++)
		if (sys[s][OBS_FAIL_EADDRNOTAVAIL] || sys[s][OBS_FAIL_EMFILE] ||
		    sys[s][OBS_FAIL_ENFILE])
			return "syscalls failing for want of ports or fds";
	if (overflows)
		return "listen overflows or drops";
	if (fx->cs.listen_backlog && fx->cs.listen_qlen_max * 2 >= fx->cs.listen_backlog)
		return "accept queue past half its backlog";
	return NULL;
}

const char *obs_fx_attached(const struct obs_fx *fx)
{
	return fx->attached;
}

/* The live counts from the state moves (census base + moves since), and their error bound. */
static void x__live_counts(struct obs_fx *fx, const uint64_t *moves, struct obs_fx_interval *iv)
{
	struct obs_fxrec_state *st;
	size_t i;
	unsigned int s;

	if (!fx->have_base)
		return;
	iv->have_live = true;
	iv->live_err = 0;
	for (s = 1; s < OBS_TCP_STATES; s++) {
		if (!obs_tcp_state_names[s] || s == 7 || s == 12 || s == OBS_TCP_TIME_WAIT ||
		    s == OBS_TCP_LISTEN)
			continue;
		for (i = 0; i < iv->nstates && iv->states[i].name != obs_tcp_state_names[s]; i++)
			;
		st = &iv->states[i];
		if (i == iv->nstates) { /* a deferred census: the live counts alone */
			iv->nstates++;
			st->name = obs_tcp_state_names[s];
			st->live = true;
			st->est = fx->base[s] + (int64_t)moves[s] - (int64_t)moves[OBS_TCP_STATES + s];
			st->err = fx->base_err[s];
		}
		if (st->err > iv->live_err)
			iv->live_err = st->err;
		fx->live[s] = st->est;
	}
	fx->live_err = iv->live_err;
	fx->live_ok = true;
	if (iv->live_err > fx->run.live_err_max)
		fx->run.live_err_max = iv->live_err;
}

/* Census, reconciled against the live counts from state moves; TIME_WAIT and port pressure. */
static void x__census(struct obs_fx *fx, const struct obs_conn_stats *ct, double t,
		      struct obs_fx_interval *iv)
{
	struct obs_fx_ports *pp = &fx->ports_now;
	struct obs_fxrec_state *st;
	uint64_t absmax = 0;
	double y[OBS_FX_HIST];
	uint64_t m0[OBS_STATE_MOVES], m1[OBS_STATE_MOVES], during;
	unsigned int s, k;
	int64_t est, moved, d;
	bool around;

	/* a census walks every socket of the netns (about 1 us each): space them so that they
	 * take at most 1% of a CPU; the live counts carry on from the state moves meanwhile. When
	 * those moves show sockets piling up in CLOSE_WAIT, 10% of a CPU: a leak is told sooner. */
	fx->census_fresh = false;
	fx->live_ok = false;
	moved = (int64_t)ct->moves[OBS_TCP_CLOSE_WAIT] -
		(int64_t)ct->moves[OBS_TCP_STATES + OBS_TCP_CLOSE_WAIT];
	if (fx->census && fx->have_base && fx->base[OBS_TCP_CLOSE_WAIT] + moved >= 10 &&
	    t >= fx->census_t + fx->cs.took_ms * 10 / 1000.0)
		fx->census_next_t = 0;
	if (fx->census && t < fx->census_next_t) {
		fx->run.census_deferred++;
		iv->census = OBS_FXREC_CENSUS_DEFERRED;
		x__live_counts(fx, ct->moves, iv);
		return;
	}
	memset(pp, 0, sizeof(*pp));
	pp->tte = -1;
	/* the moves just before and just after the walk: those in between bound how far the
	 * census is from any one instant (none: it is exact) */
	around = fx->conn && !obs_conn_read_moves(fx->conn, m0);
	if (!fx->census || obs_census_take(fx->census, &fx->cs)) {
		fx->run.census_failed += fx->census != NULL;
		iv->census = OBS_FXREC_CENSUS_NONE;
		return;
	}
	if (!around || obs_conn_read_moves(fx->conn, m1)) {
		memcpy(m0, ct->moves, sizeof(m0));
		memcpy(m1, ct->moves, sizeof(m1));
	}
	/* sock_diag resumes each chunk of the dump at a (bucket, position): a socket hashed or
	 * unhashed meanwhile shifts the others of its bucket, whatever their state, so one can be
	 * counted twice or missed. Every move during the walk (into a state: hashing, the
	 * TIME_WAIT that replaces a socket) bounds each state's error, twice over. */
	for (during = 0, s = 0; s < OBS_TCP_STATES; s++)
		during += 2 * (m1[s] - m0[s]);
	fx->run.census_ok++;
	iv->census = OBS_FXREC_CENSUS_TAKEN;
	iv->have_live = fx->have_base;
	fx->census_fresh = true;
	fx->census_t = t;
	if (fx->cs.close_wait_untracked > fx->run.cw_untracked_max)
		fx->run.cw_untracked_max = fx->cs.close_wait_untracked;
	if (fx->cs.unaccepted_untracked > fx->run.unacc_untracked_max)
		fx->run.unacc_untracked_max = fx->cs.unaccepted_untracked;
	if (fx->cs.listeners_untracked > fx->run.listen_untracked_max)
		fx->run.listen_untracked_max = fx->cs.listeners_untracked;
	fx->census_next_t = t + fx->cs.took_ms * 100 / 1000.0 - 0.001;
	/* sockets stuck in CLOSE_WAIT or FIN_WAIT2 are told by a second look: 10% of a CPU */
	if (fx->cs.aging_young >= 10)
		fx->census_next_t = t + fx->cs.took_ms * 10 / 1000.0 - 0.001;
	if (fx->cs.took_ms > fx->run.census_ms_max)
		fx->run.census_ms_max = fx->cs.took_ms;
	for (s = 1; s < OBS_TCP_STATES; s++) {
		if (!obs_tcp_state_names[s] || s == 7 || s == 12)
			continue;
		st = &iv->states[iv->nstates++];
		st->name = obs_tcp_state_names[s];
		st->census = fx->cs.state[s];
		if (fx->cs.state[s] > fx->run.state_max[s])
			fx->run.state_max[s] = fx->cs.state[s];
		if (s == OBS_TCP_TIME_WAIT || s == OBS_TCP_LISTEN)
			continue; /* TIME_WAIT is not a state in the tracepoint */
		moved = (int64_t)m1[s] - (int64_t)m1[OBS_TCP_STATES + s];
		if (fx->have_base) {
			est = fx->base[s] + moved;
			d = est - (int64_t)fx->cs.state[s];
			st->live = true;
			st->est = est;
			st->diff = d;
			st->err = fx->base_err[s] + during;
			/* within what the moves during the censuses allow: the live count keeps
			 * the tighter base; past it, moves were missed: rebased */
			if ((uint64_t)(d < 0 ? -d : d) > st->err) {
				if ((uint64_t)(d < 0 ? -d : d) - st->err > absmax)
					absmax = (uint64_t)(d < 0 ? -d : d) - st->err;
			} else if (fx->base_err[s] <= during) {
				continue;
			}
		}
		fx->base[s] = (int64_t)fx->cs.state[s] - moved;
		fx->base_err[s] = during;
	}
	if (fx->have_base && absmax > fx->run.reconcile_abs_max)
		fx->run.reconcile_abs_max = absmax;
	if (iv->have_live)
		x__live_counts(fx, m1, iv);
	fx->have_base = true;
	iv->sockets = fx->cs.sockets;
	iv->took_ms = fx->cs.took_ms;
	fx->have_base = true;

	/* CLOSE_WAIT trend */
	k = fx->ncw % OBS_FX_HIST;
	fx->cw_t[k] = t;
	fx->cw_hist[k] = fx->cs.state[8];
	if (fx->ncw && fx->cs.state[8] > fx->run.close_wait_last)
		fx->run.close_wait_rising++;
	else if (fx->ncw && fx->cs.state[8] < fx->run.close_wait_last)
		fx->run.close_wait_rising = 0;
	fx->ncw++;
	for (s = 0; s < OBS_FX_HIST && s < fx->ncw; s++)
		y[s] = (double)fx->cw_hist[s];
	fx->run.close_wait_rate = obs_fx_slope(fx->cw_t, y, fx->ncw);
	fx->run.close_wait_last = fx->cs.state[8];

	/* ports: the most used (src, dst:port) group against the range */
	pp->range = obs_census_range(&fx->cs);
	if (!fx->cs.ntop || !pp->range)
		return;
	pp->g = fx->cs.top[0];
	pp->pct = 100.0 * pp->g.in_use / pp->range;
	if (pp->pct > 100.0)
		pp->pct = 100.0;
	k = fx->nport % OBS_FX_HIST;
	fx->port_t[k] = t;
	fx->port_used[k] = pp->g.in_use;
	fx->nport++;
	for (s = 0; s < OBS_FX_HIST && s < fx->nport; s++)
		y[s] = fx->port_used[s];
	pp->rate = obs_fx_slope(fx->port_t, y, fx->nport);
	if (pp->g.in_use < pp->range && pp->rate > 0.5 && fx->nport >= 3) {
		pp->tte = (pp->range - pp->g.in_use) / pp->rate;
		if (pp->tte > OBS_FX_FORECAST_HORIZON_S)
			pp->tte = -1;
	}
	if (pp->tte >= 0 && fx->run.ports_first_forecast_t < 0) {
		fx->run.ports_first_forecast_t = t;
		fx->run.ports_first_forecast_tte = pp->tte;
	}
	if (pp->g.in_use >= pp->range && fx->run.ports_full_t < 0)
		fx->run.ports_full_t = t;
	if (pp->g.in_use >= fx->run.ports_peak.g.in_use)
		fx->run.ports_peak = *pp;
}

static void x__fails(struct obs_fx_interval *iv, const uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX])
{
	unsigned int s, f;

	for (f = 0; f < OBS_FAIL_MAX; f++)
		for (s = 0; s < OBS_SYS_MAX; s++)
			if (sys[s][f])
				iv->fails[iv->nfails++] = (struct obs_fxrec_fail){
					.fail = obs_fail_name(f), .sys = obs_sys_name(s),
					.n = sys[s][f]};
}

/* accept()/accept4() failures are counted by sockets.bpf.c per errno, not per call */
static void x__accept_fails(uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX], const struct obs_conn_stats *d)
{
	sys[OBS_SYS_ACCEPT4][OBS_FAIL_EMFILE] = d->errnos[24];
	sys[OBS_SYS_ACCEPT4][OBS_FAIL_ENFILE] = d->errnos[23];
	sys[OBS_SYS_CONNECT][OBS_FAIL_EADDRNOTAVAIL] += d->ctr[OBS_CTR_CONNECT_NOPORT];
}

const char *obs_fx_live_header(void)
{
	static char h[64];

	snprintf(h, sizeof(h), " %6s %6s %6s %6s %5s %4s %6s", "ESTAB", "TW", "CLS/S", "CLOSEW",
		 "PORT%", "FD%", "FAIL/S");
	return h;
}

static void x__live(const struct obs_fx *fx, double tw_rate, double fail_rate, double fdpct,
		    char *buf, size_t len)
{
	char pct[8] = "-", fdp[8] = "-", tw[16] = "-", est[16] = "-", cw[16] = "-";

	if (fx->ports_now.range)
		snprintf(pct, sizeof(pct), "%.0f", fx->ports_now.pct);
	if (fdpct >= 0)
		snprintf(fdp, sizeof(fdp), "%.0f", fdpct);
	if (fx->run.census_ok) {
		snprintf(est, sizeof(est), "%llu", (unsigned long long)fx->cs.state[1]);
		snprintf(tw, sizeof(tw), "%llu", (unsigned long long)fx->cs.state[6]);
		snprintf(cw, sizeof(cw), "%llu", (unsigned long long)fx->cs.state[8]);
	}
	/* no census this interval: the live counts from the state moves ("~": not exact) */
	if (!fx->census_fresh && fx->live_ok) {
		snprintf(est, sizeof(est), "%s%lld", fx->live_err ? "~" : "",
			 (long long)fx->live[1]);
		snprintf(cw, sizeof(cw), "%s%lld", fx->live_err ? "~" : "",
			 (long long)fx->live[OBS_TCP_CLOSE_WAIT]);
	}
	snprintf(buf, len, " %6s %6s %6.0f %6s %5s %4s %6.0f", est, tw, tw_rate, cw, pct, fdp,
		 fail_rate);
}

uint64_t obs_fx_lost(const struct obs_fx *fx)
{
	return fx->fail_cur.fx[OBS_FX_RB_LOST] + fx->fail_cur.fx[OBS_FX_ERRPROC_FULL] +
	       fx->fail_cur.missed + fx->ev_lost;
}

int obs_fx_tick(struct obs_fx *fx, const struct obs_conn_stats *ct,
		const struct obs_conn_stats *cd, double t, struct obs_snap *snap, char *live,
		size_t livelen)
{
	uint64_t dsys[OBS_SYS_MAX][OBS_FAIL_MAX], fails = 0, nr = 0, max = 0, ff[OBS_FAIL_MAX] = {};
	uint64_t ovf = 0;
	struct obs_fx_interval *iv = calloc(1, sizeof(*iv));
	double dt = t - fx->t_prev, tw_rate, acc_rate, fdpct = -1, pct;
	struct obs_netstat ns = {};
	struct timespec now;
	unsigned int s, f;
	json_t *rec;
	int lo, err;
	size_t i;

	if (!iv)
		return -ENOMEM;
	fx->listen_overflow_delta = fx->tw_overflow_delta = 0;
	err = obs_fail_read(fx->fail, &fx->fail_cur);
	if (err)
		goto cleanup;
	obs_fail_stats_sub(&fx->fail_delta, &fx->fail_cur, &fx->fail_prev);
	memcpy(fx->conn_last, ct, sizeof(*ct));
	obs_fx__lifecycle(fx, t);

	memcpy(dsys, fx->fail_delta.sys, sizeof(dsys));
	x__accept_fails(dsys, cd);
	for (s = 0; s < OBS_SYS_MAX; s++)
		for (f = 0; f < OBS_FAIL_MAX; f++) {
			fx->run.fails[s][f] += dsys[s][f];
			ff[f] += dsys[s][f];
			fails += dsys[s][f];
		}
	for (f = 0; f < OBS_FAIL_MAX; f++) {
		if (ff[f] && fx->run.first_fail_t[f] < 0)
			fx->run.first_fail_t[f] = t;
		if (dt > 0 && ff[f] / dt > fx->run.fail_rate_max[f])
			fx->run.fail_rate_max[f] = ff[f] / dt;
	}
	acc_rate = dt > 0 ? cd->ctr[OBS_CTR_ACCEPTED] / dt : 0;
	if (cd->ctr[OBS_CTR_ACCEPTED]) {
		if (fx->run.acc_rate_min < 0 || acc_rate < fx->run.acc_rate_min)
			fx->run.acc_rate_min = acc_rate;
		if (acc_rate > fx->run.acc_rate_max)
			fx->run.acc_rate_max = acc_rate;
	}
	fx->run.tw_entries += cd->ctr[OBS_CTR_TW_ENTRIES];
	tw_rate = dt > 0 ? cd->ctr[OBS_CTR_TW_ENTRIES] / dt : 0;
	if (tw_rate > fx->run.tw_rate_max)
		fx->run.tw_rate_max = tw_rate;

	/* the interval's snapshot for the record (output/forensics_record.c) */
	clock_gettime(CLOCK_REALTIME, &now);
	iv->time = now.tv_sec + now.tv_nsec / 1e9;
	iv->t = t;
	iv->dt = dt;
	iv->accepted = cd->ctr[OBS_CTR_ACCEPTED];
	iv->accept_rate = acc_rate;
	/* connect() ran out of ports: the census names the group that did, within a second
	 * (a census deferred for its cost would leave the failures unplaced) */
	if (cd->ctr[OBS_CTR_CONNECT_NOPORT] && (!fx->cs.ntop || t >= fx->census_t + 1.0))
		fx->census_next_t = 0;
	x__census(fx, ct, t, iv);
	iv->tw_entries = cd->ctr[OBS_CTR_TW_ENTRIES];
	iv->tw_per_s = tw_rate;
	if (fx->ports_now.range) {
		iv->ports.have_range = true;
		iv->ports.lo = fx->cs.port_lo;
		iv->ports.hi = fx->cs.port_hi;
		iv->ports.size = fx->ports_now.range;
		if (fx->cs.ntop) {
			iv->ports.have_group = true;
			obs_port_group_text(&fx->ports_now.g, iv->ports.group,
					    sizeof(iv->ports.group));
			iv->ports.in_use = fx->ports_now.g.in_use;
			iv->ports.time_wait = fx->ports_now.g.time_wait;
		}
		iv->ports.pct = fx->ports_now.pct;
		iv->ports.rate = fx->ports_now.rate;
		iv->ports.tte = fx->ports_now.tte;
		iv->ports.groups = fx->cs.ngroups;
	}
	x__fails(iv, dsys);
	iv->failure_rate = dt > 0 ? fails / dt : 0;

	obs_fx__procs(fx, t);
	for (i = 0; i < fx->nprocs; i++) {
		if (fx->procs[i].exited || fx->procs[i].fd.soft <= 0 || fx->procs[i].fd.open < 0)
			continue;
		pct = 100.0 * fx->procs[i].fd.open / fx->procs[i].fd.soft;
		if (pct > fdpct)
			fdpct = pct;
	}
	iv->procs = fx->procs;
	iv->nprocs = fx->nprocs;
	fx->pressure = NULL;
	if (!obs_fd_system(&nr, &max)) {
		fx->file_nr_now = nr;
		if (nr > fx->run.file_nr_max)
			fx->run.file_nr_max = nr;
		fx->run.file_max = max;
		iv->have_files = true;
		iv->file_nr = nr;
		iv->file_max = max;
	}
	if (fx->census && !obs_census_netstat(fx->census, &ns)) {
		iv->have_listen = true;
		iv->overflows = ns.listen_overflows - fx->ns_cur.listen_overflows;
		iv->drops = ns.listen_drops - fx->ns_cur.listen_drops;
		iv->reqq_full_drops = ns.reqq_full_drop - fx->ns_cur.reqq_full_drop;
		iv->queue_max = ct->ctr[OBS_CTR_QLEN_MAX];
		iv->backlog = ct->ctr[OBS_CTR_BACKLOG_MAX];
		ovf = iv->overflows + iv->drops;
		fx->listen_overflow_delta = ns.listen_overflows - fx->ns_cur.listen_overflows;
		fx->tw_overflow_delta = ns.tw_overflow - fx->ns_cur.tw_overflow;
		fx->ns_cur = ns;
		fx->run.listen_overflows = ns.listen_overflows - fx->ns_start.listen_overflows;
		fx->run.listen_drops = ns.listen_drops - fx->ns_start.listen_drops;
		fx->run.reqq_full = ns.reqq_full_drop - fx->ns_start.reqq_full_drop;
	}
	lo = obs_drop_reason(fx->fail, "TCP_LISTEN_OVERFLOW");
	if (lo >= 0) {
		/* the drop reason counts what ListenOverflows may miss (another namespace's view) */
		if (fx->fail_delta.drops[lo] > fx->listen_overflow_delta)
			fx->listen_overflow_delta = fx->fail_delta.drops[lo];
		fx->run.drop_listen_overflow = fx->fail_cur.drops[lo];
	}
	lo = obs_drop_reason(fx->fail, "SOCKET_BACKLOG");
	if (lo >= 0)
		fx->run.drop_socket_backlog = fx->fail_cur.drops[lo];
	iv->synack_retransmits = fx->fail_delta.fx[OBS_FX_SYNACK_RETRANS];
	iv->resets_sent = fx->fail_delta.fx[OBS_FX_RST_SENT];
	iv->resets_received = fx->fail_delta.fx[OBS_FX_RST_RECV];
	iv->lost_events = fx->fail_delta.fx[OBS_FX_RB_LOST] +
			  fx->fail_delta.fx[OBS_FX_ERRPROC_FULL] + fx->fail_delta.missed;

	rec = fx->ndjson ? obs_fx_fmt_interval(iv) : NULL;
	err = rec ? obs_ndjson_write(fx->ndjson, rec) : fx->ndjson ? -ENOMEM : 0;
	json_decref(rec);
	if (snap)
		obs_fx__snap(fx, cd, dsys, t, dt, snap);
	fx->nev_now = 0;
	fx->pressure = x__pressure(fx, dsys, fdpct, nr, max, ovf);
	x__live(fx, tw_rate, dt > 0 ? fails / dt : 0, fdpct, live, livelen);
	fx->fail_prev = fx->fail_cur;
	fx->t_prev = t;
	fx->run.t_end = t;
	fx->run.intervals++;
cleanup:
	free(iv);
	return err;
}

static int x__ftick(void *self, struct obs_tick *tk)
{
	return obs_fx_tick(self, tk->conn_total, tk->conn_delta, tk->t, tk->snap, tk->live,
			   sizeof(tk->live));
}

/* The final tick takes a census whatever its spacing: the summary's ground truth. */
static int x__ffinish(void *self, struct obs_tick *tk)
{
	obs_fx_census_due(self);
	return x__ftick(self, tk);
}

static int x__fsummary(void *self, FILE *out)
{
	return obs_fx_summary(self, out);
}

static int x__fjson(void *self, json_t *root)
{
	return obs_fx_json_add(self, root);
}

struct obs_feature obs_fx_feature(struct obs_fx *fx)
{
	return (struct obs_feature){
		.name = "forensics",
		.self = fx,
		.tick = x__ftick,
		.finish = x__ffinish,
		.summary = x__fsummary,
		.json = x__fjson,
	};
}
