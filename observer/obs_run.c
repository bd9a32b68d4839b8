// SPDX-License-Identifier: MIT
/*
 * One run of the observer brought up and torn down (obs_run.h): outputs, targets, the BPF objects
 * through observer/kernel/skeletons.c, the features' lives up to the first interval, the
 * privilege drop. The feature list itself is main.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loadlens/cli.h"
#include "loadlens/outfile.h"
#include "sources/census.h"
#include "sources/tick_reader.h"
#include "features/processes.h"
#include "rules/findings_run.h"
#include "metrics/metrics_http.h"
#include "metrics/metrics_src.h"
#include "sources/netns.h"
#include "output/ndjson.h"
#include "features/requests.h"
#include "obs_run.h"
#include "kernel/skeletons.h"
#include "kernel/startup.h"
#include "sources/fds.h"

/* A finding's news event, to the --ndjson stream (none: nothing written). */
static int emit_ndjson(void *arg, json_t *ev)
{
	struct obs_ndjson *nd = arg;

	return obs_ndjson_write(nd, ev) ? obs_ndjson_error(nd) : 0;
}

int obs_run_outputs(struct obs_run *r)
{
	const struct obs_args *a = r->args;

	if (a->json_path && !(r->json_out = ll_output_open(PROG, "--json", a->json_path)))
		return LL_EXIT_USAGE;
	if (a->trace_path && !(r->trace_out = ll_output_open(PROG, "--trace", a->trace_path)))
		return LL_EXIT_USAGE;
	if (a->ndjson_path && !(r->ndjson = obs_ndjson_open(PROG, a->ndjson_path)))
		return LL_EXIT_USAGE;
	/* the endpoint is bound at start: a taken or bad address is a usage error */
	if (a->metrics && !(r->metrics_http = obs_mxhttp_new(PROG, a->metrics)))
		return LL_EXIT_USAGE;
	r->findings = obs_findings_run_new(stderr, emit_ndjson, r->ndjson);
	if (!r->findings) {
		ll_warn(PROG, "out of memory");
		return LL_EXIT_FAIL;
	}
	r->snap = obs_findings_snap(r->findings);
	return 0;
}

/* What the read phase reads: the run's objects, and (started) the features'. */
static void reads_set(struct obs_run *r, bool started)
{
	struct obs_reader_opts o = {.prog = PROG, .conn = obs_kernel_conn(r->kernel),
				    .fail = obs_kernel_fail(r->kernel), .census = r->census};

	if (started)
		obs_processes_reads(r->processes, &o);
	if (started && obs_requests_reqtime(r->requests))
		obs_requests_reads(r->requests, &o);
	obs_reader_set(r->reader, &o);
}

int obs_run_open(struct obs_run *r)
{
	const struct obs_args *a = r->args;

	r->sockets_opts.ports = a->ports;
	r->sockets_opts.nports = a->nports;
	r->sockets_opts.no_tp_btf = getenv("LOADLENS_OBSERVER_NO_TP_BTF") != NULL;
	r->sockets_opts.no_kfuncs = a->no_kfuncs;
	if (obs_targets_resolve(PROG, &a->targets, &r->targets))
		return LL_EXIT_USAGE;
	if (a->netns && obs_netns_apply(PROG, a->netns, &r->targets))
		return LL_EXIT_USAGE;
	obs_netns_check_targets(PROG, &r->targets);
	/* tracefs (mounted with a note where missing) once every usage error has been said */
	if (obs_startup_check(PROG, OBS_NEED_TRACEFS))
		return LL_EXIT_USAGE;
	r->sockets_opts.netns = r->targets.netns;
	r->sockets_opts.pids = r->targets.pids;
	r->sockets_opts.npids = r->targets.npids;
	r->sockets_opts.cgroup_id = r->targets.cgroup_id;
	r->sockets_opts.cgroup_level = r->targets.cgroup_level;
	r->sockets_opts.max_targets = a->max_targets;
	r->kernel = obs_kernel_open(PROG, &r->sockets_opts, a->targets.children);
	if (!r->kernel)
		return errno == ENOENT ? LL_EXIT_USAGE : LL_EXIT_FAIL;
	/* one sock_diag context in the target netns, for the census and the listen passes */
	r->census = obs_census_new(PROG, r->targets.netns_fd, a->ports, a->nports);
	if (!r->census)
		ll_warn(PROG, "note: no socket census (%s); TIME_WAIT counts and port pressure are "
			      "off, and accepts are counted at accept()", strerror(errno));
	r->reader = obs_reader_new();
	if (!r->reader) {
		ll_warn(PROG, "out of memory");
		return LL_EXIT_FAIL;
	}
	reads_set(r, false);
	r->census_plan = obs_reader_census_plan(r->reader);
	return 0;
}

void obs_run_add(struct obs_run *r, const struct obs_feature *ops, void *self)
{
	r->features[r->nfeatures] = *ops;
	r->features[r->nfeatures++].self = self;
	r->nowned = r->nfeatures;
}

/* The features' plans, in order: they configure the opened objects before load. */
static int plan_features(void *self, struct obs_kernel *k)
{
	struct obs_run *r = self;
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
static const char *before_attach(void *self, struct obs_kernel *k)
{
	struct obs_run *r = self;

	(void)k;
	return obs_reader_listen_base(r->reader) ? NULL : "no sock_diag";
}

/*
 * Attached: from here an unprivileged uid, with only what fds need where the kernel has no task
 * iterator, no bounding set, no new privileges (docs/observer.md, "Privilege and files"). Before
 * any thread starts (the --trace writer): capabilities, no-new-privs and the bounding set are
 * per thread, and a thread made earlier would keep them.
 */
static int drop_privilege(struct obs_run *r)
{
	struct obs_user user;
	uint64_t caps = 0;
	size_t i;
	int err;

	for (i = 0; i < r->nfeatures; i++)
		if (r->features[i].keep_caps)
			caps |= r->features[i].keep_caps(r->features[i].self);
	obs_startup_unprivileged_user(&user);
	err = obs_startup_drop_to_user(obs_sockets_verify, obs_kernel_conn(r->kernel), caps,
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

/* The processes serving the targets now: --pid targets (and their children with --children),
 * the cgroup's, else the owners of the listening sockets on the target ports. TLS plaintext's
 * uprobes go on the libssl they map. Returns how many. */
static size_t servers(struct obs_run *r, uint32_t *pids, size_t max)
{
	const struct obs_targets *t = &r->targets;
	struct obs_census *cs;
	size_t n = 0;

	if (t->npids) {
		n = t->npids < max ? t->npids : max;
		memcpy(pids, t->pids, n * sizeof(pids[0]));
		if (r->args->targets.children)
			n += obs_targets_pid_descendants(t->pids, t->npids, pids + n, max - n);
		return n;
	}
	if (t->cgroup_id)
		return obs_targets_cgroup_pids(t, pids, max);
	cs = r->census ? calloc(1, sizeof(*cs)) : NULL;
	if (cs && !obs_census_listeners(r->census, cs))
		n = obs_fd_owners(cs->listen_inodes, cs->nlisten, pids, max);
	free(cs);
	return n;
}

int obs_run_start(struct obs_run *r)
{
	const struct obs_args *a = r->args;
	const struct obs_kernel_plan plans[] = {{plan_features, r}};
	struct obs_kernel_start_opts ko = {plans, 1, before_attach, r, a->syscalls};
	size_t i;
	int err;

	for (i = 0; i < r->nfeatures; i++)
		if (!r->features[i].self)
			return LL_EXIT_FAIL; /* out of memory */
	err = obs_kernel_start(r->kernel, &ko);
	if (err)
		return err == -ENOTSUP ? LL_EXIT_USAGE : LL_EXIT_FAIL;
	if (!obs_requests_reqtime(r->requests)) {
		r->nfeatures--; /* request timing off: its plan set the programs at their smallest */
	} else {
		uint32_t pids[OBS_REQUESTS_SERVERS];

		obs_requests_set_servers(r->requests, pids, servers(r, pids, OBS_REQUESTS_SERVERS),
					 r->targets.npids && !a->targets.children);
	}
	for (i = 0; i < r->nfeatures; i++)
		if (r->features[i].start && r->features[i].start(r->features[i].self))
			return LL_EXIT_FAIL;
	err = drop_privilege(r);
	if (err)
		return err;
	for (i = 0; i < r->nfeatures; i++)
		if (r->features[i].start_unprivileged &&
		    r->features[i].start_unprivileged(r->features[i].self))
			return LL_EXIT_FAIL;
	reads_set(r, true);
	if (r->metrics_http) {
		struct obs_mx_src_opts mo = {obs_kernel_conn(r->kernel), r->census,
					     obs_requests_reqtime(r->requests),
					     obs_kernel_fail(r->kernel),
					     r->findings, a->ports, a->nports};

		r->metrics_src = obs_mx_src_new(&mo);
		if (!r->metrics_src)
			return LL_EXIT_FAIL;
		obs_mxhttp_set_src(r->metrics_http, r->metrics_src);
	}
	return 0;
}

void obs_run_free(struct obs_run *r)
{
	size_t i;

	obs_mxhttp_free(r->metrics_http);
	obs_mx_src_free(r->metrics_src);
	for (i = r->nowned; i-- > 0;) {
		if (r->features[i].free)
			r->features[i].free(r->features[i].self);
		else
			free(r->features[i].self);
	}
	obs_findings_run_free(r->findings);
	obs_ndjson_close(r->ndjson);
	if (r->trace_out)
		fclose(r->trace_out);
	if (r->json_out)
		fclose(r->json_out);
	obs_reader_free(r->reader);
	obs_census_free(r->census);
	obs_kernel_free(r->kernel);
	obs_targets_close(&r->targets);
}
