// SPDX-License-Identifier: MIT
/* The run's findings: rules over the snapshots each interval, the log, and the news said live. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "rules/findings_run.h"
#include "rules/findings_out.h"
#include "rules/findings_log.h"
#include "rules/rules.h"

struct obs_findings_run {
	struct obs_snap_hist hist;
	struct obs_findings now;
	struct obs_findings_log log;
	FILE *live;
	obs_findings_emit emit;
	void *emit_arg;
	bool filling; /* obs_findings_snap() handed out a snapshot not yet pushed */
};

struct obs_findings_run *obs_findings_run_new(FILE *live, obs_findings_emit emit, void *arg)
{
	struct obs_findings_run *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	obs_findings_log_init(&r->log);
	r->live = live;
	r->emit = emit;
	r->emit_arg = arg;
	return r;
}

void obs_findings_run_free(struct obs_findings_run *r)
{
	if (!r)
		return;
	obs_findings_clear(&r->now);
	obs_findings_log_free(&r->log);
	free(r);
}

struct obs_snap *obs_findings_snap(struct obs_findings_run *r)
{
	r->filling = true;
	return obs_snap_next(&r->hist);
}

int obs_findings_tick(struct obs_findings_run *r, struct obs_snap **next)
{
	size_t news[OBS_FINDINGS_MAX], n, i;
	const struct obs_seen *s;
	char hhmmss[16], line[640];
	time_t now = time(NULL);
	struct tm tm;
	json_t *ev;
	double t;
	int err = 0, e;

	if (!r->filling) {
		*next = obs_findings_snap(r);
		return 0;
	}
	obs_snap_push(&r->hist);
	t = obs_snap_at(&r->hist, 0)->t;
	obs_rules_run(&r->hist, &r->now);
	n = obs_findings_log_merge(&r->log, &r->now, t, news, OBS_FINDINGS_MAX);
	strftime(hhmmss, sizeof(hhmmss), "%H:%M:%S", localtime_r(&now, &tm));
	for (i = 0; i < n; i++) {
		s = &r->log.seen[news[i]];
		obs_findings_out_line(line, sizeof(line), &s->f, hhmmss);
		fprintf(r->live, "%s\n", line);
		ev = obs_findings_out_event(&s->f, t, hhmmss);
		if (!ev)
			err = -ENOMEM;
		else if (r->emit && (e = r->emit(r->emit_arg, ev)))
			err = e;
		json_decref(ev);
	}
	fflush(r->live);
	*next = obs_findings_snap(r);
	return err;
}

int obs_findings_summary(const struct obs_findings_run *r, FILE *out)
{
	return obs_findings_out_text(out, &r->log);
}

json_t *obs_findings_json(const struct obs_findings_run *r)
{
	return obs_findings_out_json(&r->log);
}

size_t obs_findings_alarms(const struct obs_findings_run *r)
{
	return obs_findings_log_count(&r->log, OBS_SEV_WARNING);
}

size_t obs_findings_now(const struct obs_findings_run *r, const struct obs_finding **out,
			size_t max)
{
	const struct obs_snap *last = obs_snap_at(&r->hist, 0);
	size_t i, n = 0;

	for (i = 0; last && i < r->log.n && n < max; i++)
		if (r->log.seen[i].last_seen == last->t)
			out[n++] = &r->log.seen[i].f;
	return n;
}

uint64_t obs_findings_dropped(const struct obs_findings_run *r)
{
	return r->log.dropped;
}
