// SPDX-License-Identifier: MIT
/*
 * The failures feature (features/feature.h): each interval, the failures object's counters
 * (kernel/failures_object.c), as the read phase read them (sources/tick_reader.h) -> delta ->
 * this interval's failures by call, and its totals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "features/failures.h"
#include "features/feature.h"
#include "tick/snapshots.h"
#include "tick/record.h"

/* The failures feature: the read -> delta -> this interval's failures by call, and its totals. */
struct obs_failures {
	struct obs_fail *fail;
	struct obs_failures_snap snap;
	char attached[160];
};

struct obs_failures *obs_failures_new(struct obs_fail *fail)
{
	struct obs_failures *fs = calloc(1, sizeof(*fs));
	const struct obs_fail_features *ff = obs_fail_features(fail);

	if (!fs)
		return NULL;
	fs->fail = fail;
	snprintf(fs->attached, sizeof(fs->attached), "syscall failures [syscall tier]%s%s%s%s",
		 ff->drops ? ", kfree_skb" : "", ff->synack ? ", tcp_retransmit_synack" : "",
		 ff->resets ? ", tcp resets" : "", ff->lifecycle ? ", process exits" : "");
	return fs;
}

/* The call that failed most with class f in sys. */
static const char *top_sys(const uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX], unsigned int f)
{
	unsigned int k, best = 0;

	for (k = 0; k < OBS_SYS_MAX; k++)
		if (sys[k][f] > sys[best][f])
			best = k;
	if (!sys[best][f])
		return NULL;
	return best == OBS_SYS_ACCEPT4 ? "accept4" : obs_fail_sys_name(best);
}

static void fill_record(const struct obs_failures_snap *s, double dt, struct obs_record *iv)
{
	unsigned int k, f;

	for (f = 0; f < OBS_FAIL_MAX; f++)
		for (k = 0; k < OBS_SYS_MAX; k++)
			if (s->sys[k][f])
				iv->fails[iv->nfails++] = (struct obs_record_fail){
					.fail = obs_fail_name(f), .sys = obs_fail_sys_name(k),
					.n = s->sys[k][f]};
	iv->failure_rate = dt > 0 ? s->fails / dt : 0;
	iv->synack_retransmits = s->delta.ctrs[OBS_FAILURES_CTR_SYNACK_RETRANS];
	iv->resets_sent = s->delta.ctrs[OBS_FAILURES_CTR_RST_SENT];
	iv->resets_received = s->delta.ctrs[OBS_FAILURES_CTR_RST_RECV];
	iv->lost_events = s->delta.ctrs[OBS_FAILURES_CTR_RB_LOST] +
			  s->delta.ctrs[OBS_FAILURES_CTR_ERRPROC_FULL] + s->delta.missed;
}

static void fill_snap(const struct obs_failures_snap *fs, struct obs_snap *s)
{
	unsigned int f, k;

	for (f = 0; f < OBS_FAIL_MAX && f < OBS_SNAP_FAILS; f++) {
		for (k = 0; k < OBS_SYS_MAX; k++) {
			s->fails[f] += fs->sys[k][f];
			s->fails_total[f] += fs->total[k][f];
		}
		s->fails_sys[f] = top_sys(fs->sys, f);
	}
	s->listen_target_full += fs->delta.ctrs[OBS_FAILURES_CTR_SYNACK_RETRANS];
	s->targets_full = fs->cur.ctrs[OBS_FAILURES_CTR_TARGETS_FULL];
}

static int tick(void *self, struct obs_tick *tk)
{
	struct obs_failures *fs = self;
	struct obs_failures_snap *s = &fs->snap;
	const struct obs_sockets_stats *cd = &tk->conn->delta;
	struct obs_fail_stats prev = s->cur;
	uint64_t ff[OBS_FAIL_MAX] = {};
	unsigned int k, f;
	int lo;

	s->cur = tk->reads->fail;
	if (tk->reads->fail_err)
		return tk->reads->fail_err;
	obs_fail_stats_sub(&s->delta, &s->cur, &prev);
	memcpy(s->sys, s->delta.sys, sizeof(s->sys));
	s->sys[OBS_SYS_ACCEPT4][OBS_FAIL_EMFILE] = cd->errnos[24];
	s->sys[OBS_SYS_ACCEPT4][OBS_FAIL_ENFILE] = cd->errnos[23];
	s->sys[OBS_SYS_CONNECT][OBS_FAIL_EADDRNOTAVAIL] += cd->ctr[OBS_CTR_CONNECT_NOPORT];
	s->fails = 0;
	for (k = 0; k < OBS_SYS_MAX; k++)
		for (f = 0; f < OBS_FAIL_MAX; f++) {
			s->total[k][f] += s->sys[k][f];
			ff[f] += s->sys[k][f];
			s->fails += s->sys[k][f];
		}
	for (f = 0; f < OBS_FAIL_MAX; f++)
		if (tk->dt > 0 && ff[f] / tk->dt > s->rate_max[f])
			s->rate_max[f] = ff[f] / tk->dt;
	/* the drop reason counts what ListenOverflows may miss (another namespace's view) */
	lo = obs_fail_drop_reason(fs->fail, "TCP_LISTEN_OVERFLOW");
	s->have_listen_overflow_drops = lo >= 0;
	if (lo >= 0) {
		s->listen_overflow_drops = s->delta.drops[lo];
		s->listen_overflow_drops_total = s->cur.drops[lo];
	}
	s->lost = s->cur.ctrs[OBS_FAILURES_CTR_RB_LOST] + s->cur.ctrs[OBS_FAILURES_CTR_ERRPROC_FULL] +
		  s->cur.missed;
	s->targets_full_pid = tk->reads->targets_full_pid;
	if (tk->rec)
		fill_record(s, tk->dt, tk->rec);
	if (tk->snap)
		fill_snap(s, tk->snap);
	tk->fail = s;
	return 0;
}

static const char *attached(const void *self)
{
	return ((const struct obs_failures *)self)->attached;
}

/* "failures", "tcp", "targets_full", "lost" and "lost_events" of the "forensics" object. */
static int json_add(void *self, const struct obs_tick *tk, json_t *root)
{
	const struct obs_failures_snap *s = &((struct obs_failures *)self)->snap;
	uint64_t ev_lost = tk->procs ? tk->procs->ev_lost : 0;
	json_t *o = obs_feature_forensics_json(root), *fails = json_object(), *by;
	unsigned int i, k;
	uint64_t tot;

	if (!o || !fails) {
		json_decref(fails);
		return -ENOMEM;
	}
	for (i = 0; i < OBS_FAIL_MAX; i++) {
		by = json_object();
		for (k = 0, tot = 0; k < OBS_SYS_MAX; k++) {
			if (!s->total[k][i])
				continue;
			tot += s->total[k][i];
			json_object_set_new(by,
					    k == OBS_SYS_ACCEPT4 ? "accept" : obs_fail_sys_name(k),
					    json_integer((json_int_t)s->total[k][i]));
		}
		json_object_set_new(by, "total", json_integer((json_int_t)tot));
		json_object_set_new(by, "max_per_s", json_real(s->rate_max[i]));
		json_object_set_new(fails, obs_fail_name(i), by);
	}
	json_object_set_new(o, "failures", fails);
	json_object_set_new(o, "tcp", json_pack("{s:I, s:I, s:I}",
		"synack_retransmits", (json_int_t)s->cur.ctrs[OBS_FAILURES_CTR_SYNACK_RETRANS],
		"resets_sent", (json_int_t)s->cur.ctrs[OBS_FAILURES_CTR_RST_SENT],
		"resets_received", (json_int_t)s->cur.ctrs[OBS_FAILURES_CTR_RST_RECV]));
	json_object_set_new(o, "targets_full", json_pack("{s:I, s:I}",
		"count", (json_int_t)s->cur.ctrs[OBS_FAILURES_CTR_TARGETS_FULL],
		"first_pid", (json_int_t)s->targets_full_pid));
	json_object_set_new(o, "lost_events", json_integer((json_int_t)(s->lost + ev_lost)));
	json_object_set_new(o, "lost", json_pack("{s:I, s:I, s:I, s:I}",
		"ringbuf_full", (json_int_t)s->cur.ctrs[OBS_FAILURES_CTR_RB_LOST],
		"errprocs_full", (json_int_t)s->cur.ctrs[OBS_FAILURES_CTR_ERRPROC_FULL],
		"skipped_runs", (json_int_t)s->cur.missed,
		"events_past_interval_list", (json_int_t)ev_lost));
	return 0;
}

const struct obs_feature obs_failures_ops = {
	.name = "failures", .attached = attached, .tick = tick, .finish = tick,
	.json = json_add,
};
