// SPDX-License-Identifier: MIT
/* The rules' runner, the snapshot ring, the findings list and the helpers the rules share. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "rules/rules.h"

static const obs_rule_fn rules[] = {
	obs_rule_target_exit,	 obs_rule_exit_spike,	 obs_rule_process_cap,
	obs_rule_port_exhaustion,
	obs_rule_fds,		 obs_rule_fd_leak,	 obs_rule_system_fds,
	obs_rule_close_wait,	 obs_rule_fin_wait2,	 obs_rule_time_wait,
	obs_rule_listen_overflow, obs_rule_addrinuse,	 obs_rule_saturation,
	obs_rule_error_responses,
	obs_rule_pipelining,	 obs_rule_udp_shared,	 obs_rule_netns_outside,
	obs_rule_no_listener,	 obs_rule_served_elsewhere,
};

void obs_rules_run(const struct obs_snap_hist *h, struct obs_findings *out)
{
	size_t i;

	if (!obs_snap_count(h))
		return;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		rules[i](h, out);
}

const struct obs_snap *obs_snap_at(const struct obs_snap_hist *h, unsigned int back)
{
	if (back >= obs_snap_count(h))
		return NULL;
	return &h->s[(h->n - 1 - back) % OBS_SNAP_HIST];
}

struct obs_snap *obs_snap_next(struct obs_snap_hist *h)
{
	struct obs_snap *s = &h->s[h->n % OBS_SNAP_HIST];

	memset(s, 0, sizeof(*s));
	s->tw_reuse = s->fin_timeout_s = -1;
	s->max_tw_buckets = -1;
	s->runq_p50_ns = s->runq_p99_ns = -1;
	return s;
}

void obs_snap_push(struct obs_snap_hist *h)
{
	h->n++;
}

unsigned int obs_snap_count(const struct obs_snap_hist *h)
{
	return h->n < OBS_SNAP_HIST ? h->n : OBS_SNAP_HIST;
}

const char *obs_severity_name(enum obs_severity s)
{
	return s == OBS_SEV_CRITICAL ? "critical" : s == OBS_SEV_WARNING ? "warning" : "note";
}

struct obs_finding *obs_findings_add(struct obs_findings *fs, const char *kind,
				     enum obs_severity sev, const char *key, json_t *evidence,
				     const char *fmt, ...)
{
	struct obs_finding *f;
	va_list ap;

	if (fs->n == OBS_FINDINGS_MAX) {
		fs->dropped++;
		json_decref(evidence);
		return NULL;
	}
	f = &fs->f[fs->n++];
	f->kind = kind;
	f->severity = sev;
	snprintf(f->key, sizeof(f->key), "%s", key ? key : "");
	f->evidence = evidence ? evidence : json_object();
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return f;
}

void obs_findings_clear(struct obs_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		json_decref(fs->f[i].evidence);
	fs->n = 0;
	fs->dropped = 0;
}

const struct obs_finding *obs_findings_find(const struct obs_findings *fs, const char *kind,
					    const char *key)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].kind, kind) && (!key || !strcmp(fs->f[i].key, key)))
			return &fs->f[i];
	return NULL;
}

const char *obs_rule_num(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	size_t n, i, o = 0;

	n = (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *obs_rule_ns(double ns, char *buf, size_t len)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.0f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

double obs_rule_slope(const double *t, const double *y, unsigned int n)
{
	double mt = 0, my = 0, num = 0, den = 0;
	unsigned int i;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++) {
		mt += t[i];
		my += y[i];
	}
	mt /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		num += (t[i] - mt) * (y[i] - my);
		den += (t[i] - mt) * (t[i] - mt);
	}
	return den > 0 ? num / den : 0;
}

const struct obs_snap *obs_rule_census(const struct obs_snap_hist *h, unsigned int within,
				       unsigned int *back)
{
	const struct obs_snap *s;
	unsigned int b;

	for (b = 0; b <= within && (s = obs_snap_at(h, b)); b++) {
		if (s->census) {
			if (back)
				*back = b;
			return s;
		}
	}
	return NULL;
}

/*
 * The growth a ramp that is slowing down still has: t/y newest first over m samples. The newest
 * step of about a second (OBS_RULE_TREND_STEP_S) against the one before it: a ratio q below
 * OBS_RULE_SLOWING reads as a ramp decaying by q a step, with newest * q / (1 - q) still to come.
 * Returns that growth, or -1 when the ramp is not slowing (a leak: nothing bounds it).
 */
double obs_rule_growth_left(const double *t, const double *y, unsigned int m)
{
	unsigned int b, b1 = 0, b2 = 0;
	double g1, g2, q;

	for (b = 1; b < m && !b2; b++) {
		if (!b1 && t[0] - t[b] >= OBS_RULE_TREND_STEP_S - 1e-6)
			b1 = b;
		else if (b1 && t[b1] - t[b] >= OBS_RULE_TREND_STEP_S - 1e-6)
			b2 = b;
	}
	if (!b2)
		return -1;
	g1 = (y[0] - y[b1]) / (t[0] - t[b1]);
	g2 = (y[b1] - y[b2]) / (t[b1] - t[b2]);
	if (g2 <= 0 || g1 >= OBS_RULE_SLOWING * g2)
		return -1;
	q = g1 / g2;
	return (y[0] - y[b1]) * q / (1 - q);
}
