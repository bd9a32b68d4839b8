// SPDX-License-Identifier: MIT
/*
 * loadlens-observer: count what happens to connections on a server's TCP ports, from the kernel,
 * without touching the server. The options, the feature list and the interval loop: the flags
 * are parsed in observer/options.c, the run is brought up in observer/obs_run.c (the BPF objects
 * in observer/kernel/skeletons.c). An interval is one pass down the folders, each once: the read
 * phase (observer/sources/tick_reader.h), the features in one order (observer/features/
 * feature.h), the output from their snapshots (observer/output/), the findings
 * (observer/rules/), the --metrics source (observer/metrics/).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "loadlens/cli.h"
#include "features/connections.h"
#include "features/failures.h"
#include "rules/findings_run.h"
#include "metrics/metrics_http.h"
#include "metrics/metrics_src.h"
#include "features/netstat.h"
#include "options.h"
#include "features/processes.h"
#include "output/interval_out.h"
#include "output/ndjson.h"
#include "output/summary.h"
#include "features/requests.h"
#include "obs_run.h"
#include "features/sockstat.h"
#include "check.h"
#include "kernel/skeletons.h"
#include "kernel/startup.h"
#include "kernel/systier.h"
#include "features/pressure.h"

#define NS_PER_S 1000000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Wait for SIGINT/SIGTERM until the monotonic time `until` (0: forever). True if a signal came. */
static bool wait_signal(const sigset_t *set, uint64_t until)
{
	struct timespec ts;
	uint64_t now, left;
	int sig;

	for (;;) {
		if (!until) {
			sig = sigwaitinfo(set, NULL);
		} else {
			/* past until (a tick overran its interval): still one look at the signals,
			 * else slow ticks would never let SIGINT/SIGTERM in */
			now = now_ns();
			left = now >= until ? 0 : until - now;
			ts.tv_sec = (time_t)(left / NS_PER_S);
			ts.tv_nsec = (long)(left % NS_PER_S);
			sig = sigtimedwait(set, NULL, &ts);
		}
		if (sig > 0)
			return true;
		if (errno == EAGAIN)
			return false;
		/* EINTR (another signal, e.g. SIGCONT): keep waiting */
	}
}

/* The features, in the one order an interval walks them (features/feature.h), made on the opened
 * objects. */
static void features_new(struct obs_run *r)
{
	const struct obs_args *a = r->args;
	struct obs_processes_opts po = {obs_kernel_conn(r->kernel), obs_kernel_fail(r->kernel),
					&r->targets,
					a->targets.children, (unsigned int)a->max_procs};
	struct obs_requests_opts ro = {
		.rt = {.ports = a->ports,
		       .nports = a->nports,
		       .trace_path = a->trace_path,
		       .trace_every = (uint32_t)a->trace_every,
		       .runq = a->runq,
		       .owned = r->targets.npids || r->targets.cgroup_id,
		       .mech = a->rt_mech,
		       .arrivals_sampled = a->arrivals_sampled,
		       .lean = a->lean,
		       .detach = a->detach,
		       .h2_headers = !a->h2_headers_off,
		       .no_tls_uprobes = a->no_tls_uprobes,
		       .h2_frames = (uint32_t)a->h2_frames},
		.off = a->no_requests,
		.payload_off = a->payload_off,
		.payload_period_us = a->payload_period_us,
		.trace_out = r->trace_out,
		.netns_fd = r->targets.netns_fd,
	};

	r->trace_out = NULL;
	obs_run_add(r, &obs_connections_ops,
		    obs_connections_new(PROG, r->kernel, a->ports, a->nports));
	obs_run_add(r, &obs_failures_ops, obs_failures_new(obs_kernel_fail(r->kernel)));
	obs_run_add(r, &obs_sockstat_ops, obs_sockstat_new(r->census));
	r->processes = obs_processes_new(PROG, &po);
	obs_run_add(r, &obs_processes_ops, r->processes);
	obs_run_add(r, &obs_netstat_ops, obs_netstat_new(r->census));
	obs_run_add(r, &obs_pressure_ops, obs_pressure_new(PROG, r->kernel));
	r->requests = obs_requests_new(PROG, &ro);
	obs_run_add(r, &obs_requests_ops, r->requests);
}

/* The outputs, the targets and the BPF objects, the features on them, their start (obs_run.c).
 * 0, or the exit status. */
static int bring_up(struct obs_run *r)
{
	int err = obs_run_outputs(r);

	if (!err)
		err = obs_run_open(r);
	if (!err) {
		features_new(r);
		err = obs_run_start(r);
	}
	return err;
}

/* One interval, one pass down the folders: the read phase reads everything, the features
 * compute from it in order (each fills its part of the rules' snapshot and of the interval
 * record), then the interval record and the live lines, the rules, the --metrics source. final:
 * the last read, after the signal. */
static int interval(struct obs_run *r, double t, bool final)
{
	/* an agent (--interval 0, or --metrics) keeps nothing per tick: its memory stays flat */
	struct obs_tick tk = {.t = t, .dt = t - r->t_prev, .final = final,
			      .records = r->args->interval_ns && !r->metrics_http,
			      .rec = &r->record, .snap = r->snap, .census_plan = r->census_plan};
	int errs[sizeof(r->features) / sizeof(r->features[0])];
	struct timespec now;
	size_t i;
	int err;

	memset(&r->record, 0, sizeof(r->record));
	clock_gettime(CLOCK_REALTIME, &now);
	r->record.time = now.tv_sec + now.tv_nsec / 1e9;
	tk.snap->final = final;
	r->record.snap = tk.snap;
	err = obs_reader_read(r->reader, t, final, &tk.reads);
	if (err)
		return err;
	err = obs_features_tick(r->features, r->nfeatures, &tk, errs);
	if (err)
		return err; /* the others need the connection counters */
	for (i = 0; i < r->nfeatures; i++)
		if (errs[i] && !r->out_err)
			ll_warn(PROG, "cannot read the %s maps: %s", r->features[i].name,
				strerror(-errs[i]));
	r->out_err = obs_interval_out(PROG, &tk, &r->record, r->ndjson,
				      !final && r->args->interval_ns ? stdout : NULL);
	r->t_prev = t;
	r->final_tick = tk;
	r->final_tick.snap = NULL;
	r->final_tick.rec = NULL;
	r->final_tick.reads = NULL;
	r->final_tick.census_plan = NULL;
	if (obs_findings_tick(r->findings, &r->snap))
		r->out_err = -EIO;
	if (r->metrics_src)
		obs_mx_src_tick(r->metrics_src, &tk);
	return 0;
}

/* The JSON summary: each feature's part, then the findings (also under "forensics"). */
static int json(struct obs_run *r, FILE *out)
{
	json_t *root = json_object(), *fj = NULL;
	size_t i;
	int err = root ? 0 : -ENOMEM;

	for (i = 0; !err && i < r->nfeatures; i++)
		if (r->features[i].json)
			err = r->features[i].json(r->features[i].self, &r->final_tick, root);
	if (!err) {
		fj = obs_findings_json(r->findings);
		if (!fj || json_object_set(root, "findings", fj) ||
		    json_object_set(json_object_get(root, "forensics"), "findings", fj))
			err = -ENOMEM;
	}
	errno = 0;
	if (!err && (json_dumpf(root, out, JSON_INDENT(2)) || fputc('\n', out) == EOF))
		err = errno ? -errno : -EIO;
	json_decref(fj);
	json_decref(root);
	return err;
}

/* "accept4 [syscall tier], ...; syscall failures ...; sock_diag census; requests: ..." */
static void attached_line(struct obs_run *r, char *buf, size_t len)
{
	const char *what;
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < r->nfeatures && off < len; i++) {
		what = r->features[i].attached ? r->features[i].attached(r->features[i].self) : NULL;
		if (what)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "; " : "", what);
	}
}

int main(int argc, char **argv)
{
	struct obs_run r = {.targets = {.netns_fd = -1}};
	const struct obs_reqtime_lost *lrt;
	struct obs_args a;
	uint64_t start, next = 0, deadline = 0, wake, now, tick_ns;
	char ports[160], attached[1024];
	sigset_t sigs;
	size_t i;
	int err, ret = LL_EXIT_FAIL;

	obs_args_parse(argc, argv, &a);
	obs_startup_libbpf_log(a.verbose);
	if (a.check)
		return obs_check(stdout, a.check == 2, a.rt_mech);
	r.args = &a;

	/* a signal from here on waits for us: it ends the run after attach, with a summary */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	/* privilege and BTF first; tracefs (which may be mounted, with a note) in obs_run_open, once
	 * the outputs and targets are known good, so a refusal is the only line. No bpffs. */
	err = obs_startup_check(PROG, 0);
	ret = err ? LL_EXIT_USAGE : bring_up(&r);
	if (ret)
		goto cleanup;
	ret = LL_EXIT_FAIL;
	start = now_ns();

	obs_startup_cleanup();

	obs_summary_ports_text(a.ports, a.nports, ports, sizeof(ports));
	attached_line(&r, attached, sizeof(attached));
	ll_warn(PROG, "observing %s in netns net:[%u] of %s (%s; syscall tier %s); Ctrl-C to stop",
		ports, r.targets.netns, r.targets.netns_from, attached,
		obs_systier_mode_name(obs_systier_mode(obs_kernel_systier(r.kernel))));

	if (r.metrics_http)
		ll_warn(PROG, "metrics at http://%s/metrics", obs_mxhttp_addr(r.metrics_http));
	/* an agent (--interval 0): the features tick once a second, without lines, so that its
	 * findings, the syscall tier and the lean hooks are decided while it runs */
	tick_ns = a.interval_ns ? a.interval_ns : NS_PER_S;
	if (a.interval_ns)
		obs_summary_live_header(stdout);
	if (tick_ns)
		next = start + tick_ns;
	if (a.duration_ns)
		deadline = start + a.duration_ns;
	for (;;) {
		wake = next;
		if (deadline && (!wake || deadline < wake))
			wake = deadline;
		if (r.metrics_http ? obs_mxhttp_wait(r.metrics_http, &sigs, wake) :
				     wait_signal(&sigs, wake))
			break;
		now = now_ns();
		if (deadline && now >= deadline)
			break;
		if (next && now >= next) {
			if (interval(&r, (double)(now - start) / NS_PER_S, false))
				goto cleanup;
			next += tick_ns;
			if (next <= now)
				next = now + tick_ns;
		}
	}

	/* the final read: after the signal, so every accept before it is counted */
	if (interval(&r, (double)(now_ns() - start) / NS_PER_S, true))
		goto cleanup;
	for (i = 0; i < r.nfeatures; i++)
		if (r.features[i].summary)
			r.features[i].summary(r.features[i].self, &r.final_tick, stdout);
	fflush(stdout);
	obs_findings_summary(r.findings, stdout);
	if (r.json_out) {
		err = json(&r, r.json_out);
		if (fclose(r.json_out) && !err)
			err = errno ? -errno : -EIO;
		r.json_out = NULL;
		if (err) {
			ll_warn(PROG, "cannot write --json file '%s': %s", a.json_path,
				strerror(-err));
			goto cleanup;
		}
	}
	ret = LL_EXIT_OK;
	/* an output that could not be written fails the run */
	lrt = r.final_tick.req ? &r.final_tick.req->lost : NULL;
	if (lrt && lrt->trace_write_errors) {
		ll_warn(PROG, "cannot write --trace file '%s': %s; %llu records not written",
			a.trace_path, strerror(lrt->trace_errno ? lrt->trace_errno : EIO),
			(unsigned long long)lrt->trace_write_errors);
		ret = LL_EXIT_FAIL;
	}
	err = obs_ndjson_close(r.ndjson);
	r.ndjson = NULL;
	if (err)
		ret = LL_EXIT_FAIL;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		ll_warn(PROG, "cannot write the summary to stdout: %s", strerror(errno ? errno : EIO));
		ret = LL_EXIT_FAIL;
	}

cleanup:
	obs_run_free(&r);
	obs_startup_cleanup();
	return ret;
}
