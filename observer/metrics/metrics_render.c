// SPDX-License-Identifier: MIT
/* The exposition of a scrape snapshot: every family, in a fixed order (docs/observer.md). */
#include <stdio.h>
#include <string.h>
#include "metrics/metrics.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *const obs_mx_finding_kinds[] = {
	"port_exhaustion", "fd_exhaustion",   "fd_leak",	   "system_fds",
	"close_wait_leak", "fin_wait2_orphans", "time_wait",	   "listen_overflow",
	"worker_saturation", "cpu_saturation", "addrinuse",	   "process_cap",
	"target_exit",	   "exit_spike",      "pipelining",	   "udp_shared_socket",
	"netns_outside",   "no_listener",     "served_elsewhere", "fork_wait",
};
const size_t obs_mx_nfinding_kinds = N(obs_mx_finding_kinds);

static const char *const states[OBS_MX_TCP_STATES] = {
	NULL,	       "established", "syn_sent",   "syn_recv", "fin_wait1", "fin_wait2",
	"time_wait",   "close",	      "close_wait", "last_ack", "listen",    "closing",
	"new_syn_recv", "bound_inactive",
};

const char *obs_mx_tcp_state(unsigned int s)
{
	return s < OBS_MX_TCP_STATES ? states[s] : NULL;
}

/* A family of one series, labels l[0..nl): a counter's sample is NAME_total, a gauge's NAME. */
static void one(struct obs_mx_buf *b, enum obs_mx_format f, const char *name, const char *type,
		   const char *help, const struct obs_mx_label *l, size_t nl, double v)
{
	obs_mx_family(b, f, name, type, help);
	obs_mx_sample(b, name, strcmp(type, "counter") ? "" : "_total", l, nl, v);
}

/* Watched process i's labels into l: its pid (printed into pid) and comm. */
static void proc_labels(struct obs_mx_label l[2], char pid[16], const struct obs_mx_snap *s,
			   size_t i)
{
	snprintf(pid, 16, "%u", s->proc[i].pid);
	l[0] = (struct obs_mx_label){"pid", pid};
	l[1] = (struct obs_mx_label){"comm", s->proc[i].comm};
}

static void connections(struct obs_mx_buf *b, enum obs_mx_format f, const struct obs_mx_snap *s)
{
	struct obs_mx_label l[2] = {{"port", s->port}, {"errno", NULL}};
	size_t i;

	one(b, f, "loadlens_accepted_connections", "counter",
	       "Connections the server accepted on the watched ports (handshakes that left the "
	       "accept queue), since the observer started.",
	       l, 1, (double)s->accepted);
	one(b, f, "loadlens_handshakes", "counter",
	       "TCP handshakes completed on the watched ports (SYN_RECV to ESTABLISHED).", l, 1,
	       (double)s->handshakes);
	obs_mx_family(b, f, "loadlens_accept_errors", "counter",
		      "accept() calls on the watched listeners that failed, by errno (EAGAIN not "
		      "counted).");
	for (i = 0; i < s->naccept_err; i++) {
		l[1].value = s->accept_err[i].err;
		obs_mx_sample(b, "loadlens_accept_errors", "_total", l, 2,
			      (double)s->accept_err[i].n);
	}
	if (s->accept_wait) {
		obs_mx_family(b, f, "loadlens_accept_queue_wait_seconds", "histogram",
			      "Time a connection waited in the accept queue: handshake done to "
			      "accept().");
		obs_mx_histogram(b, "loadlens_accept_queue_wait_seconds", l, 1, s->accept_wait,
				 s->accept_wait_sum_ns);
	}
}

enum group_value { GROUP_IN_USE, GROUP_TIME_WAIT, GROUP_RANGE };

/* A gauge family with a sample per port group. */
static void group_family(struct obs_mx_buf *b, enum obs_mx_format f, const char *name,
		      const char *help, const struct obs_mx_snap *s, enum group_value v)
{
	struct obs_mx_label l[1];
	size_t i;

	obs_mx_family(b, f, name, "gauge", help);
	for (i = 0; i < s->ngroups; i++) {
		l[0] = (struct obs_mx_label){"group", s->group[i].name};
		obs_mx_sample(b, name, "", l, 1,
			      v == GROUP_IN_USE	  ? (double)s->group[i].in_use
			      : v == GROUP_TIME_WAIT ? (double)s->group[i].time_wait
						  : (double)s->port_range);
	}
}

static void census(struct obs_mx_buf *b, enum obs_mx_format f, const struct obs_mx_snap *s)
{
	struct obs_mx_label l[1];
	const char *name;
	unsigned int st;

	if (!s->census)
		return;
	one(b, f, "loadlens_census_age_seconds", "gauge",
	       "Age of the socket census the socket and port gauges come from.", NULL, 0,
	       s->census_age_s);
	obs_mx_family(b, f, "loadlens_tcp_sockets", "gauge",
		      "TCP sockets of the watched ports by state, from a sock_diag census "
		      "(TIME_WAIT included).");
	for (st = 0; st < OBS_MX_TCP_STATES; st++) {
		name = obs_mx_tcp_state(st);
		if (!name)
			continue;
		l[0] = (struct obs_mx_label){"state", name};
		obs_mx_sample(b, "loadlens_tcp_sockets", "", l, 1, (double)s->tcp_state[st]);
	}
	group_family(b, f, "loadlens_ephemeral_ports_in_use",
		  "Local ports a connecting side holds towards one destination (group "
		  "source->destination:port), every state; the most used groups only.", s, GROUP_IN_USE);
	group_family(b, f, "loadlens_ephemeral_ports_time_wait", "Of those, the ports in TIME_WAIT.", s,
		  GROUP_TIME_WAIT);
	if (s->port_range)
		group_family(b, f, "loadlens_ephemeral_ports_available",
			  "Ephemeral ports a group can use: the size of "
			  "net.ipv4.ip_local_port_range.", s, GROUP_RANGE);
	one(b, f, "loadlens_ephemeral_port_groups", "gauge",
	       "Distinct port groups the census saw (exposed: the most used, at most 4).", NULL, 0,
	       (double)s->groups_total);
	one(b, f, "loadlens_ephemeral_port_groups_table_full", "gauge",
	       "1 when the census's group table was full: more groups than counted exist.", NULL, 0,
	       s->groups_capped ? 1 : 0);
}

static void procs(struct obs_mx_buf *b, enum obs_mx_format f, const struct obs_mx_snap *s)
{
	struct obs_mx_label l[2];
	char pid[16];
	size_t i;

	obs_mx_family(b, f, "loadlens_process_open_fds", "gauge",
		      "Open file descriptors of a watched process (most open first).");
	for (i = 0; i < s->nprocs; i++) {
		proc_labels(l, pid, s, i);
		obs_mx_sample(b, "loadlens_process_open_fds", "", l, 2, (double)s->proc[i].open);
	}
	obs_mx_family(b, f, "loadlens_process_max_fds", "gauge",
		      "The process's RLIMIT_NOFILE soft limit (absent when unlimited).");
	for (i = 0; i < s->nprocs; i++) {
		if (s->proc[i].soft < 0)
			continue;
		proc_labels(l, pid, s, i);
		obs_mx_sample(b, "loadlens_process_max_fds", "", l, 2, (double)s->proc[i].soft);
	}
	obs_mx_family(b, f, "loadlens_process_emfile_errors", "counter",
		      "Calls of the process that failed with EMFILE (at RLIMIT_NOFILE).");
	for (i = 0; i < s->nprocs; i++) {
		proc_labels(l, pid, s, i);
		obs_mx_sample(b, "loadlens_process_emfile_errors", "_total", l, 2,
			      (double)s->proc[i].emfile);
	}
	if (s->files_known) {
		one(b, f, "loadlens_system_open_files", "gauge",
		       "File handles allocated system-wide (fs.file-nr).", NULL, 0,
		       (double)s->file_nr);
		one(b, f, "loadlens_system_max_files", "gauge",
		       "The system-wide limit, fs.file-max.", NULL, 0, (double)s->file_max);
	}
	obs_mx_family(b, f, "loadlens_syscall_failures", "counter",
		      "Calls of the watched processes that failed for want of a resource, by "
		      "syscall and errno (EMFILE, ENFILE, EADDRNOTAVAIL, EADDRINUSE).");
	for (i = 0; i < s->nfails; i++) {
		l[0] = (struct obs_mx_label){"syscall", s->fail[i].syscall};
		l[1] = (struct obs_mx_label){"errno", s->fail[i].err};
		obs_mx_sample(b, "loadlens_syscall_failures", "_total", l, 2, (double)s->fail[i].n);
	}
}

static void requests(struct obs_mx_buf *b, enum obs_mx_format f, const struct obs_mx_snap *s)
{
	static const char *const names[3] = {
		"loadlens_request_socket_queue_seconds",
		"loadlens_request_service_seconds",
		"loadlens_request_residence_seconds",
	};
	static const char *const helps[3] = {
		"Socket-queue wait of a request: its bytes queued (or the connection accepted, if "
		"later) to the server's first read.",
		"Service time of a request: the server's first read to its first write of the "
		"response.",
		"Residence of a request in the server: arrival to the first write of the "
		"response (queue wait plus service).",
	};
	struct obs_mx_label l[2];
	const struct obs_mx_slot *sl;
	size_t i, c;

	if (!s->requests_on)
		return;
	obs_mx_family(b, f, "loadlens_requests", "counter",
		      "Requests the server answered (responses begun), by port and protocol.");
	for (i = 0; i < s->nslots; i++) {
		sl = &s->slot[i];
		l[0] = (struct obs_mx_label){"port", sl->port};
		l[1] = (struct obs_mx_label){"proto", sl->udp ? "udp" : "tcp"};
		obs_mx_sample(b, "loadlens_requests", "_total", l, 2, (double)sl->requests);
	}
	for (c = 0; c < 3; c++) {
		obs_mx_family(b, f, names[c], "histogram", helps[c]);
		for (i = 0; i < s->nslots; i++) {
			sl = &s->slot[i];
			l[0] = (struct obs_mx_label){"port", sl->port};
			l[1] = (struct obs_mx_label){"proto", sl->udp ? "udp" : "tcp"};
			obs_mx_histogram(b, names[c], l, 2, sl->hist[c], sl->sum_ns[c]);
		}
	}
}

static void findings(struct obs_mx_buf *b, enum obs_mx_format f, const struct obs_mx_snap *s)
{
	struct obs_mx_label l[1];
	unsigned int active;
	size_t i, j;

	obs_mx_family(b, f, "loadlens_findings", "gauge",
		      "Findings of a kind that held in the latest interval "
		      "(docs/observer/findings.md).");
	for (i = 0; i < obs_mx_nfinding_kinds; i++) {
		for (active = 0, j = 0; j < s->nkinds; j++)
			if (!strcmp(s->kind[j].kind, obs_mx_finding_kinds[i]))
				active += s->kind[j].active;
		l[0] = (struct obs_mx_label){"kind", obs_mx_finding_kinds[i]};
		obs_mx_sample(b, "loadlens_findings", "", l, 1, active);
	}
	for (j = 0; j < s->nkinds; j++) { /* a kind not in the contract's list still shows */
		for (i = 0; i < obs_mx_nfinding_kinds; i++)
			if (!strcmp(s->kind[j].kind, obs_mx_finding_kinds[i]))
				break;
		if (i < obs_mx_nfinding_kinds)
			continue;
		l[0] = (struct obs_mx_label){"kind", s->kind[j].kind};
		obs_mx_sample(b, "loadlens_findings", "", l, 1, s->kind[j].active);
	}
}

static void self(struct obs_mx_buf *b, enum obs_mx_format f, const struct obs_mx_snap *s)
{
	const struct {
		const char *source;
		uint64_t n;
	} lost[] = {
		{"connections", s->lost_connections},
		{"forensics", s->lost_forensics},
		{"requests", s->lost_requests},
		{"findings", s->lost_findings},
	};
	struct obs_mx_label l[1];
	char cap[2][24];
	size_t i;

	obs_mx_family(b, f, "loadlens_lost_events", "counter",
		      "Events the observer lost (full maps or ring buffers, program runs the kernel "
		      "skipped), by the part that lost them.");
	for (i = 0; i < N(lost); i++) {
		l[0] = (struct obs_mx_label){"source", lost[i].source};
		obs_mx_sample(b, "loadlens_lost_events", "_total", l, 1, (double)lost[i].n);
	}
	obs_mx_family(b, f, "loadlens_metrics_series_capped", "gauge",
		      "Label sets left out of this scrape by the cardinality caps (processes: the "
		      "20 with most open fds are exposed; port groups: the 4 most used).");
	snprintf(cap[0], sizeof(cap[0]), "process");
	snprintf(cap[1], sizeof(cap[1]), "ephemeral_ports");
	l[0] = (struct obs_mx_label){"family", cap[0]};
	obs_mx_sample(b, "loadlens_metrics_series_capped", "", l, 1,
		      (double)(s->procs_total > s->nprocs ? s->procs_total - s->nprocs : 0));
	l[0] = (struct obs_mx_label){"family", cap[1]};
	obs_mx_sample(b, "loadlens_metrics_series_capped", "", l, 1,
		      (double)(s->groups_total > s->ngroups ? s->groups_total - s->ngroups : 0));
	one(b, f, "loadlens_bpf_stats_enabled", "gauge",
	       "kernel.bpf_stats_enabled: 1 when the kernel times BPF programs (-1: unreadable).",
	       NULL, 0, s->bpf_stats);
	if (s->bpf_stats == 1) {
		obs_mx_family(b, f, "loadlens_bpf_program_run_seconds", "counter",
			      "Time the kernel spent in the observer's BPF programs.");
		for (i = 0; i < s->nprogs; i++) {
			l[0] = (struct obs_mx_label){"program", s->prog[i].name};
			obs_mx_sample(b, "loadlens_bpf_program_run_seconds", "_total", l, 1,
				      (double)s->prog[i].run_ns / 1e9);
		}
		obs_mx_family(b, f, "loadlens_bpf_program_runs", "counter",
			      "Runs of the observer's BPF programs.");
		for (i = 0; i < s->nprogs; i++) {
			l[0] = (struct obs_mx_label){"program", s->prog[i].name};
			obs_mx_sample(b, "loadlens_bpf_program_runs", "_total", l, 1,
				      (double)s->prog[i].run_cnt);
		}
	}
	one(b, f, "loadlens_metrics_scrapes", "counter",
	       "Scrapes of /metrics served before this one.", NULL, 0, (double)s->scrapes);
	one(b, f, "loadlens_metrics_scrape_duration_seconds", "gauge",
	       "Time the previous scrape took to read the maps and write the exposition.", NULL, 0,
	       s->last_scrape_s);
	one(b, f, "loadlens_metrics_refused_connections", "counter",
	       "HTTP connections to the endpoint closed early: taken over past 16 open at once, a "
	       "request not complete in 5 s or over 8 KiB or malformed, a response not read in 10 s.",
	       NULL, 0, (double)s->http_refused);
	one(b, f, "loadlens_observer_uptime_seconds", "gauge",
	       "Seconds since the observer attached.", NULL, 0, s->uptime_s);
}

int obs_mx_render(struct obs_mx_buf *b, enum obs_mx_format f, const struct obs_mx_snap *s)
{
	obs_mx_buf_reset(b);
	connections(b, f, s);
	census(b, f, s);
	procs(b, f, s);
	requests(b, f, s);
	findings(b, f, s);
	self(b, f, s);
	obs_mx_end(b, f);
	return b->err;
}
