// SPDX-License-Identifier: MIT
/*
 * loadlens-observer: count what happens to connections on a server's TCP ports, from the kernel,
 * without touching the server. The options, and the interval loop over the features
 * (observer/features/feature.h): the BPF objects come up in observer/kernel/skeletons.c, the
 * findings are decided in observer/rules/, the output is written by observer/output/.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "loadlens/cli.h"
#include "loadlens/parse.h"
#include "connections.h"
#include "findings.h"
#include "forensics.h"
#include "output/ndjson.h"
#include "requests.h"
#include "skeletons.h"
#include "startup.h"

#define PROG "loadlens-observer"
#define NS_PER_S 1000000000ULL

struct obs_args {
	uint16_t ports[OBS_MAX_PORTS];
	size_t nports;
	bool all_ports;
	uint64_t interval_ns;
	uint64_t duration_ns; /* 0: until SIGINT/SIGTERM */
	const char *json_path;
	struct obs_target_spec targets; /* --pid, --children, --cgroup */
	const char *ndjson_path;
	const char *trace_path; /* request timing: sampled per-request CSV */
	uint64_t trace_every;
	bool no_requests; /* --no-requests: request timing (issue 4) off */
	bool runq; /* request timing: run-queue wait of the serving processes */
	enum obs_systier_mode syscalls; /* --syscalls: when the syscall tracepoints are attached */
	bool arrivals_sampled; /* --arrivals sampled: sk_data_ready in windows only */
	uint64_t max_procs;    /* --max-procs: processes whose fds are watched */
	bool verbose;
};

static void x__usage(FILE *out)
{
	fprintf(out,
		PROG " - where requests' time goes and why connections fail, from the kernel (eBPF)\n"
		     "\n"
		     "Usage: " PROG " --port PORT [--port PORT ...] [OPTIONS]\n"
		     "       " PROG " --all-ports [OPTIONS]\n"
		     "\n"
		     "Counts, in the kernel and from tracepoints only: connections accepted, accept-\n"
		     "queue wait and length, listen overflows, resets, sockets per state (TIME_WAIT\n"
		     "included), ephemeral-port pressure, fds against RLIMIT_NOFILE, failures by\n"
		     "errno; and per request, socket-queue wait, service time and residence. Prints a\n"
		     "line per interval, and a summary with plain-language findings on Ctrl-C,\n"
		     "SIGTERM or after --duration. Needs root (or CAP_BPF and CAP_PERFMON); once\n"
		     "attached it keeps only CAP_SYS_PTRACE (to read the targets' /proc fd tables),\n"
		     "and a helper process keeps CAP_BPF and CAP_PERFMON only, to attach the\n"
		     "on-demand programs (--syscalls auto, --arrivals sampled).\n"
		     "\n"
		     "Options:\n"
		     "  -p, --port PORT       TCP port to observe (local port of the listener); repeat\n"
		     "                        for up to %d ports\n"
		     "      --all-ports       observe every TCP port on the host instead\n"
		     "      --pid PID         observe a process (all its threads) and the sockets of\n"
		     "                        its network namespace; repeat for up to 16\n"
		     "      --children        with --pid: the processes it forks too\n"
		     "      --cgroup PATH     observe the processes of a cgroup v2 (and below)\n"
		     "      --ndjson FILE     write one JSON record per interval, and one per finding,\n"
		     "                        to FILE\n"
		     "      --max-procs N     watch the fds of up to N processes (default %d, at most\n"
		     "                        %d); past it a process_cap finding names the first one\n"
		     "                        left out\n"
		     "  -i, --interval DUR    live line period (default 1s; 0 turns live lines off)\n"
		     "  -d, --duration DUR    stop after DUR (default: run until Ctrl-C or SIGTERM)\n"
		     "  -j, --json FILE       write the summary as JSON to FILE (docs/observer.md)\n"
		     "      --trace FILE      write sampled requests (4-tuple, CLOCK_MONOTONIC\n"
		     "                        timestamps of each component) to FILE as CSV\n"
		     "      --trace-every N   sample one request in N per CPU (default 1: all)\n"
		     "      --no-requests     no request timing: only connections, ports and fds\n"
		     "      --runq            also time the run-queue wait of the serving processes'\n"
		     "                        threads (runs on every context switch of the host)\n"
		     "      --syscalls MODE   when to attach the syscall tracepoints (accept-queue\n"
		     "                        wait per connection, failures by syscall): auto (default:\n"
		     "                        one interval in %d, and while fds, ports or the accept\n"
		     "                        queue near a limit), on, off. Any syscall tracepoint slows\n"
		     "                        every syscall of the host; counts never depend on them\n"
		     "      --arrivals MODE   always (default) or sampled: stamp request arrivals\n"
		     "                        (sk_data_ready) one interval in %d only; counts and\n"
		     "                        service times stay exact, queue wait and residence become\n"
		     "                        a sample, and each request costs one event less\n"
		     "  -v, --verbose         show libbpf's log\n"
		     "  -h, --help            show this help\n"
		     "  -V, --version         show the version\n"
		     "\n"
		     "Durations: 250ms, 30s, 2m, 1h; a bare number means seconds.\n"
		     "Findings are printed on stderr the interval they first hold, as\n"
		     "  [HH:MM:SS] fds: python3 (pid 4242) will run out of file descriptors in ~9 s ...\n"
		     "and repeated in the summary with the times they were first and last seen.\n"
		     "\n"
		     "Exit status: 0 ok, 1 runtime failure (an output that could not be written\n"
		     "included), 64 usage error or missing privilege or kernel feature.\n"
		     "\n"
		     "EXAMPLES\n"
		     "  sudo " PROG " --port 8080\n"
		     "  sudo " PROG " -p 80 -p 443 --interval 5s\n"
		     "  sudo " PROG " --port 8000 --duration 30s --json observer.json\n"
		     "  sudo " PROG " --port 8000 --trace requests.csv --trace-every 100\n"
		     "  sudo " PROG " --pid $(pidof nginx) --children --ndjson nginx.ndjson\n"
		     "  sudo " PROG " --port 8080 --syscalls on    # every accept timed\n",
		OBS_MAX_PORTS, OBS_FX_PROCS_DEFAULT, OBS_FX_PROCS_MAX, OBS_SYSTIER_SAMPLE_EVERY,
		OBS_SYSTIER_SAMPLE_EVERY);
}

static void x__add_port(struct obs_args *a, const char *s)
{
	uint64_t v;
	size_t i;

	if (ll_parse_u64(s, 1, 65535, &v))
		ll_usage_error(PROG, "invalid --port '%s' (expected 1-65535)", s);
	for (i = 0; i < a->nports; i++)
		if (a->ports[i] == v)
			return;
	if (a->nports == OBS_MAX_PORTS)
		ll_usage_error(PROG, "too many --port options (at most %d)", OBS_MAX_PORTS);
	a->ports[a->nports++] = (uint16_t)v;
}

static void x__add_pid(struct obs_args *a, const char *s)
{
	uint64_t v;

	if (ll_parse_u64(s, 1, 4194304, &v))
		ll_usage_error(PROG, "invalid --pid '%s' (expected a process id)", s);
	if (a->targets.npids == OBS_MAX_PIDS)
		ll_usage_error(PROG, "too many --pid options (at most %d)", OBS_MAX_PIDS);
	a->targets.pids[a->targets.npids++] = (uint32_t)v;
}

static void x__parse_args(int argc, char **argv, struct obs_args *a)
{
	static const struct option longopts[] = {
		{"port", required_argument, NULL, 'p'},
		{"all-ports", no_argument, NULL, 'A'},
		{"interval", required_argument, NULL, 'i'},
		{"duration", required_argument, NULL, 'd'},
		{"json", required_argument, NULL, 'j'},
		{"pid", required_argument, NULL, 'P'},
		{"children", no_argument, NULL, 'C'},
		{"cgroup", required_argument, NULL, 'G'},
		{"ndjson", required_argument, NULL, 'N'},
		{"trace", required_argument, NULL, 'T'},
		{"trace-every", required_argument, NULL, 'E'},
		{"no-requests", no_argument, NULL, 'Q'},
		{"runq", no_argument, NULL, 'R'},
		{"syscalls", required_argument, NULL, 'S'},
		{"arrivals", required_argument, NULL, 'a'},
		{"max-procs", required_argument, NULL, 'M'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	memset(a, 0, sizeof(*a));
	a->interval_ns = NS_PER_S;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:i:d:j:vhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			x__add_port(a, optarg);
			break;
		case 'A':
			a->all_ports = true;
			break;
		case 'i':
			if (ll_parse_duration(optarg, &a->interval_ns))
				ll_usage_error(PROG, "invalid --interval '%s' (e.g. 1s, 500ms, 0)",
					       optarg);
			break;
		case 'd':
			if (ll_parse_duration(optarg, &a->duration_ns) || !a->duration_ns)
				ll_usage_error(PROG, "invalid --duration '%s' (e.g. 30s, 2m)", optarg);
			break;
		case 'j':
			a->json_path = optarg;
			break;
		case 'T':
			a->trace_path = optarg;
			break;
		case 'E':
			if (ll_parse_u64(optarg, 1, UINT32_MAX, &a->trace_every))
				ll_usage_error(PROG, "invalid --trace-every '%s' (1 or more)", optarg);
			break;
		case 'R':
			a->runq = true;
			break;
		case 'M':
			if (ll_parse_u64(optarg, 1, OBS_FX_PROCS_MAX, &a->max_procs))
				ll_usage_error(PROG, "invalid --max-procs '%s' (1-%d)", optarg,
					       OBS_FX_PROCS_MAX);
			break;
		case 'Q':
			a->no_requests = true;
			break;
		case 'a':
			if (!strcmp(optarg, "sampled"))
				a->arrivals_sampled = true;
			else if (strcmp(optarg, "always"))
				ll_usage_error(PROG, "invalid --arrivals '%s' (always or sampled)", optarg);
			break;
		case 'S': {
			int m = obs_systier_mode_parse(optarg);

			if (m < 0)
				ll_usage_error(PROG, "invalid --syscalls '%s' (auto, on or off)", optarg);
			a->syscalls = (enum obs_systier_mode)m;
			break;
		}
		case 'P':
			x__add_pid(a, optarg);
			break;
		case 'C':
			a->targets.children = true;
			break;
		case 'G':
			a->targets.cgroup = optarg;
			break;
		case 'N':
			a->ndjson_path = optarg;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'h':
			x__usage(stdout);
			exit(LL_EXIT_OK);
		case 'V':
			printf("%s %s\n", PROG, LOADLENS_VERSION);
			exit(LL_EXIT_OK);
		case ':':
			ll_usage_error(PROG, "option '%s' needs a value; see --help", argv[optind - 1]);
		default:
			ll_usage_error(PROG, "unknown option '%s'; see --help", argv[optind - 1]);
		}
	}
	if (optind < argc)
		ll_usage_error(PROG, "unexpected argument '%s'; see --help", argv[optind]);
	if (!a->nports && !a->all_ports && !a->targets.npids && !a->targets.cgroup)
		ll_usage_error(PROG, "nothing to observe: give --port PORT, --pid PID, --cgroup PATH "
				     "or --all-ports");
	if (a->targets.children && !a->targets.npids)
		ll_usage_error(PROG, "--children needs --pid");
	if (a->nports && a->all_ports)
		ll_usage_error(PROG, "--port and --all-ports exclude each other");
	if (a->no_requests && a->trace_path)
		ll_usage_error(PROG, "--trace needs request timing; drop --no-requests");
	if (a->arrivals_sampled && a->no_requests)
		ll_usage_error(PROG, "--arrivals needs request timing; drop --no-requests");
	if (a->arrivals_sampled && !a->interval_ns)
		ll_usage_error(PROG, "--arrivals sampled opens its windows per interval; give --interval");
}

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
			now = x__now_ns();
			if (now >= until)
				return false;
			left = until - now;
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
	struct obs_findings_run *fnd;
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
	};

	r->rt = a->no_requests ? NULL : obs_reqtime_new(PROG, &ropts, obs_kernel_sockets(k));
	if (!r->rt && !a->no_requests && (errno != ENOTSUP || a->trace_path))
		return -errno;
	if (!r->rt)
		obs_reqtime_off(obs_kernel_sockets(k));
	else if (a->arrivals_sampled)
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
	if (obs_targets_resolve(PROG, &a->targets, &r->targets))
		return LL_EXIT_USAGE;
	r->copts.netns = r->targets.netns;
	r->copts.pids = r->targets.pids;
	r->copts.npids = r->targets.npids;
	r->copts.cgroup_id = r->targets.cgroup_id;
	r->copts.cgroup_level = r->targets.cgroup_level;
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
	if (r->rt && (obs_reqtime_start(r->rt, PROG) || !(r->req = obs_requests_new(r->rt))))
		return LL_EXIT_FAIL;
	r->features[r->nfeatures++] = obs_connections_feature(r->cx);
	r->features[r->nfeatures++] = obs_fx_feature(r->fx);
	if (r->req)
		r->features[r->nfeatures++] = obs_requests_feature(r->req);
	return 0;
}

/* One interval: every feature reads and fills its part of the snapshot, the live lines, the
 * rules. final: the last read, after the signal. */
static int x__interval(struct x__run *r, double t, bool final)
{
	struct obs_tick tk = {.t = t, .dt = t - r->t_prev, .final = final};
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
	for (i = 0; !final && i < r->nfeatures; i++)
		if (r->features[i].live)
			r->features[i].live(r->features[i].self, &tk, stdout);
	r->t_prev = t;
	obs_findings_tick(r->fnd);
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
	obs_requests_free(r->req);
	obs_reqtime_free(r->rt);
	obs_systier_free(r->atier);
	obs_fx_free(r->fx);
	obs_findings_run_free(r->fnd);
	obs_ndjson_close(r->nd);
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
	uint64_t start, next = 0, deadline = 0, wake, now;
	char ports[160];
	sigset_t sigs;
	size_t i;
	int err, ret = LL_EXIT_FAIL;

	x__parse_args(argc, argv, &a);
	r.a = &a;

	/* a signal from here on waits for us: it ends the run after attach, with a summary */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	obs_libbpf_log(a.verbose);
	err = obs_startup_check(PROG, OBS_NEED_TRACEFS | OBS_NEED_BPFFS);
	if (err) {
		ret = LL_EXIT_USAGE;
		goto cleanup;
	}
	/* open the outputs while privileged: after the drop, uid 0 has no DAC override */
	if (a.json_path) {
		json_out = fopen(a.json_path, "w");
		if (!json_out) {
			ll_warn(PROG, "cannot create --json file '%s': %s", a.json_path,
				strerror(errno));
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

	err = obs_drop_privileges_keep(x__verify_read, obs_kernel_conn(r.k),
				       obs_fx_keep_caps(r.fx));
	if (err)
		ll_warn(PROG, "note: cannot drop capabilities (%s); running with them",
			strerror(-err));
	obs_startup_cleanup();

	x__ports_line(&a, ports, sizeof(ports));
	ll_warn(PROG, "observing %s in netns of %s (%s; %s%s%s; syscall tier %s); Ctrl-C to stop",
		ports, r.targets.netns_from, obs_conn_attached(obs_kernel_conn(r.k)),
		obs_fx_attached(r.fx), r.rt ? "; requests: " : "",
		r.rt ? obs_reqtime_attached(r.rt) : "",
		obs_systier_mode_name(obs_systier_mode(obs_kernel_systier(r.k))));

	if (a.interval_ns) {
		obs_report_live_header(stdout, obs_fx_live_header());
		next = start + a.interval_ns;
	}
	if (a.duration_ns)
		deadline = start + a.duration_ns;
	for (;;) {
		wake = next;
		if (deadline && (!wake || deadline < wake))
			wake = deadline;
		if (x__wait_signal(&sigs, wake))
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
			next += a.interval_ns;
			if (next <= now)
				next = now + a.interval_ns;
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
