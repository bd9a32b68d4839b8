// SPDX-License-Identifier: MIT
/* Findings: what the forensics saw over the run, as plain sentences with numbers, and as JSON. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "forensics_int.h"

#define MAX_FINDINGS 24
#define TW_NOTABLE 1000 /* TIME_WAIT sockets worth a sentence when nothing else is wrong */

extern const char *const obs_tcp_state_names[OBS_TCP_STATES];
json_t *obs_fx_procs_json(const struct obs_fx *fx);

struct x__findings {
	char text[MAX_FINDINGS][512];
	const char *kind[MAX_FINDINGS];
	unsigned int n;
};

static void x__add(struct x__findings *fs, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void x__add(struct x__findings *fs, const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (fs->n == MAX_FINDINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(fs->text[fs->n], sizeof(fs->text[0]), fmt, ap);
	va_end(ap);
	fs->kind[fs->n++] = kind;
}

/* The call that failed most with class f, and its count. */
static const char *x__top_sys(const struct obs_fx_run *r, unsigned int f, uint64_t *total)
{
	unsigned int s, best = 0;

	*total = 0;
	for (s = 0; s < OBS_SYS_MAX; s++) {
		*total += r->fails[s][f];
		if (r->fails[s][f] > r->fails[best][f])
			best = s;
	}
	return best == OBS_SYS_ACCEPT4 ? "accept" : obs_sys_name(best);
}

static void x__ports(const struct obs_fx *fx, struct x__findings *fs)
{
	const struct obs_fx_run *r = &fx->run;
	const struct obs_fx_ports *p = &r->ports_peak;
	char grp[128], a[32], b[32], c[32], d[32], rate[128] = "", full[48] = "";
	uint64_t n;
	const char *sys = x__top_sys(r, OBS_FAIL_EADDRNOTAVAIL, &n);

	if (!p->range || (!n && p->pct < 50.0 && r->ports_first_forecast_t < 0))
		return;
	if (n)
		snprintf(rate, sizeof(rate), "; %s() failing with EADDRNOTAVAIL at up to %.0f/s "
			 "(%s in all)", sys, r->fail_rate_max[OBS_FAIL_EADDRNOTAVAIL],
			 obs_fx_num(n, c, sizeof(c)));
	if (r->ports_full_t >= 0)
		snprintf(full, sizeof(full), " (full from t=%.0fs)", r->ports_full_t);
	x__add(fs, "ports",
	       "ephemeral ports %s: %s of %s in use (%s TIME_WAIT), pressure %.0f%%%s%s; widen "
	       "net.ipv4.ip_local_port_range or reuse connections",
	       obs_port_group_text(&p->g, grp, sizeof(grp)), obs_fx_num(p->g.in_use, a, sizeof(a)),
	       obs_fx_num(p->range, b, sizeof(b)), obs_fx_num(p->g.time_wait, d, sizeof(d)),
	       p->pct, full, rate);
	if (r->ports_first_forecast_t >= 0)
		x__add(fs, "ports_forecast",
		       "port exhaustion was forecast at t=%.0fs, %.0f s ahead, from the growth of "
		       "ports in use", r->ports_first_forecast_t, r->ports_first_forecast_tte);
}

static void x__fds(const struct obs_fx *fx, struct x__findings *fs)
{
	const struct obs_fx_run *r = &fx->run;
	char a[32], b[32], fc[160], first[32];
	const struct obs_fx_proc *p;
	size_t i;

	for (i = 0; i < fx->nprocs; i++) {
		p = &fx->procs[i];
		fc[0] = '\0';
		if (p->first_forecast_t >= 0)
			snprintf(fc, sizeof(fc), "; exhaustion was forecast at t=%.0fs, %.0f s ahead",
				 p->first_forecast_t, p->first_forecast_tte);
		if (p->fails[OBS_FAIL_EMFILE]) {
			first[0] = '\0';
			if (p->first_fail_t >= 0)
				snprintf(first, sizeof(first), " from t=%.0fs", p->first_fail_t);
			x__add(fs, "fds",
			       "fds: %s (pid %u) ran out of file descriptors: EMFILE %s times (the "
			       "latest in %s())%s; open fds peaked at %s against RLIMIT_NOFILE %lld (hard "
			       "%lld)%s; raise the limit (ulimit -n, LimitNOFILE=) or close fds sooner",
			       p->fd.comm, p->fd.pid,
			       obs_fx_num(p->fails[OBS_FAIL_EMFILE], a, sizeof(a)),
			       obs_sys_name(p->last_sys), first,
			       obs_fx_num((uint64_t)p->fd.peak, b, sizeof(b)), (long long)p->fd.soft,
			       (long long)p->fd.hard, fc);
		} else if (p->fd.soft > 0 && p->fd.peak * 10 >= p->fd.soft * 8) {
			x__add(fs, "fds",
			       "fds: %s (pid %u) peaked at %s open fds, %.0f%% of its RLIMIT_NOFILE "
			       "%lld%s", p->fd.comm, p->fd.pid, obs_fx_num((uint64_t)p->fd.peak, a,
									  sizeof(a)),
			       100.0 * p->fd.peak / p->fd.soft, (long long)p->fd.soft, fc);
		} else if (p->first_forecast_t >= 0) {
			x__add(fs, "fds", "fds: %s (pid %u) was growing towards RLIMIT_NOFILE %lld%s",
			       p->fd.comm, p->fd.pid, (long long)p->fd.soft, fc);
		}
		/* a leak: fds keep growing while the request rate is flat */
		if (p->nhist >= 5 && p->rate > 0.5 && r->acc_rate_max > 0 &&
		    r->acc_rate_max <= 1.5 * r->acc_rate_min && !p->fails[OBS_FAIL_EMFILE])
			x__add(fs, "fd_leak",
			       "fd leak suspected: %s (pid %u) gained %.1f fds/s while accepted "
			       "connections held steady at %.0f-%.0f/s", p->fd.comm, p->fd.pid,
			       p->rate, r->acc_rate_min, r->acc_rate_max);
	}
	if (r->fails[0][OBS_FAIL_ENFILE] || r->first_fail_t[OBS_FAIL_ENFILE] >= 0) {
		uint64_t n;
		const char *sys = x__top_sys(r, OBS_FAIL_ENFILE, &n);

		x__add(fs, "system_fds",
		       "the system ran out of file handles: %s() failed with ENFILE %s times; "
		       "fs.file-nr peaked at %s of fs.file-max %s", sys, obs_fx_num(n, a, sizeof(a)),
		       obs_fx_num(r->file_nr_max, b, sizeof(b)), obs_fx_num(r->file_max, fc,
									sizeof(fc)));
	}
}

static void x__sockets(const struct obs_fx *fx, struct x__findings *fs)
{
	const struct obs_fx_run *r = &fx->run;
	char a[32], b[32];
	uint64_t n;
	const char *sys;

	if (r->close_wait_last >= 10 && (r->close_wait_rising >= 2 || r->close_wait_rate > 0.5))
		x__add(fs, "close_wait",
		       "CLOSE_WAIT is piling up: %s sockets (%+.1f/s); the peers closed and the "
		       "application never called close() on its side: a connection leak",
		       obs_fx_num(r->close_wait_last, a, sizeof(a)), r->close_wait_rate);
	if (r->tw_rate_max * OBS_TW_LIFETIME_S >= TW_NOTABLE || r->state_max[6] >= TW_NOTABLE) {
		/* A peak interval may be a short burst: say what was seen, and what the peak rate
		 * would mean if it were sustained, against the port range where one is known. */
		double avg = r->t_end > 0 ? (double)r->tw_entries / r->t_end : 0;
		uint64_t held = (uint64_t)(r->tw_rate_max * OBS_TW_LIFETIME_S);
		char c[32], d[32], e[96] = "";

		if (r->ports_peak.range && held > r->ports_peak.range)
			snprintf(e, sizeof(e),
				 ", more than the %s ephemeral ports a client address has per "
				 "destination",
				 obs_fx_num(r->ports_peak.range, d, sizeof(d)));
		x__add(fs, "time_wait",
		       "TIME_WAIT: %s sockets entered it in %.1fs (%.0f/s on average, %.0f/s at the "
		       "peak; the census counted at most %s at once); sustained for %.0f s, the peak "
		       "rate would hold about %s sockets in TIME_WAIT%s",
		       obs_fx_num(r->tw_entries, a, sizeof(a)), r->t_end, avg, r->tw_rate_max,
		       obs_fx_num(r->state_max[6], b, sizeof(b)), OBS_TW_LIFETIME_S,
		       obs_fx_num(held, c, sizeof(c)), e);
	}
	if (r->listen_overflows || r->drop_listen_overflow)
		x__add(fs, "listen",
		       "listen queue overflowed: %s handshakes dropped (ListenOverflows; "
		       "TCP_LISTEN_OVERFLOW drops: %llu), accept queue peaked at %llu of backlog "
		       "%llu; accept faster or raise the backlog (listen(), net.core.somaxconn)",
		       obs_fx_num(r->listen_overflows, a, sizeof(a)),
		       (unsigned long long)r->drop_listen_overflow,
		       (unsigned long long)fx->conn_prev->ctr[OBS_CTR_QLEN_MAX],
		       (unsigned long long)fx->conn_prev->ctr[OBS_CTR_BACKLOG_MAX]);
	sys = x__top_sys(r, OBS_FAIL_EADDRINUSE, &n);
	if (n)
		x__add(fs, "addrinuse", "%s() failed with EADDRINUSE %s times: the address and "
					"port are taken", sys, obs_fx_num(n, a, sizeof(a)));
}

static void x__collect(struct obs_fx *fx, struct x__findings *fs)
{
	unsigned int i;

	memset(fs, 0, sizeof(*fs));
	for (i = 0; i < fx->run.nevents; i++)
		x__add(fs, "target", "%s", fx->run.events[i]);
	x__ports(fx, fs);
	x__fds(fx, fs);
	x__sockets(fx, fs);
}

int obs_fx_summary(struct obs_fx *fx, FILE *out)
{
	struct x__findings *fs = malloc(sizeof(*fs));
	const struct obs_fx_run *r = &fx->run;
	unsigned int i;

	if (!fs)
		return -ENOMEM;
	x__collect(fx, fs);
	fprintf(out, "  census             %12llu  (sock_diag, %llu failed, %llu deferred to keep it under "
		     "1%% of a CPU, slowest %.1f ms)\n",
		(unsigned long long)r->census_ok, (unsigned long long)r->census_failed,
		(unsigned long long)r->census_deferred, r->census_ms_max);
	fprintf(out, "  TIME_WAIT entries  %12llu  (peak %.0f/s; census peak %llu)\n",
		(unsigned long long)r->tw_entries, r->tw_rate_max,
		(unsigned long long)r->state_max[6]);
	fprintf(out, "findings:\n");
	if (!fs->n)
		fprintf(out, "  - no exhaustion found: ports, fds, accept queue and CLOSE_WAIT stayed "
			     "within limits\n");
	for (i = 0; i < fs->n; i++)
		fprintf(out, "  - %s\n", fs->text[i]);
	fflush(out);
	free(fs);
	return 0;
}

int obs_fx_json_add(struct obs_fx *fx, json_t *root)
{
	struct x__findings *fs = malloc(sizeof(*fs));
	const struct obs_fx_run *r = &fx->run;
	json_t *o = json_object(), *fa = json_array(), *st = json_object(), *pp;
	uint64_t sys[OBS_SYS_MAX][OBS_FAIL_MAX];
	unsigned int i, s;
	char grp[128];
	int err = 0;

	if (!fs || !o || !fa || !st) {
		err = -ENOMEM;
		goto cleanup;
	}
	x__collect(fx, fs);
	for (i = 0; i < fs->n; i++)
		json_array_append_new(fa, json_pack("{s:s, s:s}", "kind", fs->kind[i], "text",
						    fs->text[i]));
	for (s = 1; s < OBS_TCP_STATES; s++)
		if (obs_tcp_state_names[s] && s != 7 && s != 12)
			json_object_set_new(st, obs_tcp_state_names[s],
					    json_integer((json_int_t)r->state_max[s]));
	memcpy(sys, r->fails, sizeof(sys));
	json_object_set_new(o, "findings", fa);
	fa = NULL;
	json_object_set_new(o, "census_max", st);
	st = NULL;
	json_object_set_new(o, "censuses", json_integer((json_int_t)r->census_ok));
	json_object_set_new(o, "census_failed", json_integer((json_int_t)r->census_failed));
	json_object_set_new(o, "census_deferred", json_integer((json_int_t)r->census_deferred));
	json_object_set_new(o, "reconcile_max_diff", json_integer((json_int_t)r->reconcile_abs_max));
	json_object_set_new(o, "time_wait_entries", json_integer((json_int_t)r->tw_entries));
	json_object_set_new(o, "time_wait_rate_max", json_real(r->tw_rate_max));
	json_object_set_new(o, "time_wait_steady_state",
			    json_real(r->tw_rate_max * OBS_TW_LIFETIME_S));
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
	json_object_set_new(o, "fds", obs_fx_procs_json(fx));
	json_object_set_new(o, "system_files", json_pack("{s:I, s:I}", "open_max",
							 (json_int_t)r->file_nr_max, "max",
							 (json_int_t)r->file_max));
	json_object_set_new(o, "listen", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
		"overflows", (json_int_t)r->listen_overflows, "drops", (json_int_t)r->listen_drops,
		"reqq_full_drops", (json_int_t)r->reqq_full,
		"drop_reason_listen_overflow", (json_int_t)r->drop_listen_overflow,
		"queue_max", (json_int_t)fx->conn_prev->ctr[OBS_CTR_QLEN_MAX],
		"backlog", (json_int_t)fx->conn_prev->ctr[OBS_CTR_BACKLOG_MAX]));
	json_object_set_new(o, "tcp", json_pack("{s:I, s:I, s:I}",
		"synack_retransmits", (json_int_t)fx->fail_cur.fx[OBS_FX_SYNACK_RETRANS],
		"resets_sent", (json_int_t)fx->fail_cur.fx[OBS_FX_RST_SENT],
		"resets_received", (json_int_t)fx->fail_cur.fx[OBS_FX_RST_RECV]));
	json_object_set_new(o, "targets_full", json_pack("{s:I, s:I}",
		"count", (json_int_t)fx->fail_cur.fx[OBS_FX_TARGETS_FULL],
		"first_pid", (json_int_t)obs_fail_targets_full_pid(fx->fail)));
	json_object_set_new(o, "lost_events", json_integer((json_int_t)(
		fx->fail_cur.fx[OBS_FX_RB_LOST] + fx->fail_cur.fx[OBS_FX_ERRPROC_FULL] +
		fx->fail_cur.missed)));
	if (json_object_set_new(root, "forensics", o))
		err = -ENOMEM;
	o = NULL;
cleanup:
	json_decref(o);
	json_decref(fa);
	json_decref(st);
	free(fs);
	return err;
}
