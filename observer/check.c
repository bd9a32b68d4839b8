// SPDX-License-Identifier: MIT
/*
 * --check: what this kernel offers the observer. With privilege it makes the observer's own plan
 * and loads both BPF objects and the fd iterator, so the kernel's verifier judges exactly what a
 * run would load; `loadlens doctor` reads the JSON and keeps no list of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <glob.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include <jansson.h>
#include "loadlens/cli.h"
#include "loadlens/observer.h"
#include "check.h"
#include "kernel/sockets.h"
#include "kernel/failures_object.h"
#include "sources/fditer.h"
#include "sources/census_tcp_iter.h"
#include "features/payload_sampling.h"
#include "sources/reqtime_stats.h"
#include "kernel/skeletons.h"
#include "kernel/ssl_cost.h"
#include "kernel/ssl_probes.h"
#include "kernel/ssl_sites.h"
#include "sources/ssl_libs.h"
#include "kernel/startup.h"
#include "failures.skel.h"
#include "sockets.skel.h"

#define PROG "loadlens-observer"

/* What the load test found: each feature's choice, made by the features' own plans. */
struct probe {
	bool loaded;
	char error[160];
	const char *set_state;	/* "tp_btf", "raw_tp" or NULL */
	const char *reads;	/* "bpf_rdonly_cast" or "bpf_probe_read_kernel" */
	const char *sk_state;	/* "sk_storage" or "hash" */
	bool user_regs;		/* bpf_task_pt_regs, or the kernel stack's registers */
	bool stack_regs;	/* ... the kernel stack's */
	bool accept4;		/* syscalls:sys_exit_accept4 */
	enum obs_reqtime_mech mech;
	char mech_why[256];
	bool ipv6_timed;
	bool lean; /* the lean hooks' copy program loads (kernel/lean.h) */
	struct obs_fail_features fail;
	bool fditer;
	bool census_iter; /* the census' TCP iterator loads and attaches */
	char census_why[128];
	bool tls_plain;	    /* uprobes on libssl can be had (and request timing is on) */
	char tls_why[160];
	char tls_cost[640]; /* the mechanism, with the host's libssl's probe sites */
	int nprogs;
};

/* What TLS plaintext costs an SSL call here: where the probes would sit in the host's libssl
 * (observer/kernel/ssl_sites.h: emulated, or stepped out of line, a second trap a call), and,
 * with the programs loaded (conn), what a probed call of it takes more (kernel/ssl_cost.h). */
static void tls_cost(struct probe *p, struct obs_sockets *conn)
{
	static const char base[] = "uprobes on libssl SSL_read, SSL_write (and _ex), "
				   "SSL_do_handshake";
	struct obs_ssl_libs *libs = calloc(1, sizeof(*libs));
	const uint32_t calls = 20000;
	struct obs_ssl_sites sites;
	struct obs_ssl_file lib;
	char t[256], m[200];
	size_t len;
	double ns;

	snprintf(p->tls_cost, sizeof(p->tls_cost), "%s", base);
	if (!libs || !obs_ssl_libs_host(libs)) {
		free(libs);
		return;
	}
	if (!obs_ssl_sites_find(libs->lib[0].open, false, &sites) && sites.emulated + sites.stepped) {
		obs_ssl_sites_text(sites.emulated, sites.stepped, (size_t)sites.fn[OBS_SSL_READ].inner +
				   sites.fn[OBS_SSL_WRITE].inner, t, sizeof(t));
		snprintf(p->tls_cost, sizeof(p->tls_cost), "%s; in %s: %s", base, libs->lib[0].path, t);
	}
	lib = (struct obs_ssl_file){libs->lib[0].open, libs->lib[0].path};
	if (conn && obs_ssl_cost_measure(conn, &lib, calls, &ns, m, sizeof(m)) == 0)
		snprintf(m, sizeof(m), "measured here: a probed SSL call takes %.2f us more (its "
			 "entry and return, %u calls)", ns / 1000, calls);
	len = strlen(p->tls_cost);
	if (conn)
		snprintf(p->tls_cost + len, sizeof(p->tls_cost) - len, "; %s", m);
	free(libs);
}

static void check_load(struct probe *p, enum obs_reqtime_mech want)
{
	struct obs_sockets_opts copts = {0};
	struct obs_reqtime_opts ropts = {0};
	struct obs_reqtime *rt = NULL;
	const uint16_t probe_port = 80;
	struct obs_census_iter *ci;
	struct obs_fditer *it;
	struct obs_kernel *k;
	struct bpf_program *prog;
	struct sockets_bpf *s;
	int err;

	k = obs_kernel_open(PROG, &copts, false);
	if (!k) {
		snprintf(p->error, sizeof(p->error), "cannot open the BPF objects: %s",
			 strerror(errno));
		return;
	}
	s = obs_sockets_skel(obs_kernel_conn(k));
	ropts.mech = want;
	p->mech = obs_reqtime_mech_choose(want, p->mech_why, sizeof(p->mech_why));
	p->tls_plain = obs_ssl_probes_possible(obs_kernel_conn(k), p->tls_why, sizeof(p->tls_why));
	rt = p->mech != OBS_REQTIME_MECH_OFF ? obs_reqtime_new(PROG, &ropts, obs_kernel_conn(k))
					     : NULL;
	if (!rt) {
		obs_reqtime_mech_off(obs_kernel_conn(k));
		if (p->mech != OBS_REQTIME_MECH_OFF)
			snprintf(p->mech_why, sizeof(p->mech_why), "cannot plan it: %s",
				 strerror(errno));
		p->mech = OBS_REQTIME_MECH_OFF;
	} else {
		obs_reqtime_mech_payload(obs_kernel_conn(k), false, -1);
		p->ipv6_timed = p->mech == OBS_REQTIME_MECH_TRACEPOINT ||
				bpf_program__autoload(s->progs.handle_inet6_recvmsg_exit);
		p->lean = obs_reqtime_features(rt)->lean;
	}
	err = obs_kernel_load(k, NULL, 0);
	p->loaded = !err;
	tls_cost(p, p->loaded && p->tls_plain && p->mech != OBS_REQTIME_MECH_OFF
			    ? obs_kernel_conn(k)
			    : NULL);
	if (err)
		snprintf(p->error, sizeof(p->error), "the kernel refused to load them: %s "
			 "(loadlens-observer -v prints libbpf's log)", strerror(-err));
	p->set_state = obs_sockets_features(obs_kernel_conn(k))->set_state;
	p->reads = obs_sockets_features(obs_kernel_conn(k))->reads;
	p->sk_state = obs_sockets_features(obs_kernel_conn(k))->sk_state;
	p->user_regs = obs_sockets_features(obs_kernel_conn(k))->user_regs;
	p->stack_regs = obs_sockets_features(obs_kernel_conn(k))->stack_regs;
	p->accept4 = obs_sockets_features(obs_kernel_conn(k))->accept4;
	p->fail = *obs_fail_features(obs_kernel_fail(k));
	bpf_object__for_each_program(prog, s->obj)
		p->nprogs += bpf_program__autoload(prog);
	it = obs_fditer_new();
	p->fditer = it != NULL;
	obs_fditer_free(it);
	ci = obs_census_iter_new(-1, &probe_port, 1); /* with a port: the paths --port loads */
	p->census_iter = ci != NULL;
	if (!ci)
		snprintf(p->census_why, sizeof(p->census_why), "no TCP iterator (%s): one netlink "
			 "message per socket", strerror(errno));
	obs_census_iter_free(ci);
	obs_reqtime_free(rt);
	obs_kernel_free(k);
}

/* Kernel TLS on this host: its tls module loaded ("loaded"), or built and loadable on demand
 * ("loadable": a server's TCP_ULP "tls" loads it), or neither (NULL: CONFIG_TLS off). */
static const char *ktls_kernel(void)
{
	struct utsname u;
	char pat[400];
	glob_t g;
	bool found;

	if (!access("/proc/net/tls_stat", F_OK))
		return "loaded";
	if (uname(&u))
		return NULL;
	snprintf(pat, sizeof(pat), "/lib/modules/%s/kernel/net/tls/tls.ko*", u.release);
	found = glob(pat, 0, NULL, &g) == 0 && g.gl_pathc;
	globfree(&g);
	return found ? "loadable" : NULL;
}

static json_t *check_row(const char *feature, bool ok, const char *mech, const char *needs,
		      const char *note)
{
	return json_pack("{s:s, s:b, s:s, s:s, s:s}", "feature", feature, "ok", ok, "mechanism",
			 mech, "needs", needs, "note", note ? note : "");
}

/* Each feature, the mechanism it uses here and the kernel it needs (docs/observer.md). */
static json_t *features(const struct probe *p)
{
	json_t *a = json_array();
	const struct obs_fail_features *f = &p->fail;
	const char *ktls;
	char note[320];

	json_array_append_new(a, check_row("accepted connections, handshakes, socket states",
		p->set_state != NULL,
		!p->set_state ? "off" : !strcmp(p->set_state, "tp_btf")
			? "tp_btf sock:inet_sock_set_state"
			: "raw_tp sock:inet_sock_set_state",
		"4.16 (tp_btf: 5.5 with BTF)", p->set_state ? NULL :
		"no sock:inet_sock_set_state: accepts counted at accept() only"));
	json_array_append_new(a, check_row("kernel object reads", true,
		!strcmp(p->reads, "bpf_rdonly_cast") ? "bpf_rdonly_cast kfunc (direct loads)"
						     : "bpf_probe_read_kernel (a helper call a field)",
		"any (the kfunc: 6.2)", NULL));
	json_array_append_new(a, check_row("a socket's own request state", true,
		p->sk_state && !strcmp(p->sk_state, "hash")
		? "bounded hashes by the socket's address, emptied by fentry inet_sock_destruct"
		: "sk_storage (the socket's own)",
		"5.11 (sk_storage in tracing programs); else 5.5 with BTF trampolines",
		p->sk_state && !strcmp(p->sk_state, "hash")
		? "bounded: a socket past the hash's size goes untimed, counted" : NULL));
	if (p->mech == OBS_REQTIME_MECH_FENTRY)
		snprintf(note, sizeof(note), "the sock: tracepoints need 6.3; same events from "
			 "the functions they sit in%s",
			 p->ipv6_timed ? "" : "; IPv6 sockets not timed (no trampoline on inet6_*)");
	else
		snprintf(note, sizeof(note), "%s", p->mech_why);
	json_array_append_new(a, check_row("request timing: socket-queue wait, service time",
		p->mech != OBS_REQTIME_MECH_OFF,
		p->mech == OBS_REQTIME_MECH_TRACEPOINT ? "tracepoints sock:sk_data_ready, "
						    "sock_recv_length, sock_send_length"
		: p->mech == OBS_REQTIME_MECH_FENTRY ? "fentry sock_def_readable, fexit "
						  "inet{,6}_recvmsg, inet{,6}_sendmsg"
						: "off",
		"6.3 (tracepoints); else 5.5 with BTF trampolines (fentry)", note));
	json_array_append_new(a, check_row("lean hooks: plain TCP requests with one or two events less",
		p->lean, p->lean ? "tp_btf tcp:tcp_rcv_space_adjust instead of sock:sk_data_ready "
				   "and sock_recv_length, and with --port targets sock_send_length "
				   "(--lean auto: while only plain TCP shows)"
				 : "off",
		"6.3 (the sock: tracepoints) and tcp:tcp_rcv_space_adjust",
		p->lean ? NULL : "every request has all three events"));
	json_array_append_new(a, check_row("HTTP/2 streams and statuses (h2c, gRPC)",
		p->mech != OBS_REQTIME_MECH_OFF && p->user_regs,
		p->mech != OBS_REQTIME_MECH_OFF && p->user_regs
		? (p->stack_regs ? "frame walk of each read's and write's buffer, found through the "
				   "kernel stack's saved registers"
				 : "frame walk of each read's and write's buffer, found through "
				   "bpf_task_pt_regs")
		: "off",
		"5.15 (before it, x86-64's and arm64's kernel stack), x86-64, arm64 or ppc64le; with "
		"request timing",
		p->mech == OBS_REQTIME_MECH_OFF ? "no request timing"
		: !p->user_regs ? "a connection's requests are counted by turns, no status read"
				: NULL));
	json_array_append_new(a, check_row("request timing over TLS (HTTP/2 streams, HTTP/1.1)",
		p->mech != OBS_REQTIME_MECH_OFF && p->tls_plain,
		p->mech != OBS_REQTIME_MECH_OFF && p->tls_plain
		? p->tls_cost : "off",
		"uprobes (CONFIG_UPROBE_EVENTS), x86-64, arm64 or ppc64le; a server using "
		"OpenSSL's libssl",
		p->mech == OBS_REQTIME_MECH_OFF ? "no request timing" : p->tls_plain
		? "TLS linked into the server (Go's crypto/tls) is not seen: its connections count as "
		  "connections and handshakes"
		: p->tls_why));
	ktls = ktls_kernel();
	snprintf(note, sizeof(note), "the socket hooks on the plaintext a kTLS server reads and "
		 "writes, no uprobe (the kernel's tls module: %s)", ktls ? ktls : "none");
	json_array_append_new(a, check_row("request timing over kernel TLS (kTLS)",
		p->mech != OBS_REQTIME_MECH_OFF && p->user_regs && ktls,
		p->mech != OBS_REQTIME_MECH_OFF && p->user_regs && ktls ? note : "off",
		"the kernel's tls module (CONFIG_TLS); a server that hands it its records (OpenSSL "
		"3: Options KTLS, as nginx's ssl_conf_command Options KTLS); bpf_task_pt_regs or "
		"the kernel stack's registers",
		p->mech == OBS_REQTIME_MECH_OFF ? "no request timing"
		: !p->user_regs ? "no user registers: a kTLS connection's records not told apart"
		: !ktls ? "the kernel has no TLS (CONFIG_TLS off): no server here can use kTLS; "
			  "TLS is read through the uprobes"
			: "where every TLS server is on kTLS, --no-tls-uprobes saves its SSL calls' "
			  "traps"));
	json_array_append_new(a, check_row("payload sampling (pipelined requests per read)",
		p->mech != OBS_REQTIME_MECH_OFF && p->user_regs,
		p->mech != OBS_REQTIME_MECH_OFF && p->user_regs
		? (p->stack_regs ? "the kernel stack's saved registers + bpf_probe_read_user in the "
				   "read programs"
				 : "bpf_task_pt_regs + bpf_probe_read_user in the read programs")
		: "off",
		"5.15 (before it, x86-64's and arm64's kernel stack), x86-64, arm64 or ppc64le; with "
		"request timing",
		!OBS_SYSCALL_REGS ? "the read programs find the buffer by x86-64's, arm64's and "
				    "ppc64's system call numbers and registers (bpf/observe.bpf.h)"
		: p->user_regs ? NULL :
		"no bpf_task_pt_regs: HTTP/2 streams and TLS handshakes are not told apart from "
		"requests either (counted by turns)"));
	json_array_append_new(a, check_row("accept-queue wait per connection, accept errors",
		p->accept4, p->accept4 ? "tracepoint syscalls:sys_exit_accept4 (syscall tier)"
				       : "off",
		"tracefs and CONFIG_FTRACE_SYSCALLS", p->accept4 ? "attached on demand" :
		"no syscalls:sys_exit_accept4"));
	json_array_append_new(a, check_row("failures by cause (EMFILE, EADDRNOTAVAIL, ...)",
		f->sys[OBS_SYS_CONNECT], f->sys[OBS_SYS_CONNECT]
		? "tracepoints syscalls:sys_exit_* (syscall tier)" : "off",
		"tracefs and CONFIG_FTRACE_SYSCALLS", "attached when something nears a limit"));
	json_array_append_new(a, check_row("drops by reason", f->drops,
		f->drops ? "tp_btf skb:kfree_skb" : "off", "5.17 (the reason)",
		f->drops ? NULL : "/proc/net/netstat counters remain"));
	json_array_append_new(a, check_row("resets, SYN-ACK retransmits", f->resets && f->synack,
		f->resets ? "tp_btf tcp:tcp_send_reset, tcp_receive_reset, "
			    "tcp_retransmit_synack" : "off", "5.5 (tp_btf)", NULL));
	json_array_append_new(a, check_row("fds against RLIMIT_NOFILE", true,
		p->fditer ? "BPF task and task_file iterators"
			  : "/proc/PID/fd (keeps CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH)",
		"the iterators: 5.8", NULL));
	json_array_append_new(a, check_row("socket census (states, ports, TIME_WAIT)", true,
		p->census_iter ? "BPF tcp iterator (counts in the kernel)" : "sock_diag netlink",
		"the iterator: 5.9 with BTF (its socket cookie: 5.12, else the address); sock_diag: any",
		p->census_iter ? NULL : p->census_why));
	return a;
}

static void tp_category(const char *name, char *cat, size_t n)
{
	const char *tracefs = obs_startup_tracefs();
	char pattern[512];
	glob_t g = {0};

	snprintf(cat, n, "?");
	if (!tracefs)
		return;
	snprintf(pattern, sizeof(pattern), "%s/events/*/%s", tracefs, name);
	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) == 0 && g.gl_pathc) {
		const char *p = g.gl_pathv[0] + strlen(tracefs) + strlen("/events/");

		snprintf(cat, n, "%.*s", (int)(strchr(p, '/') - p), p);
	}
	globfree(&g);
}

/* Every tracepoint and kernel function the object's programs name (their section names). */
static void check_object(struct bpf_object *obj, const char *objname, json_t *tps)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog), *attach, *name;
		char cat[64], tp[160], fn[64];
		bool present;
		json_t *row;

		if (!strncmp(sec, "tp_btf/", 7) || !strncmp(sec, "raw_tp/", 7)) {
			attach = sec[0] == 't' ? "tp_btf" : "raw_tp";
			name = sec + 7;
			present = obs_startup_btf_tracepoint_exists(name);
			tp_category(name, cat, sizeof(cat));
		} else if (!strncmp(sec, "tracepoint/", 11)) {
			attach = "tracepoint";
			snprintf(cat, sizeof(cat), "%.*s", (int)strcspn(sec + 11, "/"), sec + 11);
			name = sec + 11 + strlen(cat) + 1;
			present = obs_startup_tracepoint_exists(cat, name);
		} else if (!strcmp(sec, "uprobe") || !strcmp(sec, "uretprobe")) {
			/* attached by userspace to the targets' libssl: an entry's function is in
			 * its program's name (handle_ssl_read: SSL_read); one program takes every
			 * return */
			attach = sec;
			name = bpf_program__name(prog);
			if (!strcmp(sec, "uretprobe"))
				snprintf(fn, sizeof(fn), "SSL_* (their returns)");
			else
				snprintf(fn, sizeof(fn), "SSL_%s", name + strlen("handle_ssl_"));
			name = fn;
			present = !access("/sys/bus/event_source/devices/uprobe/type", F_OK);
			snprintf(cat, sizeof(cat), "libssl");
		} else if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6)) {
			attach = !strncmp(sec, "fentry/", 7) ? "fentry" : "fexit";
			name = strchr(sec, '/') + 1;
			present = obs_startup_btf_func_exists(name);
			snprintf(cat, sizeof(cat), "function");
		} else {
			continue;
		}
		/* the category is unknown where tracefs cannot be read (unprivileged) */
		if (strcmp(cat, "?"))
			snprintf(tp, sizeof(tp), "%s:%s", cat, name);
		else
			snprintf(tp, sizeof(tp), "%s", name);
		row = json_pack("{s:s, s:s, s:b, s:s, s:s, s:b}", "tracepoint", tp, "attach", attach,
				"present", present, "object", objname, "program",
				bpf_program__name(prog), "syscall_tier", !strcmp(cat, "syscalls"));
		json_array_append_new(tps, row);
	}
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void text(FILE *out, json_t *doc)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(doc, "checks"), i, v)
		fprintf(out, "%-5s %s%s%s\n", json_is_true(json_object_get(v, "ok")) ? "ok" :
			(json_is_true(json_object_get(v, "required")) ? "MISS" : "off"),
			jstr(v, "what"), *jstr(v, "note") ? ": " : "", jstr(v, "note"));
	fprintf(out, "features on Linux %s (the mechanism each uses here; needs):\n",
		jstr(doc, "kernel"));
	if (!json_array_size(json_object_get(doc, "features")))
		fprintf(out, "off   every feature: the programs did not load (above)\n");
	json_array_foreach(json_object_get(doc, "features"), i, v)
		fprintf(out, "%-5s %-49s %s (needs %s)%s%s\n",
			json_is_true(json_object_get(v, "ok")) ? "ok" : "off", jstr(v, "feature"),
			jstr(v, "mechanism"), jstr(v, "needs"), *jstr(v, "note") ? ": " : "",
			jstr(v, "note"));
	fprintf(out, "attach points of the observer's programs:\n");
	json_array_foreach(json_object_get(doc, "tracepoints"), i, v)
		fprintf(out, "%-5s %-10s %-34s %s/%s%s\n",
			json_is_true(json_object_get(v, "present")) ? "ok" : "off", jstr(v, "attach"),
			jstr(v, "tracepoint"), jstr(v, "object"), jstr(v, "program"),
			json_is_true(json_object_get(v, "syscall_tier")) ? " [syscall tier]" : "");
}

int obs_check(FILE *out, bool as_json, enum obs_reqtime_mech want)
{
	struct sockets_bpf *s = sockets_bpf__open();
	struct failures_bpf *f = failures_bpf__open();
	bool priv = obs_startup_have_bpf_privilege(), btf = !access(OBS_VMLINUX_BTF, R_OK);
	struct probe p = {.mech = OBS_REQTIME_MECH_OFF};
	const char *tracefs;
	char load[256];
	struct utsname u;
	json_t *doc, *checks, *tps;
	int ret;

	/* mounting tracefs needs privilege; without it, look where it may already be */
	tracefs = obs_startup_tracefs_find(priv);
	if (priv && btf && s && f)
		check_load(&p, want);
	else
		snprintf(p.error, sizeof(p.error), "%s", !priv ? "not tried: needs privilege"
			 : !btf ? "not tried: no kernel BTF" : "cannot open the BPF objects");
	if (p.loaded)
		snprintf(load, sizeof(load), "%d programs, as a run here chooses them", p.nprogs);
	else
		snprintf(load, sizeof(load), "%s", p.error);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	checks = json_pack("[{s:s, s:b, s:b, s:s}, {s:s, s:b, s:b, s:s}, {s:s, s:b, s:b, s:s}, "
			   "{s:s, s:b, s:b, s:s}]",
			   "what", "root, or CAP_BPF and CAP_PERFMON", "ok", priv, "required", 1,
			   "note", priv ? "" : "run the observer with sudo",
			   "what", "kernel BTF at " OBS_VMLINUX_BTF, "ok", btf, "required", 1,
			   "note", btf ? "" : "a kernel built with CONFIG_DEBUG_INFO_BTF=y",
			   "what", "tracefs", "ok", tracefs != NULL, "required", 0,
			   "note", tracefs ? tracefs :
			   "not mounted (mount -t tracefs tracefs /sys/kernel/tracing); classic "
			   "tracepoints (syscalls:*) read as missing",
			   "what", "the observer's BPF programs load and verify on this kernel", "ok",
			   p.loaded, "required", 1, "note", load);
	tps = json_array();
	if (s)
		check_object(s->obj, "sockets", tps);
	if (f)
		check_object(f->obj, "failures", tps);
	doc = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "tool", "loadlens-observer", "version",
			LOADLENS_VERSION, "kernel", u.release, "checks", checks, "features",
			p.loaded ? features(&p) : json_array(), "tracepoints", tps);
	if (as_json) {
		json_dumpf(doc, out, JSON_INDENT(1));
		fputc('\n', out);
	} else {
		text(out, doc);
	}
	ret = (priv && btf && s && f && p.loaded) ? 0 : 1;
	json_decref(doc);
	failures_bpf__destroy(f);
	sockets_bpf__destroy(s);
	return ret;
}
