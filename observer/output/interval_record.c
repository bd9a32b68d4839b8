// SPDX-License-Identifier: MIT
/* The NDJSON interval record: a pure function of the interval's snapshot. */
#include <stdio.h>
#include <string.h>
#include "loadlens/grpc_status.h"
#include "output/interval_record.h"

json_t *obs_record_procs_json(const struct obs_proc *procs, size_t n)
{
	json_t *a = json_array(), *o;
	const struct obs_proc *p;
	size_t i;

	for (i = 0; a && i < n; i++) {
		p = &procs[i];
		o = json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:f, s:o, s:b}", "pid", (int)p->fd.pid,
			      "comm", p->fd.comm, "open", (json_int_t)p->fd.open, "peak",
			      (json_int_t)p->fd.peak, "soft_limit", (json_int_t)p->fd.soft,
			      "hard_limit", (json_int_t)p->fd.hard, "growth_per_s", p->rate,
			      "exhausted_in_s", p->tte >= 0 ? json_real(p->tte) : json_null(),
			      "exited", p->exited);
		if (!o) {
			json_decref(a);
			return NULL;
		}
		json_object_set_new(o, "first_forecast_at_s", p->first_forecast_t >= 0 ?
				    json_real(p->first_forecast_t) : json_null());
		json_object_set_new(o, "first_forecast_s", p->first_forecast_t >= 0 ?
				    json_real(p->first_forecast_tte) : json_null());
		json_object_set_new(o, "first_emfile_at_s", p->first_fail_t >= 0 ?
				    json_real(p->first_fail_t) : json_null());
		json_object_set_new(o, "emfile", json_integer((json_int_t)p->fails[0]));
		if (p->fd.err)
			json_object_set_new(o, "unreadable", json_string(strerror(p->fd.err)));
		json_array_append_new(a, o);
	}
	return a;
}

static void census(json_t *rec, const struct obs_record *iv)
{
	json_t *cs, *live, *diff;
	const struct obs_record_state *st;
	size_t i;

	if (iv->census != OBS_RECORD_CENSUS_TAKEN) {
		json_object_set_new(rec, "census", json_null());
		if (iv->census != OBS_RECORD_CENSUS_DEFERRED)
			return;
		json_object_set_new(rec, "census_deferred", json_true());
		/* the counts carry on from the state moves: exact when live_error is 0 */
		live = iv->have_live ? json_object() : json_null();
		for (i = 0; i < iv->nstates && iv->have_live; i++)
			json_object_set_new(live, iv->states[i].name,
					    json_integer((json_int_t)iv->states[i].est));
		json_object_set_new(rec, "live", live);
		json_object_set_new(rec, "live_error", iv->have_live ? json_integer((json_int_t)
					iv->live_err) : json_null());
		return;
	}
	cs = json_object();
	live = iv->have_live ? json_object() : json_null();
	diff = iv->have_live ? json_object() : json_null();
	for (i = 0; i < iv->nstates; i++) {
		st = &iv->states[i];
		json_object_set_new(cs, st->name, json_integer((json_int_t)st->census));
		if (!st->live || !iv->have_live)
			continue;
		json_object_set_new(live, st->name, json_integer((json_int_t)st->est));
		json_object_set_new(diff, st->name, json_integer((json_int_t)st->diff));
	}
	json_object_set_new(cs, "sockets", json_integer((json_int_t)iv->sockets));
	json_object_set_new(cs, "took_ms", json_real(iv->took_ms));
	json_object_set_new(rec, "census", cs);
	json_object_set_new(rec, "live", live);
	json_object_set_new(rec, "reconcile_diff", diff);
	json_object_set_new(rec, "live_error", iv->have_live ? json_integer((json_int_t)iv->live_err)
							     : json_null());
}

static json_t *ports(const struct obs_record *iv)
{
	json_t *o = json_object();

	if (!o || !iv->ports.have_range)
		return o;
	json_object_set_new(o, "range", json_pack("[i,i]", (int)iv->ports.lo, (int)iv->ports.hi));
	json_object_set_new(o, "size", json_integer(iv->ports.size));
	if (iv->ports.have_group) {
		json_object_set_new(o, "group", json_string(iv->ports.group));
		json_object_set_new(o, "in_use", json_integer(iv->ports.in_use));
		json_object_set_new(o, "time_wait", json_integer(iv->ports.time_wait));
	}
	json_object_set_new(o, "pressure_pct", json_real(iv->ports.pct));
	json_object_set_new(o, "growth_per_s", json_real(iv->ports.rate));
	json_object_set_new(o, "exhausted_in_s", iv->ports.tte >= 0 ? json_real(iv->ports.tte) :
				json_null());
	json_object_set_new(o, "groups", json_integer((json_int_t)iv->ports.groups));
	return o;
}

/* {fail: {sys: n}}: the entries come grouped by failure class */
static json_t *fails(const struct obs_record *iv)
{
	json_t *o = json_object(), *by = NULL;
	size_t i;

	for (i = 0; o && i < iv->nfails; i++) {
		if (!i || strcmp(iv->fails[i].fail, iv->fails[i - 1].fail)) {
			by = json_object();
			json_object_set_new(o, iv->fails[i].fail, by);
		}
		json_object_set_new(by, iv->fails[i].sys, json_integer((json_int_t)iv->fails[i].n));
	}
	return o;
}

/* [{"port": P, "status": {"404": n, "other": n}, "grpc_status": {"OK": n}, "grpc_no_status": n}]:
 * the ports with statuses this interval */
static json_t *statuses(const struct obs_snap *s)
{
	json_t *a = json_array(), *o, *st, *g;
	const struct obs_snap_status *p;
	char code[8];
	size_t i, k;

	for (i = 0; a && i < s->nstatus; i++) {
		p = &s->status[i];
		st = json_object();
		g = json_object();
		for (k = 0; st && k < p->ncodes; k++) {
			snprintf(code, sizeof(code), "%u", p->code[k].code);
			json_object_set_new(st, code, json_integer((json_int_t)p->code[k].n));
		}
		if (st && (p->more || p->cls[0]))
			json_object_set_new(st, "other", json_integer((json_int_t)(p->more + p->cls[0])));
		for (k = 0; g && k < OBS_SNAP_GRPC; k++)
			if (p->grpc[k])
				json_object_set_new(g, ll_grpc_status_name((unsigned)k),
						    json_integer((json_int_t)p->grpc[k]));
		o = json_pack("{s:i, s:o*, s:o*, s:I}", "port", (int)p->port, "status", st,
			      "grpc_status", g, "grpc_no_status", (json_int_t)p->grpc_none);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *obs_record_json(const struct obs_record *iv)
{
	const struct obs_snap *s = iv->snap;
	json_t *rec = json_object();

	if (!rec)
		return NULL;
	json_object_set_new(rec, "type", json_string("interval"));
	json_object_set_new(rec, "time", json_real(iv->time));
	json_object_set_new(rec, "t", json_real(s->t));
	json_object_set_new(rec, "dt", json_real(s->dt));
	json_object_set_new(rec, "accepted", json_integer((json_int_t)s->accepted));
	json_object_set_new(rec, "accept_rate", json_real(s->dt > 0 ? s->accepted / s->dt : 0));
	census(rec, iv);
	json_object_set_new(rec, "time_wait", json_pack("{s:I, s:f}", "entries",
							(json_int_t)s->tw_entries, "per_s",
							iv->tw_per_s));
	json_object_set_new(rec, "ports", ports(iv));
	json_object_set_new(rec, "failures", fails(iv));
	json_object_set_new(rec, "failure_rate", json_real(iv->failure_rate));
	json_object_set_new(rec, "fds", obs_record_procs_json(iv->procs, iv->nprocs));
	if (s->cpu_on)
		json_object_set_new(rec, "cpu_wait", json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:I}",
							       "processes", (int)s->cpu_procs,
							       "cpus", (int)s->cpu_cpus,
							       "running", s->cpu_running,
							       "waiting", s->cpu_waiting,
							       "lost", s->cpu_lost,
							       "busy", s->cpu_busy,
							       "unread", (json_int_t)s->cpu_unread));
	if (s->have_files)
		json_object_set_new(rec, "system_files", json_pack("{s:I, s:I}", "open",
								   (json_int_t)s->file_nr, "max",
								   (json_int_t)s->file_max));
	if (iv->have_listen)
		json_object_set_new(rec, "listen", json_pack("{s:I, s:I, s:I, s:I, s:I}",
			"overflows", (json_int_t)iv->overflows, "drops", (json_int_t)iv->drops,
			"reqq_full_drops", (json_int_t)iv->reqq_full_drops,
			"queue_max", (json_int_t)iv->queue_max, "backlog", (json_int_t)iv->backlog));
	json_object_set_new(rec, "tcp", json_pack("{s:I, s:I, s:I}",
		"synack_retransmits", (json_int_t)iv->synack_retransmits,
		"resets_sent", (json_int_t)iv->resets_sent,
		"resets_received", (json_int_t)iv->resets_received));
	json_object_set_new(rec, "lost_events", json_integer((json_int_t)iv->lost_events));
	if (s->statuses_on)
		json_object_set_new(rec, "statuses", statuses(s));
	return rec;
}
