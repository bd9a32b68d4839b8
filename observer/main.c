// SPDX-License-Identifier: MIT
/*
 * loadlens-observer: count what happens to connections on a server's TCP ports, from the kernel,
 * without touching the server. The interval loop over the features, in one order
 * (observer/features/feature.h): the flags are parsed in observer/options.c, the BPF objects come
 * up in observer/kernel/skeletons.c, the findings are decided in observer/rules/, the output is
 * written by observer/output/ from the features' snapshots.
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
#include "loadlens/outfile.h"
#include "connections.h"
#include "failures.h"
#include "findings.h"
#include "metrics_http.h"
#include "metrics_src.h"
#include "netstat.h"
#include "options.h"
#include "processes.h"
#include "output/interval_record.h"
#include "output/ndjson.h"
#include "output/report.h"
#include "requests.h"
#include "sockstat.h"
#include "check.h"
#include "skeletons.h"
#include "startup.h"
#include "systier.h"
#include "pressure.h"
#include "netns.h"

#define NS_PER_S 1000000000ULL

static uint64_t x__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Wait for SIGINT/SIGTERM until the monotonic time `until` (0: forever). True if a signal came. */
static bool x__wait_signal(const sigset_t *set, uint64_t until)
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
			now = x__now_ns();
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

/* What main holds for the run: the objects, the features in order, the findings. */
struct x__run {
	const struct obs_args *a;
	struct obs_targets targets;
	struct obs_sockets_opts copts;
	struct obs_kernel *k;
	struct obs_census_ctx *lcen;
	struct obs_connections *cx;
	struct obs_failures *fail;
	struct obs_sockstat *sockstat;
	struct obs_processes *procs;
	struct obs_netstat_feature *netstat;
	struct obs_requests *req;
	struct obs_ndjson *nd;
	FILE *trace_out; /* --trace, until request timing takes it */
	struct obs_findings_run *fnd;
	struct obs_mxhttp *http; /* --metrics */
	struct obs_mx_src *mx;
	struct obs_feature features[6];
	size_t nfeatures;
	struct obs_record rec; /* the interval record's snapshot */
	struct obs_tick last;	    /* the final tick: every feature's last snapshot */
	double t_prev;
};

/* The features' plans, in order: they configure the opened objects before load. */
static int plan_features(void *self, struct obs_kernel *k)
{
	struct x__run *r = self;
	size_t i;
	int err;

	for (i = 0; i < r->nfeatures; i++) {
		if (!r->features[i].plan)
			continue;
		err = r->features[i].plan(r->features[i].self, k);
		if (err)
			return err;
	}
	return 0;
}

/* After load, before attach: the listen queues are the base of the accepted count. */
static const char *x__before_attach(void *self, struct obs_kernel *k)
{
	struct x__run *r = self;

	(void)k;
	return obs_connections_base(r->cx);
}

/*
 * Attached: from here an unprivileged uid, with only what fds need where the kernel has no task
 * iterator, no bounding set, no new privileges (docs/observer.md, "Privilege and files"). Before
 * any thread starts (the --trace writer): capabilities, no-new-privs and the bounding set are
 * per thread, and a thread made earlier would keep them.
 */
static int x__drop(struct x__run *r)
{
	struct obs_user user;
	uint64_t caps = 0;
	size_t i;
	int err;

	for (i = 0; i < r->nfeatures; i++)
		if (r->features[i].keep_caps)
			caps |= r->features[i].keep_caps(r->features[i].self);
	obs_unprivileged_user(&user);
	err = obs_drop_to_user(obs_sockets_verify, obs_kernel_conn(r->k), caps,
			       geteuid() ? NULL : &user); /* not root: a user of its own already */
	if (err == 1) {
		ll_warn(PROG, "note: this kernel checks privilege on every map read; running "
			      "as root with the capabilities");
	} else if (err) {
		ll_warn(PROG, "cannot change to user %s and drop capabilities: %s", user.name,
			strerror(-err));
		return LL_EXIT_FAIL;
	}
	return 0;
}

static void add_feature(struct x__run *r, const struct obs_feature *ops, void *self)
{
	r->features[r->nfeatures] = *ops;
	r->features[r->nfeatures++].self = self;
}

/* The features, in the one order an interval walks them (features/feature.h). */
static int features_new(struct x__run *r)
{
	const struct obs_args *a = r->a;
	struct obs_processes_opts po = {obs_kernel_conn(r->k), obs_kernel_fail(r->k), &r->targets,
					a->targets.children, (unsigned int)a->max_procs};
	struct obs_requests_opts ro = {
		.rt = {.ports = a->ports,
		       .nports = a->nports,
		       .trace_path = a->trace_path,
		       .trace_every = (uint32_t)a->trace_every,
		       .runq = a->runq,
		       .owned = r->targets.npids || r->targets.cgroup_id,
		       .mech = a->rt_mech,
		       .arrivals_sampled = a->arrivals_sampled},
		.off = a->no_requests,
		.payload_off = a->payload_off,
		.payload_period_us = a->payload_period_us,
		.trace_out = r->trace_out,
	};

	r->trace_out = NULL;
	r->cx = obs_connections_new(PROG, r->k, r->lcen, a->ports, a->nports);
	r->fail = obs_failures_new(obs_kernel_fail(r->k));
	r->sockstat = obs_sockstat_new(obs_kernel_conn(r->k), r->lcen);
	r->procs = obs_processes_new(PROG, &po);
	r->netstat = obs_netstat_new(r->lcen);
	r->req = obs_requests_new(PROG, &ro);
	if (!r->cx || !r->fail || !r->sockstat || !r->procs || !r->netstat || !r->req)
		return -ENOMEM;
	add_feature(r, &obs_connections_ops, r->cx);
	add_feature(r, &obs_failures_ops, r->fail);
	add_feature(r, &obs_sockstat_ops, r->sockstat);
	add_feature(r, &obs_processes_ops, r->procs);
	add_feature(r, &obs_netstat_ops, r->netstat);
	add_feature(r, &obs_requests_ops, r->req);
	return 0;
}

/* Open, plan, load, attach (observer/kernel/skeletons.c), start the features, drop privilege.
 * 0, or the exit status. */
static int x__bring_up(struct x__run *r)
{
	const struct obs_args *a = r->a;
	const struct obs_kernel_plan plans[] = {{plan_features, r}};
	struct obs_kernel_start_opts ko = {plans, 1, x__before_attach, r, a->syscalls};
	size_t i;
	int err;

	r->copts.ports = a->ports;
	r->copts.nports = a->nports;
	r->copts.no_tp_btf = getenv("LOADLENS_OBSERVER_NO_TP_BTF") != NULL;
	r->copts.no_kfuncs = a->no_kfuncs;
	if (obs_targets_resolve(PROG, &a->targets, &r->targets))
		return LL_EXIT_USAGE;
	if (a->netns && obs_netns_apply(PROG, a->netns, &r->targets))
		return LL_EXIT_USAGE;
	obs_netns_check_targets(PROG, &r->targets);
	/* tracefs (mounted with a note where missing) once every usage error has been said */
	if (obs_startup_check(PROG, OBS_NEED_TRACEFS))
		return LL_EXIT_USAGE;
	r->copts.netns = r->targets.netns;
	r->copts.pids = r->targets.pids;
	r->copts.npids = r->targets.npids;
	r->copts.cgroup_id = r->targets.cgroup_id;
	r->copts.cgroup_level = r->targets.cgroup_level;
	r->copts.max_targets = a->max_targets;
	r->k = obs_kernel_open(PROG, &r->copts, a->targets.children);
	if (!r->k)
		return errno == ENOENT ? LL_EXIT_USAGE : LL_EXIT_FAIL;
	/* one sock_diag context in the target netns, for the census and the listen passes */
	r->lcen = obs_census_new(PROG, r->targets.netns_fd, a->ports, a->nports);
	if (!r->lcen)
		ll_warn(PROG, "note: no socket census (%s); TIME_WAIT counts and port pressure are "
			      "off, and accepts are counted at accept()", strerror(errno));
	if (features_new(r))
		return LL_EXIT_FAIL;
	err = obs_kernel_start(r->k, &ko);
	if (err)
		return err == -ENOTSUP ? LL_EXIT_USAGE : LL_EXIT_FAIL;
	if (!obs_requests_reqtime(r->req))
		r->nfeatures--; /* request timing off: its plan set the programs at their smallest */
	for (i = 0; i < r->nfeatures; i++)
		if (r->features[i].start && r->features[i].start(r->features[i].self))
			return LL_EXIT_FAIL;
	err = x__drop(r);
	if (err)
		return err;
	for (i = 0; i < r->nfeatures; i++)
		if (r->features[i].start_unprivileged &&
		    r->features[i].start_unprivileged(r->features[i].self))
			return LL_EXIT_FAIL;
	if (r->http) {
		struct obs_mx_src_opts mo = {obs_kernel_conn(r->k), r->lcen,
					     obs_requests_reqtime(r->req), obs_kernel_fail(r->k),
					     r->fnd, a->ports, a->nports};

		r->mx = obs_mx_src_new(&mo);
		if (!r->mx)
			return LL_EXIT_FAIL;
		obs_mxhttp_set_src(r->http, r->mx);
	}
	return 0;
}

/* One interval: every feature reads, publishes its snapshot and fills its part of the rules'
 * one, in order; then the interval record, the live lines, the rules. final: the last read,
 * after the signal. */
static int x__interval(struct x__run *r, double t, bool final)
{
	/* an agent (--interval 0, or --metrics) keeps nothing per tick: its memory stays flat */
	struct obs_tick tk = {.t = t, .dt = t - r->t_prev, .final = final,
			      .records = r->a->interval_ns && !r->http, .rec = &r->rec};
	struct timespec now;
	struct obs_feature *f;
	json_t *rec;
	size_t i;
	int err;

	memset(&r->rec, 0, sizeof(r->rec));
	clock_gettime(CLOCK_REALTIME, &now);
	r->rec.time = now.tv_sec + now.tv_nsec / 1e9;
	r->rec.t = t;
	r->rec.dt = tk.dt;
	tk.snap = obs_findings_snap(r->fnd);
	tk.snap->final = final;
	for (i = 0; i < r->nfeatures; i++) {
		f = &r->features[i];
		err = final && f->finish ? f->finish(f->self, &tk) : f->tick(f->self, &tk);
		if (err && i == 0)
			return err; /* the others need the connection counters */
		if (err && !obs_ndjson_error(r->nd))
			ll_warn(PROG, "cannot read the %s maps: %s", f->name, strerror(-err));
	}
	if (r->nd) {
		rec = obs_record_json(&r->rec);
		err = rec ? obs_ndjson_write(r->nd, rec) : -ENOMEM;
		json_decref(rec);
		if (err && !obs_ndjson_error(r->nd))
			ll_warn(PROG, "cannot write the interval record: %s", strerror(-err));
	}
	if (!final && r->a->interval_ns) {
		obs_report_live_line(stdout, &tk);
		for (i = 0; i < r->nfeatures; i++)
			if (r->features[i].live)
				r->features[i].live(r->features[i].self, &tk, stdout);
	}
	r->t_prev = t;
	r->last = tk;
	r->last.snap = NULL;
	r->last.rec = NULL;
	obs_findings_tick(r->fnd);
	if (r->mx)
		obs_mx_src_tick(r->mx, &tk);
	return 0;
}

/* The JSON summary: each feature's part, then the findings (also under "forensics"). */
static int x__json(struct x__run *r, FILE *out)
{
	json_t *root = json_object(), *fj = NULL;
	size_t i;
	int err = root ? 0 : -ENOMEM;

	for (i = 0; !err && i < r->nfeatures; i++)
		if (r->features[i].json)
			err = r->features[i].json(r->features[i].self, &r->last, root);
	if (!err) {
		fj = obs_findings_json(r->fnd);
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
static void attached_line(struct x__run *r, char *buf, size_t len)
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

static void x__run_free(struct x__run *r)
{
	obs_mxhttp_free(r->http);
	obs_mx_src_free(r->mx);
	obs_requests_free(r->req);
	obs_netstat_free(r->netstat);
	obs_processes_free(r->procs);
	obs_sockstat_free(r->sockstat);
	obs_failures_free(r->fail);
	obs_findings_run_free(r->fnd);
	obs_ndjson_close(r->nd);
	if (r->trace_out)
		fclose(r->trace_out);
	obs_connections_free(r->cx);
	obs_census_free(r->lcen);
	obs_kernel_free(r->k);
	obs_targets_close(&r->targets);
}

int main(int argc, char **argv)
{
	struct x__run r = {.targets = {.netns_fd = -1}};
	const struct obs_reqtime_lost *lrt;
	struct obs_args a;
	FILE *json_out = NULL;
	uint64_t start, next = 0, deadline = 0, wake, now, tick_ns;
	char ports[160], attached[1024];
	sigset_t sigs;
	size_t i;
	int err, ret = LL_EXIT_FAIL;

	obs_args_parse(argc, argv, &a);
	obs_libbpf_log(a.verbose);
	if (a.check)
		return obs_check(stdout, a.check == 2, a.rt_mech);
	r.a = &a;

	/* a signal from here on waits for us: it ends the run after attach, with a summary */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	/* privilege and BTF first; tracefs (which may be mounted, with a note) in x__bring_up, once
	 * the outputs and targets are known good, so a refusal is the only line. No bpffs. */
	err = obs_startup_check(PROG, 0);
	if (err) {
		ret = LL_EXIT_USAGE;
		goto cleanup;
	}
	/* open the outputs before the uid changes, never through a link (loadlens/outfile.h) */
	if (a.json_path) {
		json_out = ll_output_open(PROG, "--json", a.json_path);
		if (!json_out) {
			ret = LL_EXIT_USAGE;
			goto cleanup;
		}
	}
	if (a.trace_path) {
		r.trace_out = ll_output_open(PROG, "--trace", a.trace_path);
		if (!r.trace_out) {
			ret = LL_EXIT_USAGE;
			goto cleanup;
		}
	}
	if (a.ndjson_path) {
		r.nd = obs_ndjson_open(PROG, a.ndjson_path);
		if (!r.nd) {
			ret = LL_EXIT_USAGE;
			goto cleanup;
		}
	}
	/* the endpoint is bound at start: a taken or bad address is a usage error */
	if (a.metrics && !(r.http = obs_mxhttp_new(PROG, a.metrics))) {
		ret = LL_EXIT_USAGE;
		goto cleanup;
	}
	r.fnd = obs_findings_run_new(stderr, r.nd);
	if (!r.fnd) {
		ll_warn(PROG, "out of memory");
		goto cleanup;
	}
	err = x__bring_up(&r);
	if (err) {
		ret = err;
		goto cleanup;
	}
	start = x__now_ns();

	obs_startup_cleanup();

	obs_report_ports_text(a.ports, a.nports, ports, sizeof(ports));
	attached_line(&r, attached, sizeof(attached));
	ll_warn(PROG, "observing %s in netns net:[%u] of %s (%s; syscall tier %s); Ctrl-C to stop",
		ports, r.targets.netns, r.targets.netns_from, attached,
		obs_systier_mode_name(obs_systier_mode(obs_kernel_systier(r.k))));

	if (r.http)
		ll_warn(PROG, "metrics at http://%s/metrics", obs_mxhttp_addr(r.http));
	/* an agent (--interval 0 --metrics): the features tick once a second, without lines */
	tick_ns = a.interval_ns ? a.interval_ns : r.http ? NS_PER_S : 0;
	if (a.interval_ns)
		obs_report_live_header(stdout);
	if (tick_ns)
		next = start + tick_ns;
	if (a.duration_ns)
		deadline = start + a.duration_ns;
	for (;;) {
		wake = next;
		if (deadline && (!wake || deadline < wake))
			wake = deadline;
		if (r.http ? obs_mxhttp_wait(r.http, &sigs, wake) : x__wait_signal(&sigs, wake))
			break;
		now = x__now_ns();
		if (deadline && now >= deadline)
			break;
		if (next && now >= next) {
			if (x__interval(&r, (double)(now - start) / NS_PER_S, false))
				goto cleanup;
			err = obs_systier_tick(obs_kernel_systier(r.k), obs_pressure(&r.last));
			if (err)
				ll_warn(PROG, "note: cannot switch the syscall tracepoints: %s",
					strerror(-err));
			next += tick_ns;
			if (next <= now)
				next = now + tick_ns;
		}
	}

	/* the final read: after the signal, so every accept before it is counted */
	if (x__interval(&r, (double)(x__now_ns() - start) / NS_PER_S, true))
		goto cleanup;
	for (i = 0; i < r.nfeatures; i++)
		if (r.features[i].summary)
			r.features[i].summary(r.features[i].self, &r.last, stdout);
	fflush(stdout);
	obs_findings_summary(r.fnd, stdout);
	if (json_out) {
		err = x__json(&r, json_out);
		if (fclose(json_out) && !err)
			err = errno ? -errno : -EIO;
		json_out = NULL;
		if (err) {
			ll_warn(PROG, "cannot write --json file '%s': %s", a.json_path,
				strerror(-err));
			goto cleanup;
		}
	}
	ret = LL_EXIT_OK;
	/* an output that could not be written fails the run */
	lrt = r.last.req ? &r.last.req->lost : NULL;
	if (lrt && lrt->trace_write_errors) {
		ll_warn(PROG, "cannot write --trace file '%s': %s; %llu records not written",
			a.trace_path, strerror(lrt->trace_errno ? lrt->trace_errno : EIO),
			(unsigned long long)lrt->trace_write_errors);
		ret = LL_EXIT_FAIL;
	}
	err = obs_ndjson_close(r.nd);
	r.nd = NULL;
	if (err)
		ret = LL_EXIT_FAIL;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		ll_warn(PROG, "cannot write the summary to stdout: %s", strerror(errno ? errno : EIO));
		ret = LL_EXIT_FAIL;
	}

cleanup:
	if (json_out)
		fclose(json_out);
	x__run_free(&r);
	obs_startup_cleanup();
	return ret;
}
