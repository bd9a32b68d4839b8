// SPDX-License-Identifier: MIT
/* The observer's options: usage text, parsing and the checks between options. */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "loadlens/h2.h"
#include "loadlens/parse.h"
#include "features/processes.h"
#include "metrics/metrics_http.h"
#include "options.h"

#define NS_PER_S 1000000000ULL
/* Shorter ticks would spend the observer's time reading maps and walking sockets (a busy loop
 * at 1ns); longer ones would hide what happens in them. */
#define OBS_INTERVAL_MIN_NS (100 * 1000000ULL) /* 100ms */
#define OBS_INTERVAL_MAX_NS (3600 * NS_PER_S)	/* 1h */

/* A path option's value: a name, never an empty string (which fails only after the start). */
static const char *options_path(const char *opt, const char *v)
{
	if (!*v)
		ll_usage_error(PROG, "invalid %s '': expected a path", opt);
	return v;
}

/* An option that only sets a path (name: the flag, for the error) or a flag: one row each. */
struct opt_set {
	int opt;
	const char *name;
	const char **path;
	bool *flag;
};

/* True if opt is one of the n rows, its value set. */
static bool set_simple(const struct opt_set *rows, size_t n, int opt, const char *v)
{
	size_t i;

	for (i = 0; i < n && rows[i].opt != opt; i++)
		;
	if (i == n)
		return false;
	if (rows[i].path)
		*rows[i].path = options_path(rows[i].name, v);
	else
		*rows[i].flag = true;
	return true;
}

static void options_usage(FILE *out)
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
		     "attached it runs as the user loadlens (else nobody) with no capability, an\n"
		     "empty bounding set and no-new-privs; a helper process, as that user too,\n"
		     "keeps CAP_BPF and CAP_PERFMON only, to attach the on-demand programs\n"
		     "(--syscalls auto, --arrivals sampled). Output files are opened first, never\n"
		     "through a symbolic link; a tracefs it must mount is its own, gone at exit.\n"
		     "\n"
		     "Options:\n"
		     "  -p, --port PORT       TCP port to observe (local port of the listener); repeat\n"
		     "                        for up to %d ports\n"
		     "      --all-ports       observe every TCP port on the host instead\n"
		     "      --pid PID         observe a process (all its threads) and, without --port,\n"
		     "                        time only its own sockets' requests; repeat for up to 16\n"
		     "      --children        with --pid: its descendants too, those running at the\n"
		     "                        start (a cluster's workers) and those it forks later\n"
		     "      --cgroup PATH     observe the processes of a cgroup v2 (and below)\n"
		     "      --netns PATH|PID  watch this network namespace (default: the first\n"
		     "                        target's, else the observer's own)\n"
		     "      --ndjson FILE     write one JSON record per interval, and one per finding,\n"
		     "                        to FILE\n"
		     "      --max-procs N     watch the fds of up to N processes (default %d, at most\n"
		     "                        %d); past it a process_cap finding names the first one\n"
		     "                        left out\n"
		     "  -i, --interval DUR    live line period, 100ms to 1h (default 1s; 0 turns live\n"
		     "                        lines off, the agent's mode: the features still tick\n"
		     "                        once a second, and findings are said as they hold)\n"
		     "      --metrics ADDR:PORT  serve /metrics for Prometheus (text format, or\n"
		     "                        OpenMetrics when asked) on ADDR:PORT; a bare PORT binds\n"
		     "                        127.0.0.1, another address only when given\n"
		     "  -d, --duration DUR    stop after DUR, 100ms or more (default: run until Ctrl-C\n"
		     "                        or SIGTERM)\n"
		     "  -j, --json FILE       write the summary as JSON to FILE (docs/observer.md)\n"
		     "      --trace FILE      write sampled requests (4-tuple, CLOCK_MONOTONIC\n"
		     "                        timestamps of each component) to FILE as CSV;\n"
		     "                        every hook stays (--lean auto is off with it)\n"
		     "      --trace-every N   sample one request in N per CPU (default 1: all)\n"
		     "      --no-requests     no request timing: only connections, ports and fds\n"
		     "      --runq            also time the run-queue wait of the serving processes'\n"
		     "                        threads (runs on every context switch of the host)\n"
		     "      --syscalls MODE   when to attach the syscall tracepoints (accept-queue\n"
		     "                        wait per connection, failures by syscall): auto (default:\n"
		     "                        250 ms of one interval in %d, and while fds, ports or the\n"
		     "                        accept queue near a limit), on, off. Any syscall\n"
		     "                        tracepoint slows every syscall of the host; counts\n"
		     "                        never depend on them\n"
		     "      --arrivals MODE   always (default) or sampled: stamp request arrivals\n"
		     "                        (sk_data_ready) one interval in %d only (a second in\n"
		     "                        %d with --interval 0); counts and service times stay\n"
		     "                        exact, queue wait and residence become a sample, and\n"
		     "                        each request costs one event less\n"
		     "      --lean MODE       when plain TCP requests are read at tcp_rcv_space_adjust\n"
		     "                        instead of sk_data_ready + sock_recv_length (one event\n"
		     "                        less a request): auto (default: from the first interval\n"
		     "                        of plain TCP requests only, until TLS, HTTP/2, UDP or\n"
		     "                        pipelining shows, and with --port sock_send_length\n"
		     "                        too: one event a request; after %d such intervals\n"
		     "                        where the first read several client writes), on, off\n"
		     "  -v, --verbose         show libbpf's log\n"
		     "      --check[=json]    what this kernel offers the observer (privilege, BTF,\n"
		     "                        each tracepoint its programs attach to), then exit\n"
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
		     "  sudo " PROG " --port 8080 --syscalls on    # every accept timed\n"
		     "  sudo " PROG " --port 8080 --interval 0 --metrics 9435   # agent for Prometheus\n",
		OBS_MAX_PORTS, OBS_PROCS_DEFAULT, OBS_PROCS_MAX, OBS_SYSTIER_SAMPLE_EVERY,
		OBS_SYSTIER_SAMPLE_EVERY, OBS_SYSTIER_SAMPLE_EVERY, OBS_LEAN_AFTER);
}

static void add_port(struct obs_args *a, const char *s)
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

static void add_pid(struct obs_args *a, const char *s)
{
	uint64_t v;

	if (ll_parse_u64(s, 1, 4194304, &v))
		ll_usage_error(PROG, "invalid --pid '%s' (expected a process id)", s);
	if (a->targets.npids == OBS_MAX_PIDS)
		ll_usage_error(PROG, "too many --pid options (at most %d)", OBS_MAX_PIDS);
	a->targets.pids[a->targets.npids++] = (uint32_t)v;
}

/* LOADLENS_OBSERVER_DETACH's "arrival", "send" or both, comma-separated: 0, or -1 for anything
 * else */
static int detach_parse(const char *v, unsigned int *mask)
{
	char buf[32], *tok, *save = NULL;

	*mask = 0;
	if (strlen(v) >= sizeof(buf))
		return -1;
	strcpy(buf, v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "arrival"))
			*mask |= OBS_REQTIME_DETACH_ARRIVAL;
		else if (!strcmp(tok, "send"))
			*mask |= OBS_REQTIME_DETACH_SEND;
		else
			return -1;
	}
	return *mask ? 0 : -1;
}

/* The environment's switches (docs/observer.md), parsed with the flags: a bad value is a usage
 * error, never silently ignored. */
static void parse_env(struct obs_args *a)
{
	const char *v;
	uint64_t n;

	v = getenv("LOADLENS_OBSERVER_PAYLOAD");
	if (v && strcmp(v, "off") && strcmp(v, "on"))
		ll_usage_error(PROG, "invalid LOADLENS_OBSERVER_PAYLOAD '%s' (expected off or on)", v);
	a->payload_off = v && !strcmp(v, "off");
	v = getenv("LOADLENS_OBSERVER_H2_HEADERS");
	if (v && strcmp(v, "off") && strcmp(v, "on"))
		ll_usage_error(PROG, "invalid LOADLENS_OBSERVER_H2_HEADERS '%s' (expected off or on)",
			       v);
	a->h2_headers_off = v && !strcmp(v, "off");
	a->payload_period_us = -1;
	v = getenv("LOADLENS_OBSERVER_PAYLOAD_PERIOD_US");
	if (v && ll_parse_u64(v, 0, 60000000, &n))
		ll_usage_error(PROG, "invalid LOADLENS_OBSERVER_PAYLOAD_PERIOD_US '%s' (expected "
				     "0-60000000 microseconds)", v);
	if (v)
		a->payload_period_us = (int64_t)n;
	v = getenv("LOADLENS_OBSERVER_TIMING");
	if (v && strcmp(v, "auto") && strcmp(v, "tracepoints") && strcmp(v, "fentry"))
		ll_usage_error(PROG, "invalid LOADLENS_OBSERVER_TIMING '%s' (expected auto, "
				     "tracepoints or fentry)", v);
	a->rt_mech = !v || !strcmp(v, "auto") ? OBS_REQTIME_MECH_OFF
		     : !strcmp(v, "fentry")   ? OBS_REQTIME_MECH_FENTRY
					      : OBS_REQTIME_MECH_TRACEPOINT;
	v = getenv("LOADLENS_OBSERVER_KFUNCS");
	if (v && strcmp(v, "auto") && strcmp(v, "off"))
		ll_usage_error(PROG, "invalid LOADLENS_OBSERVER_KFUNCS '%s' (expected auto or off)", v);
	a->no_kfuncs = v && !strcmp(v, "off");
	v = getenv("LOADLENS_OBSERVER_DETACH");
	if (v && detach_parse(v, &a->detach))
		ll_usage_error(PROG, "invalid LOADLENS_OBSERVER_DETACH '%s' (expected arrival, send "
				     "or arrival,send)", v);
	v = getenv("LOADLENS_OBSERVER_H2_FRAMES");
	if (v && ll_parse_u64(v, 1, LL_H2_FRAMES, &a->h2_frames))
		ll_usage_error(PROG, "invalid LOADLENS_OBSERVER_H2_FRAMES '%s' (expected 1-%d)", v,
			       LL_H2_FRAMES);
	v = getenv("LOADLENS_OBSERVER_MAX_TARGETS");
	if (v && ll_parse_u64(v, 1, OBS_MAX_TARGETS, &a->max_targets))
		ll_usage_error(PROG, "invalid LOADLENS_OBSERVER_MAX_TARGETS '%s' (expected 1-%d)", v,
			       OBS_MAX_TARGETS);
}

void obs_args_parse(int argc, char **argv, struct obs_args *a)
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
		{"lean", required_argument, NULL, 'L'},
		{"max-procs", required_argument, NULL, 'M'},
		{"netns", required_argument, NULL, 'n'},
		{"check", optional_argument, NULL, 'K'},
		{"metrics", required_argument, NULL, 'm'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const struct opt_set simple[] = {
		{'j', "--json", &a->json_path, NULL},
		{'T', "--trace", &a->trace_path, NULL},
		{'G', "--cgroup", &a->targets.cgroup, NULL},
		{'N', "--ndjson", &a->ndjson_path, NULL},
		{'n', "--netns", &a->netns, NULL},
		{'A', NULL, NULL, &a->all_ports},
		{'R', NULL, NULL, &a->runq},
		{'Q', NULL, NULL, &a->no_requests},
		{'C', NULL, NULL, &a->targets.children},
		{'v', NULL, NULL, &a->verbose},
	};
	int opt;

	memset(a, 0, sizeof(*a));
	a->interval_ns = NS_PER_S;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:i:d:j:vhV", longopts, NULL)) != -1) {
		if (set_simple(simple, sizeof(simple) / sizeof(simple[0]), opt, optarg))
			continue;
		switch (opt) {
		case 'p':
			add_port(a, optarg);
			break;
		case 'i':
			if (ll_parse_duration(optarg, &a->interval_ns) ||
			    (a->interval_ns && (a->interval_ns < OBS_INTERVAL_MIN_NS ||
						a->interval_ns > OBS_INTERVAL_MAX_NS)))
				ll_usage_error(PROG, "invalid --interval '%s' (100ms to 1h, e.g. 1s, "
					       "500ms; 0 for no live lines)", optarg);
			break;
		case 'd':
			if (ll_parse_duration(optarg, &a->duration_ns) ||
			    a->duration_ns < OBS_INTERVAL_MIN_NS)
				ll_usage_error(PROG, "invalid --duration '%s' (100ms or more, e.g. 30s, "
					       "2m)", optarg);
			break;
		case 'E':
			if (ll_parse_u64(optarg, 1, UINT32_MAX, &a->trace_every))
				ll_usage_error(PROG, "invalid --trace-every '%s' (1 or more)", optarg);
			break;
		case 'M':
			if (ll_parse_u64(optarg, 1, OBS_PROCS_MAX, &a->max_procs))
				ll_usage_error(PROG, "invalid --max-procs '%s' (1-%d)", optarg,
					       OBS_PROCS_MAX);
			break;
		case 'm': {
			struct sockaddr_storage ss;
			socklen_t len;
			char why[160];
			bool loop;

			if (obs_mxhttp_parse(optarg, &ss, &len, &loop, why, sizeof(why)))
				ll_usage_error(PROG, "invalid --metrics '%s': %s", optarg, why);
			/* port 0 would serve on a port nobody is told of */
			if (!ntohs(((struct sockaddr_in *)&ss)->sin_port))
				ll_usage_error(PROG, "invalid --metrics '%s': port 0 (give a port "
					       "from 1 to 65535, e.g. 9435)", optarg);
			a->metrics = optarg;
			break;
		}
		case 'a':
			if (!strcmp(optarg, "sampled"))
				a->arrivals_sampled = true;
			else if (strcmp(optarg, "always"))
				ll_usage_error(PROG, "invalid --arrivals '%s' (always or sampled)", optarg);
			break;
		case 'L': {
			int m = obs_lean_mode_parse(optarg);

			if (m < 0)
				ll_usage_error(PROG, "invalid --lean '%s' (auto, on or off)", optarg);
			a->lean = (enum obs_lean_mode)m;
			break;
		}
		case 'S': {
			int m = obs_systier_mode_parse(optarg);

			if (m < 0)
				ll_usage_error(PROG, "invalid --syscalls '%s' (auto, on or off)", optarg);
			a->syscalls = (enum obs_systier_mode)m;
			break;
		}
		case 'P':
			add_pid(a, optarg);
			break;
		case 'K':
			if (optarg && strcmp(optarg, "json"))
				ll_usage_error(PROG, "--check takes no value or =json");
			a->check = optarg ? 2 : 1;
			break;
		case 'h':
			options_usage(stdout);
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
	parse_env(a);
	if (a->check)
		return;
	if (!a->nports && !a->all_ports && !a->targets.npids && !a->targets.cgroup)
		ll_usage_error(PROG, "nothing to observe: give --port PORT, --pid PID, --cgroup PATH "
				     "or --all-ports");
	if (a->targets.children && !a->targets.npids)
		ll_usage_error(PROG, "--children needs --pid");
	if (a->nports && a->all_ports)
		ll_usage_error(PROG, "--port and --all-ports exclude each other");
	if (a->no_requests && a->trace_path)
		ll_usage_error(PROG, "--trace needs request timing; drop --no-requests");
	/* --trace records each request's moments, which only every hook has (the copy hook alone
	 * leaves some responses untimed, and answers others from its pass): auto keeps them */
	if (a->trace_path && a->lean == OBS_LEAN_AUTO)
		a->lean = OBS_LEAN_OFF;
	if (a->arrivals_sampled && a->no_requests)
		ll_usage_error(PROG, "--arrivals needs request timing; drop --no-requests");
	if (a->detach && (a->no_requests || a->arrivals_sampled))
		ll_usage_error(PROG, "LOADLENS_OBSERVER_DETACH needs request timing with its arrivals "
				     "always attached");
}

