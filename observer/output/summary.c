// SPDX-License-Identifier: MIT
/* Live lines, the text summary and the JSON summary of the connection observer. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "loadlens/cli.h"
#include "loadlens/hist_json.h"
#include "output/summary.h"
#include "tick/snapshots.h"

#define EAGAIN_SLOT 11

const char *obs_summary_errno_name(unsigned int slot, char *buf, size_t len)
{
	const char *name;

	if (slot >= OBS_ERRNO_SLOTS - 1)
		return "other";
	name = strerrorname_np((int)slot);
	if (name)
		return name;
	snprintf(buf, len, "E%u", slot);
	return buf;
}

void obs_summary_live_header(FILE *out)
{
	fprintf(out, "%-8s %10s %10s %12s %8s %10s %10s %6s %6s %6s %6s %5s %4s %6s\n", "TIME",
		"ACCEPTED", "ACC/S", "TOTAL", "ERRORS", "WAIT_P50", "WAIT_P99", "ESTAB", "TW",
		"CLS/S", "CLOSEW", "PORT%", "FD%", "FAIL/S");
	fflush(out);
}

/* The sockets, fds and failures columns, from the sockstat, processes and failures snapshots. */
static void live_columns(const struct obs_tick *tk, char *buf, size_t len)
{
	const struct obs_sockstat_snap *ss = tk->sockstat;
	double fdpct = tk->procs ? tk->procs->fd_pct : -1;
	double fail_rate = tk->fail && tk->dt > 0 ? tk->fail->fails / tk->dt : 0;
	char pct[8] = "-", fdp[8] = "-", tw[16] = "-", est[16] = "-", cw[16] = "-";

	if (ss && ss->ports.range)
		snprintf(pct, sizeof(pct), "%.0f", ss->ports.pct);
	if (fdpct >= 0)
		snprintf(fdp, sizeof(fdp), "%.0f", fdpct);
	if (ss && ss->have_census) {
		snprintf(est, sizeof(est), "%llu", (unsigned long long)ss->cs.state[1]);
		snprintf(tw, sizeof(tw), "%llu", (unsigned long long)ss->cs.state[6]);
		snprintf(cw, sizeof(cw), "%llu", (unsigned long long)ss->cs.state[8]);
	}
	/* no census this interval: the live counts from the state moves ("~": not exact) */
	if (ss && !ss->fresh && ss->live_ok) {
		snprintf(est, sizeof(est), "%s%lld", ss->live_err ? "~" : "", (long long)ss->live[1]);
		snprintf(cw, sizeof(cw), "%s%lld", ss->live_err ? "~" : "",
			 (long long)ss->live[OBS_TCP_CLOSE_WAIT]);
	}
	snprintf(buf, len, " %6s %6s %6.0f %6s %5s %4s %6.0f", est, tw, ss ? ss->tw_rate : 0, cw,
		 pct, fdp, fail_rate);
}

int obs_summary_live_line(FILE *out, const struct obs_tick *tk)
{
	const struct obs_sockets_stats *delta = &tk->conn->delta, *total = &tk->conn->total;
	const struct ll_hist *h = &tk->conn->wait;
	double interval_s = tk->dt;
	char suffix[128];
	char now[16], p50[32], p99[32];
	time_t t = time(NULL);
	struct tm tm;

	live_columns(tk, suffix, sizeof(suffix));
	strftime(now, sizeof(now), "%H:%M:%S", localtime_r(&t, &tm));
	if (ll_hist_count(h)) {
		ll_fmt_ns((double)ll_hist_percentile(h, 50), p50, sizeof(p50));
		ll_fmt_ns((double)ll_hist_percentile(h, 99), p99, sizeof(p99));
	} else {
		strcpy(p50, "-");
		strcpy(p99, "-");
	}
	fprintf(out, "%-8s %10llu %10.1f %12llu %8llu %10s %10s%s\n", now,
		(unsigned long long)delta->ctr[OBS_CTR_ACCEPTED],
		interval_s > 0 ? (double)delta->ctr[OBS_CTR_ACCEPTED] / interval_s : 0.0,
		(unsigned long long)total->ctr[OBS_CTR_ACCEPTED],
		(unsigned long long)delta->ctr[OBS_CTR_ACCEPT_ERRORS], p50, p99, suffix);
	fflush(out);
	return 0;
}

void obs_summary_ports_text(const uint16_t *ports, size_t nports, char *buf, size_t len)
{
	size_t i, off;

	if (!nports) {
		snprintf(buf, len, "every tcp port");
		return;
	}
	off = (size_t)snprintf(buf, len, "tcp port%s", nports > 1 ? "s" : "");
	for (i = 0; i < nports && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? ", " : " ", ports[i]);
}

int obs_summary_text(FILE *out, const struct obs_summary *r, const struct obs_connections_snap *conn)
{
	const struct obs_sockets_stats *st = &conn->total;
	const struct ll_hist *h = &conn->wait_total;
	char ports[160], name[16], a[32], b[32], c[32], d[32];
	const uint64_t *ctr = st->ctr;
	unsigned int e;

	obs_summary_ports_text(r->ports, r->nports, ports, sizeof(ports));
	fprintf(out, "summary: %.1fs on %s\n", r->elapsed_s, ports);
	fprintf(out, "  observer CPU       %10.2f s  (%.2f s to start: loading and checking its "
		     "programs; then %.1f%% of a core; its BPF programs run in the tasks they "
		     "observe)\n", r->self_cpu_s, r->start_cpu_s,
		r->elapsed_s > 0 ? 100 * (r->self_cpu_s - r->start_cpu_s) / r->elapsed_s : 0.0);
	fprintf(out, "  accepted           %12llu  (%.1f/s)\n", (unsigned long long)ctr[OBS_CTR_ACCEPTED],
		r->elapsed_s > 0 ? (double)ctr[OBS_CTR_ACCEPTED] / r->elapsed_s : 0.0);
	if (r->features->set_state)
		fprintf(out, "  handshakes         %12llu\n",
			(unsigned long long)ctr[OBS_CTR_HANDSHAKES]);
	else
		fprintf(out, "  handshakes                    -  (no inet_sock_set_state)\n");
	fprintf(out, "  accept errors      %12llu  (EAGAIN on a non-blocking listener: %llu, not "
		     "an error)\n",
		(unsigned long long)ctr[OBS_CTR_ACCEPT_ERRORS],
		(unsigned long long)ctr[OBS_CTR_ACCEPT_EAGAIN]);
	for (e = 1; e < OBS_ERRNO_SLOTS; e++) {
		if (st->errnos[e] && e != EAGAIN_SLOT)
			fprintf(out, "    %-16s %12llu\n",
				obs_summary_errno_name(e, name, sizeof(name)),
				(unsigned long long)st->errnos[e]);
	}
	if (!r->features->set_state) {
		fprintf(out, "  accept-queue wait             -  (no inet_sock_set_state)\n");
	} else if (!ll_hist_count(h)) {
		fprintf(out, "  accept-queue wait             -  (no accept() timed: the syscall "
			     "tracepoints were attached %.0f%% of the run; --syscalls on times all)\n",
			100 * r->syscalls_share);
	} else {
		fprintf(out, "  accept-queue wait  %12llu  p50 %s  p90 %s  p99 %s  max %s\n",
			(unsigned long long)ll_hist_count(h),
			ll_fmt_ns((double)ll_hist_percentile(h, 50), a, sizeof(a)),
			ll_fmt_ns((double)ll_hist_percentile(h, 90), b, sizeof(b)),
			ll_fmt_ns((double)ll_hist_percentile(h, 99), c, sizeof(c)),
			ll_fmt_ns((double)ll_hist_max(h), d, sizeof(d)));
		if (ll_hist_count(h) < ctr[OBS_CTR_ACCEPTED])
			fprintf(out, "    sampled: %llu of %llu accepts timed (syscall tracepoints "
				     "attached %.0f%% of the run, --syscalls %s)\n",
				(unsigned long long)ll_hist_count(h),
				(unsigned long long)ctr[OBS_CTR_ACCEPTED], 100 * r->syscalls_share,
				r->syscalls_mode ? r->syscalls_mode : "auto");
	}
	if (r->features->set_state && ctr[OBS_CTR_WAIT_UNMATCHED])
		fprintf(out, "    no handshake seen %11llu  (queued before start or attach, or evicted)\n",
			(unsigned long long)ctr[OBS_CTR_WAIT_UNMATCHED]);
	fprintf(out, "  syscall tier       %12s  (attached %.0f%% of the run%s%s)\n",
		r->syscalls_mode ? r->syscalls_mode : "auto", 100 * r->syscalls_share,
		r->syscalls_reason ? "; held on by: " : "",
		r->syscalls_reason ? r->syscalls_reason : "");
	fprintf(out, "  drops              %12llu", (unsigned long long)obs_summary_lost(r, conn));
	if (obs_summary_lost(r, conn))
		fprintf(out, "  (lost events: accepted fd unresolved %llu, connection programs' "
			     "skipped runs %llu, forensics %llu, request timing %llu: socket state "
			     "%llu, run-queue slots %llu, skipped runs %llu, trace records %llu)",
			(unsigned long long)ctr[OBS_CTR_DROP_UNRESOLVED],
			(unsigned long long)st->missed, (unsigned long long)r->lost_forensics,
			(unsigned long long)r->lost_requests_total,
			(unsigned long long)r->lost_requests.no_storage,
			(unsigned long long)r->lost_requests.tgids_full,
			(unsigned long long)r->lost_requests.skipped_runs,
			(unsigned long long)r->lost_requests.trace_lost);
	fputc('\n', out);
	fflush(out);
	return 0;
}

uint64_t obs_summary_lost(const struct obs_summary *r, const struct obs_connections_snap *conn)
{
	return conn->lost + r->lost_forensics + r->lost_requests_total;
}

/* json_object_set_new() that remembers a failure instead of losing it. */
static void set(json_t *obj, const char *key, json_t *val, bool *ok)
{
	if (!val || json_object_set_new(obj, key, val))
		*ok = false;
}

int obs_summary_json_add(json_t *root, const struct obs_summary *r,
			 const struct obs_connections_snap *conn)
{
	const struct obs_sockets_stats *st = &conn->total;
	json_t *ports = json_array(), *errs = json_object();
	json_t *drops = json_object(), *features = json_object();
	const uint64_t *ctr = st->ctr;
	char name[16];
	bool ok = root && ports && errs && drops && features;
	unsigned int e;
	size_t i;

	if (!ok)
		goto cleanup;
	for (i = 0; i < r->nports; i++)
		if (json_array_append_new(ports, json_integer(r->ports[i])))
			ok = false;
	for (e = 1; e < OBS_ERRNO_SLOTS; e++)
		if (st->errnos[e] && e != EAGAIN_SLOT)
			set(errs, obs_summary_errno_name(e, name, sizeof(name)),
			       json_integer((json_int_t)st->errnos[e]), &ok);
	set(drops, "unresolved_fd", json_integer((json_int_t)ctr[OBS_CTR_DROP_UNRESOLVED]), &ok);
	set(drops, "skipped_runs", json_integer((json_int_t)st->missed), &ok);
	set(drops, "forensics", json_integer((json_int_t)r->lost_forensics), &ok);
	set(drops, "request_timing", json_integer((json_int_t)r->lost_requests_total), &ok);
	set(features, "accept", json_boolean(r->features->accept), &ok);
	set(features, "inet_sock_set_state",
	       r->features->set_state ? json_string(r->features->set_state) : json_null(), &ok);
	set(features, "kernel_reads", json_string(r->features->reads), &ok);

	set(root, "tool", json_string("loadlens-observer"), &ok);
	set(root, "version", json_string(LOADLENS_VERSION), &ok);
	set(root, "ports", ports, &ok);
	ports = NULL;
	set(root, "duration_s", json_real(r->elapsed_s), &ok);
	set(root, "observer_cpu_s", json_real(r->self_cpu_s), &ok);
	set(root, "observer_start_cpu_s", json_real(r->start_cpu_s), &ok);
	set(root, "accepted", json_integer((json_int_t)ctr[OBS_CTR_ACCEPTED]), &ok);
	set(root, "handshakes",
	       r->features->set_state ? json_integer((json_int_t)ctr[OBS_CTR_HANDSHAKES])
				      : json_null(),
	       &ok);
	set(root, "accept_errors_total", json_integer((json_int_t)ctr[OBS_CTR_ACCEPT_ERRORS]),
	       &ok);
	set(root, "accept_eagain", json_integer((json_int_t)ctr[OBS_CTR_ACCEPT_EAGAIN]), &ok);
	set(root, "accept_errors", errs, &ok);
	errs = NULL;
	set(root, "accept_queue_wait",
	    r->features->set_state ? ll_hist_to_json(&conn->wait_total) : json_null(), &ok);
	set(root, "accept_queue_wait_unmatched",
	       json_integer((json_int_t)ctr[OBS_CTR_WAIT_UNMATCHED]), &ok);
	set(root, "accept_calls_seen", json_integer((json_int_t)ctr[OBS_CTR_ACCEPT_CALLS]), &ok);
	set(root, "listen_discarded", json_integer((json_int_t)ctr[OBS_CTR_LISTEN_DISCARD]), &ok);
	set(root, "syscalls", json_pack("{s:s, s:f, s:s?}", "mode",
					   r->syscalls_mode ? r->syscalls_mode : "auto",
					   "attached_share", r->syscalls_share, "held_on_by",
					   r->syscalls_reason), &ok);
	set(root, "drops", json_integer((json_int_t)obs_summary_lost(r, conn)), &ok);
	set(root, "lost_events", json_integer((json_int_t)obs_summary_lost(r, conn)), &ok);
	set(root, "drops_by_reason", drops, &ok);
	drops = NULL;
	set(root, "features", features, &ok);
	features = NULL;

cleanup:
	json_decref(features);
	json_decref(drops);
	json_decref(errs);
	json_decref(ports);
	return ok ? 0 : -ENOMEM;
}
