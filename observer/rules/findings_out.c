// SPDX-License-Identifier: MIT
/* Findings as text and JSON: live line, NDJSON event, summary block, JSON array. */
#include <errno.h>
#include <stdio.h>
#include "loadlens/quote.h"
#include "rules/findings_out.h"

/* A finding's text as a terminal may show it: the names in it (process names, paths) come from
 * anyone on the host, so control characters are escaped (the JSON keeps them, escaped its way). */
static const char *text(const struct obs_finding *f, char *buf, size_t len)
{
	return ll_quote(f->text, buf, len);
}

void obs_findings_out_line(char *buf, size_t len, const struct obs_finding *f, const char *hhmmss)
{
	char t[600]; /* the live line is 640 */

	snprintf(buf, len, "[%s] %s", hhmmss, text(f, t, sizeof(t)));
}

json_t *obs_findings_out_event(const struct obs_finding *f, double t, const char *hhmmss)
{
	return json_pack("{s:s, s:f, s:s, s:s, s:s, s:s, s:O}", "type", "finding", "t", t, "time",
			 hhmmss, "kind", f->kind, "severity", obs_severity_name(f->severity),
			 "text", f->text, "evidence", f->evidence);
}

int obs_findings_out_text(FILE *out, const struct obs_findings_log *l)
{
	const struct obs_seen *s;
	char t[1024];
	size_t i;

	fprintf(out, "findings:\n");
	if (!l->n)
		fprintf(out, "  - none: ports, fds, sockets and socket queues stayed within "
			     "limits\n");
	for (i = 0; i < l->n; i++) {
		s = &l->seen[i];
		if (s->milder_since >= 0)
			fprintf(out, "  - [%s] %s (seen %.0f-%.0f s; a %s from %.0f s)\n",
				obs_severity_name(s->f.severity), text(&s->f, t, sizeof(t)),
				s->first_seen, s->last_seen, obs_severity_name(s->milder),
				s->milder_since);
		else
			fprintf(out, "  - [%s] %s (seen %.0f-%.0f s)\n",
				obs_severity_name(s->f.severity), text(&s->f, t, sizeof(t)),
				s->first_seen, s->last_seen);
	}
	if (l->dropped)
		fprintf(out, "  - %llu more findings not kept (the list holds %d)\n",
			(unsigned long long)l->dropped, OBS_FLOG_MAX);
	return ferror(out) ? -EIO : 0;
}

json_t *obs_findings_out_json(const struct obs_findings_log *l)
{
	json_t *a = json_array(), *o;
	const struct obs_seen *s;
	size_t i;

	if (!a)
		return NULL;
	for (i = 0; i < l->n; i++) {
		s = &l->seen[i];
		o = json_pack("{s:s, s:s, s:s, s:O, s:f, s:f, s:I}", "kind", s->f.kind, "severity",
			      obs_severity_name(s->f.severity), "text", s->f.text, "evidence",
			      s->f.evidence, "first_seen", s->first_seen, "last_seen", s->last_seen,
			      "intervals", (json_int_t)s->intervals);
		if (o && s->milder_since >= 0)
			json_object_set_new(o, "milder", json_pack("{s:s, s:f}", "severity",
				obs_severity_name(s->milder), "first_seen", s->milder_since));
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
