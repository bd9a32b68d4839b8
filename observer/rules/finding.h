/* SPDX-License-Identifier: MIT */
/*
 * A finding: {kind, severity, text, evidence}, the findings contract of docs/observer/findings.md.
 * Rules (observer/rules/rules_*.c) add the findings that hold in an interval to a list; the run's
 * log (observer/rules/findings_log.c) remembers when each one was first and last seen.
 */
#ifndef LOADLENS_OBSERVER_RULES_FINDING_H
#define LOADLENS_OBSERVER_RULES_FINDING_H

#include <stddef.h>
#include <jansson.h>

#define OBS_FINDINGS_MAX 64 /* findings one interval can hold; more are counted, not kept */

enum obs_severity {
	OBS_SEV_NOTE = 0,
	OBS_SEV_WARNING,
	OBS_SEV_CRITICAL,
};

struct obs_finding {
	const char *kind;	 /* a stable name: "port_exhaustion", "fd_exhaustion", ... */
	enum obs_severity severity;
	char key[112];		 /* what it is about, within its kind: "pid 42", "port 8080" */
	char text[512];		 /* one sentence that starts with its topic: "fds: ..." */
	json_t *evidence;	 /* an object, owned */
};

struct obs_findings {
	struct obs_finding f[OBS_FINDINGS_MAX];
	size_t n;
	size_t dropped; /* findings past OBS_FINDINGS_MAX */
};

const char *obs_severity_name(enum obs_severity s);

/* Add a finding; evidence is taken (even on failure). Returns it, or NULL when the list is full. */
struct obs_finding *obs_findings_add(struct obs_findings *fs, const char *kind,
				     enum obs_severity sev, const char *key, json_t *evidence,
				     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Free the evidence and empty the list. */
void obs_findings_clear(struct obs_findings *fs);
/* The finding of `kind` (and key, if not NULL) or NULL. */
const struct obs_finding *obs_findings_find(const struct obs_findings *fs, const char *kind,
					    const char *key);

#endif /* LOADLENS_OBSERVER_RULES_FINDING_H */
