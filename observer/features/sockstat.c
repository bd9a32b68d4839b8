// SPDX-License-Identifier: MIT
/* The sockstat feature: the census read -> reconciled live counts -> port pressure and its
 * forecast; and when the census walks next (the read phase's plan, sources/tick_reader.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "loadlens/parse.h"
#include "features/feature.h"
#include "tick/snapshots.h"
#include "features/sockstat.h"
#include "tick/record.h"
#include "rules/rules.h"

struct obs_sockstat {
	const struct obs_census_ctx *census; /* its mechanism, for the "observing" line */
	struct obs_sockstat_snap snap;
	/* census reconciliation: census[s] - (in[s] - out[s]) at the last census */
	int64_t base[OBS_TCP_STATES];
	/* how far base can be off: twice the moves while its census ran (0: exact) */
	uint64_t base_err[OBS_TCP_STATES];
	bool have_base;
	double census_next_t; /* no census before this run time (s): 1% of a CPU at most */
	double census_t;      /* the last census' run time (s) */
	/* port growth: in-use counts of the top group at recent censuses */
	double port_t[OBS_SOCKSTAT_HIST];
	uint32_t port_used[OBS_SOCKSTAT_HIST];
	unsigned int nport;
	uint64_t cw_hist[OBS_SOCKSTAT_HIST];
	double cw_t[OBS_SOCKSTAT_HIST];
	unsigned int ncw;
	/* the run */
	uint64_t census_ok, census_failed, census_deferred;
	double census_ms_max;
	uint64_t state_max[OBS_TCP_STATES]; /* largest census count per state */
	uint64_t tw_entries;		    /* total TIME_WAIT entries seen */
	double tw_rate_max;
	uint64_t close_wait_last;
	struct obs_port_pressure ports_peak; /* the most pressed group, at its peak */
	double ports_first_forecast_t;	     /* first forecast of port exhaustion; < 0 none */
	double ports_full_t;		     /* first census at 100%; < 0 never */
	uint64_t reconcile_abs_max; /* largest |live - census| past the error bound */
	uint64_t live_err_max;	    /* largest error bound of a live count */
	uint64_t cw_untracked_max;  /* CLOSE_WAIT sockets past the census' age table */
	uint64_t unacc_untracked_max; /* never-accepted CLOSE_WAIT children past their table */
	uint64_t listen_untracked_max; /* target listeners past the census' list */
};

struct obs_sockstat *obs_sockstat_new(struct obs_census_ctx *census)
{
	struct obs_sockstat *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return NULL;
	ss->census = census;
	ss->snap.census_on = census != NULL;
	ss->ports_first_forecast_t = ss->ports_full_t = -1;
	return ss;
}

static double slope(const double *t, const double *y, unsigned int n)
{
	return obs_rule_slope(t, y, n < OBS_SOCKSTAT_HIST ? n : OBS_SOCKSTAT_HIST);
}

/* The states a census reconciles: TIME_WAIT and LISTEN are no states of the tracepoint. */
static bool reported(unsigned int s)
{
	return obs_census_tcp_state_names[s] && s != 7 && s != 12;
}

/* The live counts from the state moves (census base + moves since), and their error bound. */
static void live_counts(struct obs_sockstat *ss, const uint64_t *moves,
			   struct obs_record *iv)
{
	struct obs_sockstat_snap *sn = &ss->snap;
	struct obs_record_state *st;
	size_t i;
	unsigned int s;

	if (!ss->have_base)
		return;
	iv->have_live = true;
	iv->live_err = 0;
	for (s = 1; s < OBS_TCP_STATES; s++) {
		if (!reported(s) || s == OBS_TCP_TIME_WAIT || s == OBS_TCP_LISTEN)
			continue;
		for (i = 0; i < iv->nstates && iv->states[i].name != obs_census_tcp_state_names[s];
		     i++)
			;
		st = &iv->states[i];
		if (i == iv->nstates) { /* a deferred census: the live counts alone */
			iv->nstates++;
			st->name = obs_census_tcp_state_names[s];
			st->live = true;
			st->est = ss->base[s] + (int64_t)moves[s] - (int64_t)moves[OBS_TCP_STATES + s];
			st->err = ss->base_err[s];
		}
		if (st->err > iv->live_err)
			iv->live_err = st->err;
		sn->live[s] = st->est;
	}
	sn->live_err = iv->live_err;
	sn->live_ok = true;
	if (iv->live_err > ss->live_err_max)
		ss->live_err_max = iv->live_err;
}

/* The CLOSE_WAIT trend and the most used (src, dst:port) group against the range. */
static void trends(struct obs_sockstat *ss, double t)
{
	struct obs_port_pressure *pp = &ss->snap.ports;
	const struct obs_census *cs = &ss->snap.cs;
	double y[OBS_SOCKSTAT_HIST];
	unsigned int s, k;

	k = ss->ncw % OBS_SOCKSTAT_HIST;
	ss->cw_t[k] = t;
	ss->cw_hist[k] = cs->state[OBS_TCP_CLOSE_WAIT];
	ss->ncw++;
	ss->close_wait_last = cs->state[OBS_TCP_CLOSE_WAIT];

	pp->range = obs_census_range(cs);
	if (!cs->ntop || !pp->range)
		return;
	pp->g = cs->top[0];
	pp->pct = 100.0 * pp->g.in_use / pp->range;
	if (pp->pct > 100.0)
		pp->pct = 100.0;
	k = ss->nport % OBS_SOCKSTAT_HIST;
	ss->port_t[k] = t;
	ss->port_used[k] = pp->g.in_use;
	ss->nport++;
	for (s = 0; s < OBS_SOCKSTAT_HIST && s < ss->nport; s++)
		y[s] = ss->port_used[s];
	pp->rate = slope(ss->port_t, y, ss->nport);
	if (pp->g.in_use < pp->range && pp->rate > 0.5 && ss->nport >= 3) {
		pp->tte = (pp->range - pp->g.in_use) / pp->rate;
		if (pp->tte > OBS_RULE_HORIZON_S)
			pp->tte = -1;
	}
	if (pp->tte >= 0 && ss->ports_first_forecast_t < 0)
		ss->ports_first_forecast_t = t;
	if (pp->g.in_use >= pp->range && ss->ports_full_t < 0)
		ss->ports_full_t = t;
	if (pp->g.in_use >= ss->ports_peak.g.in_use)
		ss->ports_peak = *pp;
}

/* Census, reconciled against the live counts from state moves; TIME_WAIT and port pressure. */
static void census_take(struct obs_sockstat *ss, const struct obs_reads *rd, double t,
		      struct obs_record *iv)
{
	struct obs_sockstat_snap *sn = &ss->snap;
	struct obs_census *cs = &sn->cs;
	struct obs_record_state *st;
	uint64_t absmax = 0;
	const uint64_t *m0 = rd->moves_before, *m1 = rd->moves_after;
	uint64_t during;
	unsigned int s;
	int64_t est, moved, d;

	sn->fresh = false;
	sn->live_ok = false;
	if (rd->census == OBS_READS_CENSUS_DEFERRED) {
		ss->census_deferred++;
		iv->census = OBS_RECORD_CENSUS_DEFERRED;
		live_counts(ss, rd->sockets.moves, iv);
		return;
	}
	memset(&sn->ports, 0, sizeof(sn->ports));
	sn->ports.tte = -1;
	if (sn->census_on)
		*cs = rd->walk;
	if (rd->census == OBS_READS_CENSUS_FAILED) {
		ss->census_failed += sn->census_on;
		iv->census = OBS_RECORD_CENSUS_NONE;
		return;
	}
	/* sock_diag resumes each chunk of the dump at a (bucket, position): a socket hashed or
	 * unhashed meanwhile shifts the others of its bucket, whatever their state, so one can be
	 * counted twice or missed. Every move during the walk (into a state: hashing, the
	 * TIME_WAIT that replaces a socket) bounds each state's error, twice over. */
	for (during = 0, s = 0; s < OBS_TCP_STATES; s++)
		during += 2 * (m1[s] - m0[s]);
	ss->census_ok++;
	sn->have_census = true;
	iv->census = OBS_RECORD_CENSUS_TAKEN;
	iv->have_live = ss->have_base;
	sn->fresh = true;
	ss->census_t = t;
	if (cs->close_wait_untracked > ss->cw_untracked_max)
		ss->cw_untracked_max = cs->close_wait_untracked;
	if (cs->unaccepted_untracked > ss->unacc_untracked_max)
		ss->unacc_untracked_max = cs->unaccepted_untracked;
	if (cs->listeners_untracked > ss->listen_untracked_max)
		ss->listen_untracked_max = cs->listeners_untracked;
	ss->census_next_t = t + cs->took_ms * 100 / 1000.0 - 0.001;
	/* sockets stuck in CLOSE_WAIT or FIN_WAIT2 are told by a second look: 10% of a CPU */
	if (cs->aging_young >= 10)
		ss->census_next_t = t + cs->took_ms * 10 / 1000.0 - 0.001;
	if (cs->took_ms > ss->census_ms_max)
		ss->census_ms_max = cs->took_ms;
	for (s = 1; s < OBS_TCP_STATES; s++) {
		if (!reported(s))
			continue;
		st = &iv->states[iv->nstates++];
		st->name = obs_census_tcp_state_names[s];
		st->census = cs->state[s];
		if (cs->state[s] > ss->state_max[s])
			ss->state_max[s] = cs->state[s];
		if (s == OBS_TCP_TIME_WAIT || s == OBS_TCP_LISTEN)
			continue; /* TIME_WAIT is not a state in the tracepoint */
		moved = (int64_t)m1[s] - (int64_t)m1[OBS_TCP_STATES + s];
		if (ss->have_base) {
			est = ss->base[s] + moved;
			d = est - (int64_t)cs->state[s];
			st->live = true;
			st->est = est;
			st->diff = d;
			st->err = ss->base_err[s] + during;
			/* within what the moves during the censuses allow: the live count keeps
			 * the tighter base; past it, moves were missed: rebased */
			if ((uint64_t)(d < 0 ? -d : d) > st->err) {
				if ((uint64_t)(d < 0 ? -d : d) - st->err > absmax)
					absmax = (uint64_t)(d < 0 ? -d : d) - st->err;
			} else if (ss->base_err[s] <= during) {
				continue;
			}
		}
		ss->base[s] = (int64_t)cs->state[s] - moved;
		ss->base_err[s] = during;
	}
	if (ss->have_base && absmax > ss->reconcile_abs_max)
		ss->reconcile_abs_max = absmax;
	if (iv->have_live)
		live_counts(ss, m1, iv);
	ss->have_base = true;
	iv->sockets = cs->sockets;
	iv->took_ms = cs->took_ms;
	trends(ss, t);
}

static void record_ports(const struct obs_sockstat_snap *sn, struct obs_record *iv)
{
	const struct obs_port_pressure *pp = &sn->ports;

	if (!pp->range)
		return;
	iv->ports.have_range = true;
	iv->ports.lo = sn->cs.port_lo;
	iv->ports.hi = sn->cs.port_hi;
	iv->ports.size = pp->range;
	if (sn->cs.ntop) {
		iv->ports.have_group = true;
		obs_census_port_group_text(&pp->g, iv->ports.group, sizeof(iv->ports.group));
		iv->ports.in_use = pp->g.in_use;
		iv->ports.time_wait = pp->g.time_wait;
	}
	iv->ports.pct = pp->pct;
	iv->ports.rate = pp->rate;
	iv->ports.tte = pp->tte;
	iv->ports.groups = sn->cs.ngroups;
}

static bool loopback(uint8_t family, const uint8_t *a)
{
	static const uint8_t v6lo[16] = {[15] = 1};
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};

	if (family == AF_INET)
		return a[0] == 127;
	return !memcmp(a, v6lo, 16) || (!memcmp(a, mapped, 12) && a[12] == 127);
}

/* The rules' part: the census (a fresh one), or the live count of held sockets. */
static void fill_snap(const struct obs_sockstat_snap *sn, const struct obs_sockets_stats *cd,
		    struct obs_snap *s)
{
	const struct obs_census *cs = &sn->cs;
	struct obs_snap_group *g;
	size_t i;

	s->tw_entries = cd->ctr[OBS_CTR_TW_ENTRIES];
	s->listen_target_full += sn->fresh && cs->listen_backlog &&
				 cs->listen_qlen_max >= cs->listen_backlog;
	if (cs->listen_backlog) {
		s->listen_qlen_max = cs->listen_qlen_max;
		s->listen_backlog = cs->listen_backlog;
	}
	s->tw_reuse = cs->tw_reuse;
	s->fin_timeout_s = cs->fin_timeout_s;
	s->max_tw_buckets = cs->max_tw_buckets;
	if (!s->listen_port) /* the listen pass of this tick names it first */
		s->listen_port = cs->listen_port;
	for (i = 0; i < cs->nno_listener && i < OBS_SNAP_NOTES; i++)
		s->no_listener[s->nno_listener++] = cs->no_listener[i];
	if (!sn->fresh) {
		if (sn->live_ok && !sn->live_err) {
			s->held_live = true;
			s->held = (uint64_t)(sn->live[1] + sn->live[OBS_TCP_CLOSE_WAIT]);
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
		g->loopback = loopback(cs->top[i].family, cs->top[i].saddr) &&
			      loopback(cs->top[i].family, cs->top[i].daddr);
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

/*
 * When the read phase walks next. A census walks every socket of the netns (about 1 us each):
 * they are spaced to take at most 1% of a CPU, and the live counts carry on from the state moves
 * meanwhile; when those moves show sockets piling up in CLOSE_WAIT, 10% of a CPU, so that a leak
 * is told sooner. connect() running out of ports walks within a second: the census names the
 * group that did (a walk deferred for its cost would leave the failures unplaced).
 */
static void plan(const struct obs_sockstat *ss, struct obs_census_plan *p)
{
	const struct obs_census *cs = &ss->snap.cs;

	p->next_t = ss->census_next_t;
	p->cw_watch = ss->snap.census_on && ss->have_base;
	p->cw_base = ss->base[OBS_TCP_CLOSE_WAIT];
	p->cw_from_t = ss->census_t + cs->took_ms * 10 / 1000.0;
	p->noport_from_t = cs->ntop ? ss->census_t + 1.0 : 0;
}

static int tick(void *self, struct obs_tick *tk)
{
	struct obs_sockstat *ss = self;
	struct obs_sockstat_snap *sn = &ss->snap;
	const struct obs_sockets_stats *cd = &tk->conn->delta;

	ss->tw_entries += cd->ctr[OBS_CTR_TW_ENTRIES];
	sn->tw_rate = tk->dt > 0 ? cd->ctr[OBS_CTR_TW_ENTRIES] / tk->dt : 0;
	if (sn->tw_rate > ss->tw_rate_max)
		ss->tw_rate_max = sn->tw_rate;
	census_take(ss, tk->reads, tk->t, tk->rec);
	plan(ss, tk->census_plan);
	tk->rec->tw_per_s = sn->tw_rate;
	record_ports(sn, tk->rec);
	if (tk->snap)
		fill_snap(sn, cd, tk->snap);
	tk->sockstat = sn;
	return 0;
}

static const char *attached(const void *self)
{
	const struct obs_sockstat *ss = self;

	if (!ss->census)
		return NULL;
	return strcmp(obs_census_mechanism(ss->census), "bpf_iter") ? "sock_diag census"
								     : "tcp iterator census";
}

static int summary(void *self, const struct obs_tick *tk, FILE *out)
{
	const struct obs_sockstat *r = self;

	(void)tk;
	fprintf(out, "  census             %12llu  (sock_diag, %llu failed, %llu deferred to keep it under "
		     "1%% of a CPU, slowest %.1f ms)\n",
		(unsigned long long)r->census_ok, (unsigned long long)r->census_failed,
		(unsigned long long)r->census_deferred, r->census_ms_max);
	fprintf(out, "  closed after FIN   %12llu  (FIN_WAIT2/CLOSING -> CLOSE: into TIME_WAIT, or "
		     "FIN_WAIT2 orphans; peak %.0f/s; census peak TIME_WAIT %llu, FIN_WAIT2 %llu)\n",
		(unsigned long long)r->tw_entries, r->tw_rate_max,
		(unsigned long long)r->state_max[OBS_TCP_TIME_WAIT],
		(unsigned long long)r->state_max[OBS_TCP_FIN_WAIT2]);
	if (r->unacc_untracked_max || r->listen_untracked_max)
		fprintf(out, "  census tables      %llu never-accepted CLOSE_WAIT children past the "
			     "table of %d (their FIN_WAIT2 peers not told apart), %llu listeners past "
			     "%d (their owners not found)\n",
			(unsigned long long)r->unacc_untracked_max, OBS_SOCK_AGE_UNACC,
			(unsigned long long)r->listen_untracked_max, OBS_CENSUS_LISTENERS);
	if (r->cw_untracked_max)
		fprintf(out, "  CLOSE_WAIT unaged %12llu  (past the census' table of %d: not aged, so "
			     "no leak judged on them)\n", (unsigned long long)r->cw_untracked_max,
			OBS_SOCK_AGE_TRACK);
	if (r->snap.cs.groups_capped)
		fprintf(out, "  port groups        %12zu  (the census' table was full: groups past it "
			     "were not counted)\n", r->snap.cs.ngroups);
	return 0;
}

static int json_add(void *self, const struct obs_tick *tk, json_t *root)
{
	const struct obs_sockstat *r = self;
	json_t *o = obs_feature_forensics_json(root), *st = json_object(), *pp = json_object();
	char grp[128];
	unsigned int s;

	(void)tk;
	if (!o || !st || !pp) {
		json_decref(st);
		json_decref(pp);
		return -ENOMEM;
	}
	for (s = 1; s < OBS_TCP_STATES; s++)
		if (reported(s))
			json_object_set_new(st, obs_census_tcp_state_names[s],
					    json_integer((json_int_t)r->state_max[s]));
	json_object_set_new(o, "census_max", st);
	json_object_set_new(o, "censuses", json_integer((json_int_t)r->census_ok));
	json_object_set_new(o, "census_failed", json_integer((json_int_t)r->census_failed));
	json_object_set_new(o, "census_deferred", json_integer((json_int_t)r->census_deferred));
	json_object_set_new(o, "reconcile_max_diff", json_integer((json_int_t)r->reconcile_abs_max));
	json_object_set_new(o, "live_error_max", json_integer((json_int_t)r->live_err_max));
	json_object_set_new(o, "time_wait_entries", json_integer((json_int_t)r->tw_entries));
	json_object_set_new(o, "time_wait_rate_max", json_real(r->tw_rate_max));
	json_object_set_new(o, "close_wait_last", json_integer((json_int_t)r->close_wait_last));
	if (r->ports_peak.range) {
		json_object_set_new(pp, "group",
				    json_string(obs_census_port_group_text(&r->ports_peak.g, grp,
								    sizeof(grp))));
		json_object_set_new(pp, "in_use", json_integer(r->ports_peak.g.in_use));
		json_object_set_new(pp, "time_wait", json_integer(r->ports_peak.g.time_wait));
		json_object_set_new(pp, "range_size", json_integer(r->ports_peak.range));
		json_object_set_new(pp, "pressure_pct", json_real(r->ports_peak.pct));
		json_object_set_new(pp, "full_at_s", r->ports_full_t >= 0 ?
				    json_real(r->ports_full_t) : json_null());
		json_object_set_new(pp, "first_forecast_at_s", r->ports_first_forecast_t >= 0 ?
				    json_real(r->ports_first_forecast_t) : json_null());
	}
	json_object_set_new(o, "ports_peak", pp);
	json_object_set_new(o, "port_groups_capped", json_boolean(r->snap.cs.groups_capped));
	json_object_set_new(o, "close_wait_unaged_max", json_integer((json_int_t)r->cw_untracked_max));
	/* the census' other bounded tables: what did not fit, at the worst census */
	json_object_set_new(o, "unaccepted_untracked_max",
			    json_integer((json_int_t)r->unacc_untracked_max));
	json_object_set_new(o, "listeners_untracked_max",
			    json_integer((json_int_t)r->listen_untracked_max));
	return 0;
}

const struct obs_feature obs_sockstat_ops = {
	.name = "sockstat", .attached = attached, .tick = tick, .finish = tick,
	.summary = summary, .json = json_add,
};
