// SPDX-License-Identifier: MIT
/* A scrape's read: live kernel counters into our own buffers, the rest from the latest tick. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "rules/findings_run.h"
#include "rules/findings_log.h"
#include "kernel/failures_object.h"
#include "tick/tick.h"
#include "features/processes.h"
#include "metrics/metrics_src.h"
#include "sources/reqtime_stats.h"

struct obs_mx_src {
	struct obs_mx_src_opts o;
	struct obs_sockets_stats cs;	  /* live reads: ours, not the features' */
	struct obs_census lp;		  /* the scrape's listen pass */
	struct obs_reqtime_stats *rs;
	struct obs_fail_stats fs;
	struct obs_mx_snap snap;	  /* the exposition's input */
	double census_at, start;	  /* monotonic seconds */
	uint64_t accepted_max;		  /* accepted as last exposed: a counter never steps back */
	uint64_t scrapes, refused;
	uint64_t lost_forensics;	  /* the failures' and processes' lost events, at the tick */
	double last_scrape_s;
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct obs_mx_src *obs_mx_src_new(const struct obs_mx_src_opts *o)
{
	struct obs_mx_src *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	s->start = mono();
	if (o->rt)
		s->rs = obs_reqtime_stats_new(o->rt);
	if (o->rt && !s->rs) {
		obs_mx_src_free(s);
		errno = ENOMEM;
		return NULL;
	}
	if (o->nports == 1)
		snprintf(s->snap.port, sizeof(s->snap.port), "%u", o->ports[0]);
	else
		snprintf(s->snap.port, sizeof(s->snap.port), "all");
	return s;
}

void obs_mx_src_free(struct obs_mx_src *s)
{
	if (!s)
		return;
	obs_reqtime_stats_free(s->rs);
	free(s);
}

void obs_mx_src_refused(struct obs_mx_src *s, uint64_t refused)
{
	s->refused = refused;
}

static int by_open(const void *a, const void *b)
{
	const struct obs_mx_proc *x = a, *y = b;

	return x->open < y->open ? 1 : x->open > y->open ? -1 : (x->pid > y->pid) - (x->pid < y->pid);
}

void obs_mx_src_tick(struct obs_mx_src *s, const struct obs_tick *tk)
{
	const struct obs_snap *sn = tk->snap;
	struct obs_mx_snap *m = &s->snap;
	struct obs_mx_proc all[OBS_SNAP_PROCS];
	size_t i, n = 0;

	s->lost_forensics = (tk->fail ? tk->fail->lost : 0) + (tk->procs ? tk->procs->ev_lost : 0);

	if (sn->census) {
		s->census_at = mono();
		m->census = true;
		for (i = 0; i < OBS_MX_TCP_STATES && i < OBS_SNAP_TCP_STATES; i++)
			m->tcp_state[i] = sn->state[i];
		m->port_range = sn->range;
		m->ngroups = sn->ngroups < OBS_MX_GROUPS ? sn->ngroups : OBS_MX_GROUPS;
		for (i = 0; i < m->ngroups; i++) {
			snprintf(m->group[i].name, sizeof(m->group[i].name), "%s->%s:%u",
				 sn->group[i].src, sn->group[i].dst, sn->group[i].dport);
			m->group[i].in_use = sn->group[i].in_use;
			m->group[i].time_wait = sn->group[i].time_wait;
		}
		m->groups_total = sn->groups_total;
		m->groups_capped = sn->groups_capped;
	}
	for (i = 0; i < sn->nprocs; i++) {
		if (!sn->proc[i].watched || sn->proc[i].exited || sn->proc[i].open < 0)
			continue;
		all[n].pid = sn->proc[i].pid;
		memcpy(all[n].comm, sn->proc[i].comm, sizeof(all[n].comm));
		all[n].comm[sizeof(all[n].comm) - 1] = '\0';
		all[n].open = sn->proc[i].open;
		all[n].soft = sn->proc[i].soft;
		all[n].emfile = sn->proc[i].emfile;
		n++;
	}
	qsort(all, n, sizeof(all[0]), by_open);
	m->procs_total = n;
	m->nprocs = n < OBS_MX_PROCS ? n : OBS_MX_PROCS;
	memcpy(m->proc, all, m->nprocs * sizeof(all[0]));
	m->files_known = sn->file_max > 0;
	m->file_nr = sn->file_nr;
	m->file_max = sn->file_max;
}

/* The connection counters, live; accepted from a listen pass just before them. */
static int connections(struct obs_mx_src *s)
{
	struct obs_mx_snap *m = &s->snap;
	struct obs_listen_queue q;
	const char *name;
	unsigned int i;
	int err;

	obs_census_listen_queue(s->o.census, &s->lp, &q);
	err = obs_sockets_read(s->o.conn, &s->cs);
	if (err)
		return err;
	obs_sockets_accepted(s->o.conn, &s->cs, &q);
	/* derived from two reads that are not one snapshot: never let the counter step back */
	if (s->cs.ctr[OBS_CTR_ACCEPTED] > s->accepted_max)
		s->accepted_max = s->cs.ctr[OBS_CTR_ACCEPTED];
	m->accepted = s->accepted_max;
	m->handshakes = s->cs.ctr[OBS_CTR_HANDSHAKES];
	m->naccept_err = 0;
	for (i = 1; i < OBS_ERRNO_SLOTS && m->naccept_err < OBS_MX_ERRNOS; i++) {
		if (!s->cs.errnos[i])
			continue;
		name = i + 1 < OBS_ERRNO_SLOTS ? strerrorname_np((int)i) : NULL;
		if (name)
			snprintf(m->accept_err[m->naccept_err].err, sizeof(m->accept_err[0].err),
				 "%s", name);
		else
			snprintf(m->accept_err[m->naccept_err].err, sizeof(m->accept_err[0].err),
				 i + 1 < OBS_ERRNO_SLOTS ? "%u" : "other", i);
		m->accept_err[m->naccept_err++].n = s->cs.errnos[i];
	}
	m->accept_wait = obs_sockets_features(s->o.conn)->set_state ? s->cs.wait : NULL;
	m->accept_wait_sum_ns = s->cs.ctr[OBS_CTR_WAIT_SUM_NS];
	m->lost_connections = obs_sockets_drops(&s->cs);
	return 0;
}

static int failures(struct obs_mx_src *s)
{
	struct obs_mx_snap *m = &s->snap;
	unsigned int sys, f;
	int err;

	m->nfails = 0;
	if (!s->o.fail)
		return 0;
	err = obs_fail_read(s->o.fail, &s->fs);
	if (err)
		return err;
	for (sys = 0; sys < OBS_SYS_MAX; sys++)
		for (f = 0; f < OBS_FAIL_MAX && m->nfails < OBS_MX_FAILS; f++)
			if (s->fs.sys[sys][f])
				m->fail[m->nfails++] = (struct obs_mx_fail){obs_fail_sys_name(sys),
									    obs_fail_name(f),
									    s->fs.sys[sys][f]};
	return 0;
}

static int requests(struct obs_mx_src *s)
{
	static const unsigned int comp[3] = {RT_QUEUE, RT_SERVICE, RT_RESIDENCE};
	struct obs_mx_snap *m = &s->snap;
	struct obs_mx_slot *sl;
	struct obs_reqtime_lost lost;
	uint16_t port;
	size_t k, c;
	int err;

	m->requests_on = s->rs != NULL;
	m->nslots = 0;
	if (!s->rs)
		return 0;
	err = obs_mx_reqtime_read(s->o.rt, s->rs);
	if (err)
		return err;
	for (k = 0; k < s->rs->nslots && m->nslots < OBS_MX_SLOTS; k++) {
		/* UDP slots appear once they have answered a request */
		if (k % 2 && !s->rs->slot[k].c.requests)
			continue;
		sl = &m->slot[m->nslots++];
		port = obs_reqtime_slot_port(s->o.rt, k);
		if (port)
			snprintf(sl->port, sizeof(sl->port), "%u", port);
		else
			snprintf(sl->port, sizeof(sl->port), "all");
		sl->udp = k % 2;
		sl->requests = s->rs->slot[k].c.requests;
		for (c = 0; c < 3; c++) {
			sl->hist[c] = s->rs->slot[k].hist[comp[c]];
			sl->sum_ns[c] = s->rs->slot[k].c.sum_ns[comp[c]];
		}
	}
	obs_reqtime_lost(s->o.rt, s->rs, &lost);
	m->lost_requests = obs_reqtime_lost_total(&lost);
	return 0;
}

static void findings(struct obs_mx_src *s)
{
	const struct obs_finding *now[OBS_FLOG_MAX];
	struct obs_mx_snap *m = &s->snap;
	size_t n, i, j;

	m->nkinds = 0;
	if (!s->o.findings)
		return;
	n = obs_findings_now(s->o.findings, now, OBS_FLOG_MAX);
	for (i = 0; i < n; i++) {
		for (j = 0; j < m->nkinds; j++)
			if (!strcmp(m->kind[j].kind, now[i]->kind))
				break;
		if (j == m->nkinds) {
			if (m->nkinds == OBS_MX_KINDS)
				continue;
			m->kind[m->nkinds++] = (struct obs_mx_kind){now[i]->kind, 0};
		}
		m->kind[j].active++;
	}
	m->lost_findings = obs_findings_dropped(s->o.findings);
}

/* The observer's own BPF programs: every bpf-prog fd we hold, timed where bpf_stats is on. */
static void programs(struct obs_mx_src *s)
{
	struct obs_mx_snap *m = &s->snap;
	struct bpf_prog_info info;
	char path[64], link[64];
	struct dirent *de;
	uint32_t len;
	ssize_t n;
	size_t i;
	FILE *f;
	DIR *d;
	int v = -1;

	f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	m->bpf_stats = v < 0 ? -1 : v > 0;
	m->nprogs = 0;
	memset(m->prog, 0, sizeof(m->prog));
	if (m->bpf_stats != 1)
		return;
	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((de = readdir(d)) && m->nprogs < OBS_MX_PROGS) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%.16s", de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, "anon_inode:bpf-prog"))
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(atoi(de->d_name), &info, &len))
			continue;
		/* the kernel keeps 15 characters of a name: programs cut to the same name add up */
		for (i = 0; i < m->nprogs; i++)
			if (!strncmp(m->prog[i].name, info.name, sizeof(info.name)))
				break;
		if (i == m->nprogs)
			snprintf(m->prog[m->nprogs++].name, sizeof(m->prog[0].name), "%.*s",
				 (int)sizeof(info.name), info.name);
		m->prog[i].run_ns += info.run_time_ns;
		m->prog[i].run_cnt += info.run_cnt;
	}
	closedir(d);
}

int obs_mx_src_scrape(struct obs_mx_src *s, enum obs_mx_format f, struct obs_mx_buf *out)
{
	struct obs_mx_snap *m = &s->snap;
	double t0 = mono();
	int err;

	err = connections(s);
	if (!err)
		err = failures(s);
	if (!err)
		err = requests(s);
	if (err)
		return err;
	findings(s);
	programs(s);
	m->census_age_s = m->census ? t0 - s->census_at : 0;
	m->lost_forensics = s->lost_forensics;
	m->scrapes = s->scrapes;
	m->last_scrape_s = s->last_scrape_s;
	m->http_refused = s->refused;
	m->uptime_s = t0 - s->start;
	err = obs_mx_render(out, f, m);
	s->scrapes++;
	s->last_scrape_s = mono() - t0;
	return err;
}
