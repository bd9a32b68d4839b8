// SPDX-License-Identifier: MIT
/* The run's findings log: first and last seen per (kind, key); which findings are news. */
#include <stdbool.h>
#include <string.h>
#include "rules/findings_log.h"

void obs_findings_log_init(struct obs_findings_log *l)
{
	memset(l, 0, sizeof(*l));
}

void obs_findings_log_free(struct obs_findings_log *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		json_decref(l->seen[i].f.evidence);
	l->n = 0;
}

static struct obs_seen *find(struct obs_findings_log *l, const struct obs_finding *f)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->seen[i].f.kind, f->kind) && !strcmp(l->seen[i].f.key, f->key))
			return &l->seen[i];
	return NULL;
}

size_t obs_findings_log_merge(struct obs_findings_log *l, struct obs_findings *fs, double t,
			      size_t *news, size_t max)
{
	struct obs_finding *f;
	struct obs_seen *s;
	size_t i, n = 0;
	bool is_news;

	l->dropped += fs->dropped;
	for (i = 0; i < fs->n; i++) {
		f = &fs->f[i];
		s = find(l, f);
		is_news = !s || f->severity > s->f.severity;
		if (!s) {
			if (l->n == OBS_FLOG_MAX) {
				l->dropped++;
				json_decref(f->evidence);
				continue;
			}
			s = &l->seen[l->n++];
			memset(s, 0, sizeof(*s));
			s->first_seen = t;
			s->milder_since = -1;
		} else if (f->severity < s->f.severity) {
			/* keep the gravest words; a milder interval only extends it */
			s->last_seen = t;
			s->intervals++;
			json_decref(f->evidence);
			continue;
		} else {
			/* graver: dated from its own onset (an EMFILE after its forecast), the
			 * milder words' first interval kept apart */
			if (f->severity > s->f.severity) {
				if (s->milder_since < 0) {
					s->milder_since = s->first_seen;
					s->milder = s->f.severity;
				}
				s->first_seen = t;
			}
			json_decref(s->f.evidence);
		}
		s->f = *f;
		s->last_seen = t;
		s->intervals++;
		if (is_news && n < max)
			news[n++] = (size_t)(s - l->seen);
	}
	fs->n = 0;
	fs->dropped = 0;
	return n;
}

size_t obs_findings_log_count(const struct obs_findings_log *l, enum obs_severity sev)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += l->seen[i].f.severity >= sev;
	return n;
}
