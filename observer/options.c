// SPDX-License-Identifier: MIT
/* The observer's options: usage text, parsing (the options themselves: options.def) and the
 * checks between options. */
#include <arpa/inet.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "loadlens/h2.h"
#include "loadlens/parse.h"
#include "sources/watched.h"
#include "metrics/metrics_http.h"
#include "options.h"
#include "options_table.h"

#define NS_PER_S 1000000000ULL
/* Shorter ticks would spend the observer's time reading maps and walking sockets (a busy loop
 * at 1ns); longer ones would hide what happens in them. */
#define OBS_INTERVAL_MIN_NS (100 * 1000000ULL) /* 100ms */
#define OBS_INTERVAL_MAX_NS (3600 * NS_PER_S)	/* 1h */

/* The field of a PATH or FLAG row (options.def), refused at compile time when its type is not
 * the one KIND sets. */
#define TYPED(type, f) _Generic(((struct obs_args *)0)->f, type: offsetof(struct obs_args, f))
#define FIELD_OWN(f) 0
#define FIELD_PATH(f) TYPED(const char *, f)
#define FIELD_FLAG(f) TYPED(bool, f)

static const size_t fields[OBS_OPT__COUNT] = {
#define OBS_OPTION(id, nm, sh, ar, mv, kd, f, hp) [OBS_OPT_##id] = FIELD_##kd(f),
#include "options.def"
};

size_t obs_option_field(enum obs_opt id)
{
	return fields[id];
}

/* A path option's value: a name, never an empty string (which fails only after the start). */
static const char *options_path(const char *opt, const char *v)
{
	if (!*v)
		ll_usage_error(PROG, "invalid %s '': expected a path", opt);
	return v;
}

void obs_options_usage(FILE *out)
{
	fputs(PROG " - where requests' time goes and why connections fail, from the kernel (eBPF)\n"
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
	      "Options:\n",
	      out);
	obs_options_help(out);
	fputs("\n"
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
	      out);
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

/* --lean's or --syscalls' value v by its parser: the mode, or exit 64. */
static int auto_on_off(const char *opt, const char *v, int (*parse)(const char *))
{
	int m = parse(v);

	if (m < 0)
		ll_usage_error(PROG, "invalid %s '%s' (auto, on or off)", opt, v);
	return m;
}

/* Option id's value v (NULL for one that takes none) into a; a bad one exits 64. */
static void parse_opt(struct obs_args *a, enum obs_opt id, const char *v)
{
	const struct obs_option *o = &obs_options[id];
	char flag[32];

	if (o->kind == OBS_OPT_KIND_PATH) {
		snprintf(flag, sizeof(flag), "--%s", o->name);
		*(const char **)((char *)a + fields[id]) = options_path(flag, v);
		return;
	}
	if (o->kind == OBS_OPT_KIND_FLAG) {
		*(bool *)((char *)a + fields[id]) = true;
		return;
	}
	switch (id) {
	case OBS_OPT_PORT:
		add_port(a, v);
		break;
	case OBS_OPT_INTERVAL:
		if (ll_parse_duration(v, &a->interval_ns) ||
		    (a->interval_ns && (a->interval_ns < OBS_INTERVAL_MIN_NS ||
					a->interval_ns > OBS_INTERVAL_MAX_NS)))
			ll_usage_error(PROG, "invalid --interval '%s' (100ms to 1h, e.g. 1s, "
				       "500ms; 0 for no live lines)", v);
		break;
	case OBS_OPT_DURATION:
		if (ll_parse_duration(v, &a->duration_ns) || a->duration_ns < OBS_INTERVAL_MIN_NS)
			ll_usage_error(PROG, "invalid --duration '%s' (100ms or more, e.g. 30s, "
				       "2m)", v);
		break;
	case OBS_OPT_TRACE_EVERY:
		if (ll_parse_u64(v, 1, UINT32_MAX, &a->trace_every))
			ll_usage_error(PROG, "invalid --trace-every '%s' (1 or more)", v);
		break;
	case OBS_OPT_MAX_PROCS:
		if (ll_parse_u64(v, 1, OBS_PROCS_MAX, &a->max_procs))
			ll_usage_error(PROG, "invalid --max-procs '%s' (1-%d)", v, OBS_PROCS_MAX);
		break;
	case OBS_OPT_METRICS: {
		struct sockaddr_storage ss;
		socklen_t len;
		char why[160];
		bool loop;

		if (obs_mxhttp_parse(v, &ss, &len, &loop, why, sizeof(why)))
			ll_usage_error(PROG, "invalid --metrics '%s': %s", v, why);
		/* port 0 would serve on a port nobody is told of */
		if (!ntohs(((struct sockaddr_in *)&ss)->sin_port))
			ll_usage_error(PROG, "invalid --metrics '%s': port 0 (give a port from 1 "
				       "to 65535, e.g. 9435)", v);
		a->metrics = v;
		break;
	}
	case OBS_OPT_ARRIVALS:
		if (!strcmp(v, "sampled"))
			a->arrivals_sampled = true;
		else if (strcmp(v, "always"))
			ll_usage_error(PROG, "invalid --arrivals '%s' (always or sampled)", v);
		break;
	case OBS_OPT_LEAN:
		a->lean = (enum obs_lean_mode)auto_on_off("--lean", v, obs_lean_mode_parse);
		break;
	case OBS_OPT_SYSCALLS:
		a->syscalls = (enum obs_systier_mode)auto_on_off("--syscalls", v,
								 obs_systier_mode_parse);
		break;
	case OBS_OPT_PID:
		add_pid(a, v);
		break;
	case OBS_OPT_CHECK:
		if (v && strcmp(v, "json"))
			ll_usage_error(PROG, "--check takes no value or =json");
		a->check = v ? 2 : 1;
		break;
	case OBS_OPT_HELP:
		obs_options_usage(stdout);
		exit(LL_EXIT_OK);
	case OBS_OPT_VERSION:
		printf("%s %s\n", PROG, LOADLENS_VERSION);
		exit(LL_EXIT_OK);
	default:
		ll_usage_error(PROG, "--%s: no case in parse_opt() (options.def)", o->name);
	}
}

void obs_args_parse(int argc, char **argv, struct obs_args *a)
{
	char short_opts[3 * OBS_OPT__COUNT + 2];
	int c, id;

	memset(a, 0, sizeof(*a));
	a->interval_ns = NS_PER_S;
	if (obs_options_short(short_opts, sizeof(short_opts)))
		ll_usage_error(PROG, "options.def: too many letters");
	optind = 0; /* glibc: full re-initialisation, so the parser can run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, obs_options_long(), NULL)) != -1) {
		id = obs_option_of(c);
		if (id >= 0)
			parse_opt(a, (enum obs_opt)id, optarg);
		else if (c == ':')
			ll_usage_error(PROG, "option '%s' needs a value; see --help",
				       argv[optind - 1]);
		else
			ll_usage_error(PROG, "unknown option '%s'; see --help", argv[optind - 1]);
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

