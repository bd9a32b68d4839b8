// SPDX-License-Identifier: MIT
/*
 * loadlens-observer: count what happens to connections on a server's TCP ports, from the kernel,
 * without touching the server. The options, and the interval loop over the features
 * (observer/features/feature.h): the BPF objects come up in observer/kernel/skeletons.c, the
 * findings are decided in observer/rules/, the output is written by observer/output/.
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
#include "findings.h"
#include "forensics.h"
#include "metrics_http.h"
#include "metrics_src.h"
#include "options.h"
#include "payload.h"
#include "output/ndjson.h"
#include "requests.h"
#include "check.h"
#include "skeletons.h"
#include "startup.h"
#include "systier.h"
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

static int x__verify_read(void *arg)
{
	struct obs_conn *c = arg;
	struct obs_conn_stats *st = malloc(sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	err = obs_conn_read(c, st);
	free(st);
	return err;
}

static void x__ports_line(const struct obs_args *a, char *buf, size_t len)
{
	size_t i, off;

	if (!a->nports) {
		snprintf(buf, len, "every tcp port");
		return;
	}
	off = (size_t)snprintf(buf, len, "tcp port%s", a->nports > 1 ? "s" : "");
	for (i = 0; i < a->nports && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? ", " : " ", a->ports[i]);
}

/* What main holds for the run: the objects, the features in order, the findings. */
struct x__run {
	const struct obs_args *a;
	struct obs_targets targets;
	struct obs_conn_opts copts;
	struct obs_kernel *k;
	struct obs_census_ctx *lcen;
	struct obs_connections *cx;
	struct obs_reqtime *rt;
	struct obs_requests *req;
	struct bpf_program *arrival_prog;
	struct obs_systier *atier;
	struct obs_fx *fx;
	struct obs_ndjson *nd;
	FILE *trace_out; /* --trace, until request timing takes it */
	struct obs_findings_run *fnd;
	struct obs_mxhttp *http; /* --metrics */
	struct obs_mx_src *mx;
	struct obs_feature features[3];
	size_t nfeatures;
	double t_prev;
};

/* Request timing's plan: it shares the socket programs, so it configures them before load. */
static int x__plan_requests(void *self, struct obs_kernel *k)
{
	struct x__run *r = self;
	const struct obs_args *a = r->a;
	struct obs_reqtime_opts ropts = {
		.ports = a->ports,
		.nports = a->nports,
		.trace_path = a->trace_path,
		.trace_every = (uint32_t)a->trace_every,
		.runq = a->runq,
		.owned = r->targets.npids || r->targets.cgroup_id,
		.mech = a->rt_mech,
	};

	r->rt = a->no_requests ? NULL : obs_reqtime_new(PROG, &ropts, obs_kernel_sockets(k));
	if (!r->rt && !a->no_requests && (errno != ENOTSUP || a->trace_path))
		return -errno;
	if (!r->rt)
		obs_reqtime_off(obs_kernel_sockets(k));
	else
		obs_payload_plan(obs_kernel_sockets(k), a->payload_off, a->payload_period_us);
	if (r->rt && a->arrivals_sampled)
		r->arrival_prog = obs_reqtime_arrivals_sampled(r->rt);
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
	int err;

	obs_unprivileged_user(&user);
	err = obs_drop_to_user(x__verify_read, obs_kernel_conn(r->k), obs_fx_keep_caps(r->fx),
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

/* Open, plan, load, attach (observer/kernel/skeletons.c), then the features. 0, or the exit
 * status. */
static int x__bring_up(struct x__run *r)
{
	const struct obs_args *a = r->a;
	const struct obs_kernel_plan plans[] = {{x__plan_requests, r}};
	struct obs_kernel_start_opts ko = {plans, 1, x__before_attach, r, a->syscalls};
	struct obs_fx_opts fxo = {};
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
	r->cx = obs_connections_new(PROG, obs_kernel_conn(r->k), r->lcen);
	if (!r->cx)
		return LL_EXIT_FAIL;
	err = obs_kernel_start(r->k, &ko);
	if (err)
		return err == -ENOTSUP ? LL_EXIT_USAGE : LL_EXIT_FAIL;
	fxo.conn = &r->copts;
	fxo.shared = obs_kernel_conn(r->k);
	fxo.fail = obs_kernel_fail(r->k);
	fxo.targets = &r->targets;
	fxo.children = a->targets.children;
	fxo.ndjson = r->nd;
	fxo.max_procs = (unsigned int)a->max_procs;
	fxo.census = r->lcen;
	r->fx = obs_fx_new(PROG, &fxo);
	if (!r->fx)
		return LL_EXIT_FAIL;
	if (r->arrival_prog) {
		/* the same on-demand attaching, without pressure: a window one interval in ten */
		r->atier = obs_systier_new(PROG, OBS_SYSTIER_AUTO, &r->arrival_prog, 1);
		if (!r->atier)
			return LL_EXIT_FAIL;
		obs_systier_on_attach(r->atier, obs_reqtime_arrival_window, r->rt);
	}
	err = x__drop(r);
	if (err)
		return err;
	if (r->rt) {
		err = obs_reqtime_start(r->rt, PROG, r->trace_out);
		r->trace_out = NULL;
		if (err || !(r->req = obs_requests_new(r->rt, obs_kernel_sockets(r->k))))
			return LL_EXIT_FAIL;
	}
	r->features[r->nfeatures++] = obs_connections_feature(r->cx);
	r->features[r->nfeatures++] = obs_fx_feature(r->fx);
	if (r->req)
		r->features[r->nfeatures++] = obs_requests_feature(r->req);
	if (r->http) {
		struct obs_mx_src_opts mo = {obs_kernel_conn(r->k), r->lcen, r->rt,
					     obs_kernel_sockets(r->k), obs_kernel_fail(r->k), r->fx,
					     r->fnd, a->ports, a->nports};

		r->mx = obs_mx_src_new(&mo);
		if (!r->mx)
			return LL_EXIT_FAIL;
		obs_mxhttp_set_src(r->http, r->mx);
	}
	return 0;
}

/* One interval: every feature reads and fills its part of the snapshot, the live lines, the
 * rules. final: the last read, after the signal. */
static int x__interval(struct x__run *r, double t, bool final)
{
	/* an agent (--interval 0, or --metrics) keeps nothing per tick: its memory stays flat */
	struct obs_tick tk = {.t = t, .dt = t - r->t_prev, .final = final,
			      .records = r->a->interval_ns && !r->http};
	struct obs_feature *f;
	size_t i;
	int err;

	tk.snap = obs_findings_snap(r->fnd);
	tk.snap->final = final;
	for (i = 0; i < r->nfeatures; i++) {
		f = &r->features[i];
		err = final ? f->finish(f->self, &tk) : f->tick(f->self, &tk);
		if (err && i == 0)
			return err; /* the others need the connection counters */
		if (err && !obs_ndjson_error(r->nd))
			ll_warn(PROG, "cannot read the %s maps: %s", f->name, strerror(-err));
	}
	for (i = 0; !final && r->a->interval_ns && i < r->nfeatures; i++)
		if (r->features[i].live)
			r->features[i].live(r->features[i].self, &tk, stdout);
	r->t_prev = t;
	obs_findings_tick(r->fnd);
	if (r->mx)
		obs_mx_src_tick(r->mx, tk.snap);
	return 0;
}

/* The summary's figures that span the features: the syscall tier, lost events, duration. */
static void x__report(struct x__run *r, double elapsed)
{
	struct obs_report *rep = obs_connections_report(r->cx);
	struct obs_systier *tier = obs_kernel_systier(r->k);

	rep->syscalls_mode = obs_systier_mode_name(obs_systier_mode(tier));
	rep->syscalls_share = obs_systier_share(tier);
	rep->syscalls_reason = obs_systier_reason(tier);
	if (r->rt && r->atier)
		obs_reqtime_arrival_share(r->rt, obs_systier_share(r->atier));
	rep->ports = r->a->ports;
	rep->nports = r->a->nports;
	rep->features = obs_conn_features(obs_kernel_conn(r->k));
	rep->elapsed_s = elapsed;
	rep->lost_fx = obs_fx_lost(r->fx);
	if (r->req)
		obs_requests_lost(r->req, &rep->lost_rt);
}

/* The JSON summary: each feature's part, then the findings (also under "forensics"). */
static int x__json(struct x__run *r, FILE *out)
{
	json_t *root = json_object(), *fj = NULL;
	size_t i;
	int err = root ? 0 : -ENOMEM;

	for (i = 0; !err && i < r->nfeatures; i++)
		err = r->features[i].json(r->features[i].self, root);
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

static void x__run_free(struct x__run *r)
{
	obs_mxhttp_free(r->http);
	obs_mx_src_free(r->mx);
	obs_requests_free(r->req);
	obs_reqtime_free(r->rt);
	obs_systier_free(r->atier);
	obs_fx_free(r->fx);
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
	struct obs_rt_lost *lrt;
	struct obs_args a;
	FILE *json_out = NULL;
	uint64_t start, next = 0, deadline = 0, wake, now, tick_ns;
	char ports[160];
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

	x__ports_line(&a, ports, sizeof(ports));
	ll_warn(PROG, "observing %s in netns net:[%u] of %s (%s; %s%s%s; syscall tier %s); Ctrl-C "
		"to stop", ports, r.targets.netns, r.targets.netns_from,
		obs_conn_attached(obs_kernel_conn(r.k)), obs_fx_attached(r.fx),
		r.rt ? "; requests: " : "", r.rt ? obs_reqtime_attached(r.rt) : "",
		obs_systier_mode_name(obs_systier_mode(obs_kernel_systier(r.k))));

	if (r.http)
		ll_warn(PROG, "metrics at http://%s/metrics", obs_mxhttp_addr(r.http));
	/* an agent (--interval 0 --metrics): the features tick once a second, without lines */
	tick_ns = a.interval_ns ? a.interval_ns : r.http ? NS_PER_S : 0;
	if (a.interval_ns)
		obs_report_live_header(stdout, obs_fx_live_header());
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
			err = obs_systier_tick(obs_kernel_systier(r.k), obs_fx_pressure(r.fx));
			if (!err && r.atier)
				err = obs_systier_tick(r.atier, NULL);
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
	x__report(&r, (double)(x__now_ns() - start) / NS_PER_S);
	for (i = 0; i < r.nfeatures; i++)
		r.features[i].summary(r.features[i].self, stdout);
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
	lrt = &obs_connections_report(r.cx)->lost_rt;
	if (lrt->trace_write_errors) {
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
