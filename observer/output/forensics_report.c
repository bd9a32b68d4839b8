// SPDX-License-Identifier: MIT
/* The forensics' summary: census and close counts in text, the "forensics" JSON object. The
 * findings are the rules' (observer/rules/), written by observer/output/findings_out.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "forensics_int.h"
#include "forensics_record.h"

extern const char *const obs_tcp_state_names[OBS_TCP_STATES];

int obs_fx_summary(struct obs_fx *fx, FILE *out)
{
	const struct obs_fx_run *r = &fx->run;
	fprintf(out, "  census             %12llu  (sock_diag, %llu failed, %llu deferred to keep it under "
		     "1%% of a CPU, slowest %.1f ms)\n",
		(unsigned long long)r->census_ok, (unsigned long long)r->census_failed,
		(unsigned long long)r->census_deferred, r->census_ms_max);
	fprintf(out, "  closed after FIN   %12llu  (FIN_WAIT2/CLOSING -> CLOSE: into TIME_WAIT, or "
		     "FIN_WAIT2 orphans; peak %.0f/s; census peak TIME_WAIT %llu, FIN_WAIT2 %llu)\n",
		(unsigned long long)r->tw_entries, r->tw_rate_max,
		(unsigned long long)r->state_max[OBS_TCP_TIME_WAIT],
		(unsigned long long)r->state_max[OBS_TCP_FIN_WAIT2]);
	if (fx->nunwatched || fx->unwatched_more)
		fprintf(out, "  processes watched  %12zu  (--max-procs %zu; %llu more not watched for "
			     "fds)\n", fx->nprocs, fx->max_procs,
			(unsigned long long)(fx->nunwatched + fx->unwatched_more));
	if (fx->children)
		fprintf(out, "  children           %12llu  (--children: %llu there at the start, %llu "
			     "forked since; %llu ended, %llu of them badly: a signal or a non-zero "
			     "status)\n", (unsigned long long)(r->children_found + r->children_forked),
			(unsigned long long)r->children_found, (unsigned long long)r->children_forked,
			(unsigned long long)r->children_exited,
			(unsigned long long)r->children_abnormal);
	if (r->unacc_untracked_max || r->listen_untracked_max)
		fprintf(out, "  census tables      %llu never-accepted CLOSE_WAIT children past the "
			     "table of %d (their FIN_WAIT2 peers not told apart), %llu listeners past "
			     "%d (their owners not found)\n",
			(unsigned long long)r->unacc_untracked_max, OBS_CENSUS_UNACC_SLOTS,
			(unsigned long long)r->listen_untracked_max, OBS_CENSUS_LISTENERS);
	if (r->cw_untracked_max)
		fprintf(out, "  CLOSE_WAIT unaged %12llu  (past the census' table of %d: not aged, so "
			     "no leak judged on them)\n", (unsigned long long)r->cw_untracked_max,
			OBS_CENSUS_CW_TRACK);
	if (fx->cs.groups_capped)
		fprintf(out, "  port groups        %12zu  (the census' table was full: groups past it "
			     "were not counted)\n", fx->cs.ngroups);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

int obs_fx_json_add(struct obs_fx *fx, json_t *root)
{
	const struct obs_fx_run *r = &fx->run;
	json_t *o = json_object(), *st = json_object(), *pp;
	uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX];
	unsigned int i, s;
	char grp[128];
	int err = 0;

	if (!o || !st) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (s = 1; s < OBS_TCP_STATES; s++)
		if (obs_tcp_state_names[s] && s != 7 && s != 12)
			json_object_set_new(st, obs_tcp_state_names[s],
					    json_integer((json_int_t)r->state_max[s]));
	memcpy(sys, r->fails, sizeof(sys));
	json_object_set_new(o, "census_max", st);
	st = NULL;
	json_object_set_new(o, "censuses", json_integer((json_int_t)r->census_ok));
	json_object_set_new(o, "census_failed", json_integer((json_int_t)r->census_failed));
	json_object_set_new(o, "census_deferred", json_integer((json_int_t)r->census_deferred));
	json_object_set_new(o, "reconcile_max_diff", json_integer((json_int_t)r->reconcile_abs_max));
	json_object_set_new(o, "live_error_max", json_integer((json_int_t)r->live_err_max));
	json_object_set_new(o, "time_wait_entries", json_integer((json_int_t)r->tw_entries));
	json_object_set_new(o, "time_wait_rate_max", json_real(r->tw_rate_max));
	json_object_set_new(o, "close_wait_last", json_integer((json_int_t)r->close_wait_last));
	pp = json_object();
	if (r->ports_peak.range) {
		json_object_set_new(pp, "group",
				    json_string(obs_port_group_text(&r->ports_peak.g, grp,
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
	json_object_set_new(o, "failures", json_object());
	for (i = 0; i < OBS_FAIL_MAX; i++) {
		json_t *by = json_object();
		uint64_t tot = 0;

		for (s = 0; s < OBS_SYS_MAX; s++) {
			if (!sys[s][i])
				continue;
			tot += sys[s][i];
			json_object_set_new(by, s == OBS_SYS_ACCEPT4 ? "accept" : obs_sys_name(s),
					    json_integer((json_int_t)sys[s][i]));
		}
		json_object_set_new(by, "total", json_integer((json_int_t)tot));
		json_object_set_new(by, "max_per_s", json_real(r->fail_rate_max[i]));
		json_object_set_new(json_object_get(o, "failures"), obs_fail_name(i), by);
	}
	json_object_set_new(o, "fds", obs_fx_fmt_procs(fx->procs, fx->nprocs));
	json_object_set_new(o, "system_files", json_pack("{s:I, s:I}", "open_max",
							 (json_int_t)r->file_nr_max, "max",
							 (json_int_t)r->file_max));
	json_object_set_new(o, "listen", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
		"overflows", (json_int_t)r->listen_overflows, "drops", (json_int_t)r->listen_drops,
		"reqq_full_drops", (json_int_t)r->reqq_full,
		"drop_reason_listen_overflow", (json_int_t)r->drop_listen_overflow,
		"queue_max", (json_int_t)fx->conn_last->ctr[OBS_CTR_QLEN_MAX],
		"backlog", (json_int_t)fx->conn_last->ctr[OBS_CTR_BACKLOG_MAX]));
	json_object_set_new(o, "tcp", json_pack("{s:I, s:I, s:I}",
		"synack_retransmits", (json_int_t)fx->fail_cur.fx[OBS_FX_SYNACK_RETRANS],
		"resets_sent", (json_int_t)fx->fail_cur.fx[OBS_FX_RST_SENT],
		"resets_received", (json_int_t)fx->fail_cur.fx[OBS_FX_RST_RECV]));
	json_object_set_new(o, "targets_full", json_pack("{s:I, s:I}",
		"count", (json_int_t)fx->fail_cur.fx[OBS_FX_TARGETS_FULL],
		"first_pid", (json_int_t)obs_fail_targets_full_pid(fx->fail)));
	json_object_set_new(o, "lost_events", json_integer((json_int_t)obs_fx_lost(fx)));
	json_object_set_new(o, "lost", json_pack("{s:I, s:I, s:I, s:I}",
		"ringbuf_full", (json_int_t)fx->fail_cur.fx[OBS_FX_RB_LOST],
		"errprocs_full", (json_int_t)fx->fail_cur.fx[OBS_FX_ERRPROC_FULL],
		"skipped_runs", (json_int_t)fx->fail_cur.missed,
		"events_past_interval_list", (json_int_t)fx->ev_lost));
	json_object_set_new(o, "processes", json_pack("{s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}}",
		"watched", (json_int_t)fx->nprocs, "max_procs", (json_int_t)fx->max_procs,
		"unwatched", (json_int_t)(fx->nunwatched + fx->unwatched_more),
		"ended", (json_int_t)fx->procs_ended,
		"children", "found_at_start", (json_int_t)r->children_found,
		"forked", (json_int_t)r->children_forked, "ended", (json_int_t)r->children_exited,
		"ended_badly", (json_int_t)r->children_abnormal));
	json_object_set_new(o, "port_groups_capped", json_boolean(fx->cs.groups_capped));
	json_object_set_new(o, "close_wait_unaged_max", json_integer((json_int_t)r->cw_untracked_max));
	/* the census' other bounded tables: what did not fit, at the worst census */
	json_object_set_new(o, "unaccepted_untracked_max",
			    json_integer((json_int_t)r->unacc_untracked_max));
	json_object_set_new(o, "listeners_untracked_max",
			    json_integer((json_int_t)r->listen_untracked_max));
	if (json_object_set_new(root, "forensics", o))
		err = -ENOMEM;
	o = NULL;
cleanup:
	json_decref(o);
	json_decref(st);
	return err;
}
