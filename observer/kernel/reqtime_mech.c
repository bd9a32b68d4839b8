// SPDX-License-Identifier: MIT
/* Request timing's mechanism, probed, and its part of the socket object's plan. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "loadlens/h2.h"
#include "loadlens/reqtime.h"
#include "kernel/bpfread.h"
#include "kernel/sockets.h"
#include "kernel/reqtime_mech.h"
#include "kernel/startup.h"
#include "kernel/ssl_probes.h"
#include "sockets.skel.h"

#define TIER_PROGS 6 /* the most request programs one mechanism has */

static void attached_add(struct obs_reqtime_mech_got *got, const char *what)
{
	size_t len = strlen(got->attached);

	snprintf(got->attached + len, sizeof(got->attached) - len, "%s%s", len ? ", " : "", what);
}

static void prog_off(struct bpf_program *p)
{
	bpf_program__set_autoload(p, false);
}

/* The request programs of each mechanism: arrival, reads, writes (NULL ends a list). */
static void tier_progs(struct sockets_bpf *s, enum obs_reqtime_mech m, struct bpf_program **p)
{
	if (m == OBS_REQTIME_MECH_TRACEPOINT) {
		p[0] = s->progs.handle_sk_data_ready;
		p[1] = s->progs.handle_sock_recv_length;
		p[2] = s->progs.handle_sock_send_length;
		p[3] = s->progs.handle_tcp_rcv_space_adjust;
		p[4] = s->progs.lean_sweep;
		p[5] = s->progs.lean_udp;
		p[6] = NULL;
	} else {
		p[0] = s->progs.handle_sock_def_readable;
		p[1] = s->progs.handle_inet_recvmsg_exit;
		p[2] = s->progs.handle_inet6_recvmsg_exit;
		p[3] = s->progs.handle_inet_sendmsg_exit;
		p[4] = s->progs.handle_inet6_sendmsg_exit;
		p[5] = NULL;
	}
}

static void tier_off(struct sockets_bpf *s, enum obs_reqtime_mech m)
{
	struct bpf_program *p[TIER_PROGS + 1];
	size_t i;

	tier_progs(s, m, p);
	for (i = 0; p[i]; i++)
		prog_off(p[i]);
}

const char *obs_reqtime_mech_name(enum obs_reqtime_mech m)
{
	return m == OBS_REQTIME_MECH_TRACEPOINT ? "tracepoints"
	       : m == OBS_REQTIME_MECH_FENTRY	? "fentry"
						: "off";
}

/*
 * How this kernel can time requests, best first: the sock: tracepoints (Linux 6.3+), else BPF
 * trampolines on the functions they sit in (fentry/fexit: BTF and trampolines, x86-64 5.5+).
 * `want` forces one (LOADLENS_OBSERVER_TIMING, for tests). *why: the reason for "off", or for
 * a missing IPv6 half. Probing a trampoline loads and attaches a tiny program: needs privilege.
 */
enum obs_reqtime_mech obs_reqtime_mech_choose(enum obs_reqtime_mech want, char *why, size_t len)
{
	/* the tracepoint programs read TCP's clocks through bpf_rdonly_cast (6.2, before the
	 * tracepoints' 6.3) with no switch (bpf/observe.bpf.h, LL_READ_KF) */
	bool tp = obs_startup_btf_tracepoint_exists("sk_data_ready") &&
		  obs_startup_btf_tracepoint_exists("sock_recv_length") &&
		  obs_startup_btf_tracepoint_exists("sock_send_length") &&
		  obs_startup_btf_func_exists("bpf_rdonly_cast");
	static const char *const funcs[] = {"sock_def_readable", "inet_recvmsg", "inet_sendmsg"};
	size_t i;
	int err;

	*why = 0;
	if (want == OBS_REQTIME_MECH_OFF)
		want = tp ? OBS_REQTIME_MECH_TRACEPOINT : OBS_REQTIME_MECH_FENTRY;
	if (want == OBS_REQTIME_MECH_TRACEPOINT) {
		if (tp)
			return OBS_REQTIME_MECH_TRACEPOINT;
		snprintf(why, len, "the kernel lacks the tracepoints sock:sk_data_ready/"
				   "sock_recv_length/sock_send_length (Linux 6.3+)");
		return OBS_REQTIME_MECH_OFF;
	}
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		err = obs_startup_fentry_probe(funcs[i]);
		if (err) {
			snprintf(why, len, "%sno BPF trampoline on %s (fentry: %s)",
				 tp ? "" : "the kernel lacks the tracepoints sock:sk_data_ready/"
					   "sock_recv_length/sock_send_length (Linux 6.3+) and ",
				 funcs[i], err == -ENOENT ? "not in the kernel's BTF"
					   : err == -524 ? "not supported" : strerror(-err));
			return OBS_REQTIME_MECH_OFF;
		}
	}
	return OBS_REQTIME_MECH_FENTRY;
}

/* LOADLENS_OBSERVER_DETACH: the hooks named load (the verifier sees the same object) but stay
 * unattached, said in a note at start. */
static void detach(const char *prog, struct sockets_bpf *s, struct obs_reqtime_mech_got *got,
		   unsigned int mask)
{
	bool tp = got->mech == OBS_REQTIME_MECH_TRACEPOINT;

	if (mask & OBS_REQTIME_DETACH_ARRIVAL)
		bpf_program__set_autoattach(got->arrival, false);
	if (mask & OBS_REQTIME_DETACH_SEND) {
		bpf_program__set_autoattach(tp ? s->progs.handle_sock_send_length
					       : s->progs.handle_inet_sendmsg_exit, false);
		if (!tp)
			bpf_program__set_autoattach(s->progs.handle_inet6_sendmsg_exit, false);
	}
	if (mask)
		ll_warn(prog, "note: LOADLENS_OBSERVER_DETACH: request timing's %s%s%s left "
			      "unattached, to measure what it costs: its figures are wrong",
			mask & OBS_REQTIME_DETACH_ARRIVAL ? "arrival" : "",
			mask == (OBS_REQTIME_DETACH_ARRIVAL | OBS_REQTIME_DETACH_SEND) ? " and " : "",
			mask & OBS_REQTIME_DETACH_SEND ? "send hooks" : " hook");
}

/* The lean hooks (kernel/lean.h): the copy hook loads where it can run, and then lean.c's child
 * attaches the read hooks (every one of them, until it switches). */
static void lean(struct sockets_bpf *s, const char *prog, const struct obs_reqtime_mech_plan *p,
		 struct obs_reqtime_mech_got *got)
{
	const char *why = NULL;

	if (p->lean == OBS_LEAN_OFF)
		why = "";
	else if (got->mech != OBS_REQTIME_MECH_TRACEPOINT)
		why = "the sock: tracepoints (Linux 6.3+)";
	else if (!obs_startup_btf_tracepoint_exists("tcp_rcv_space_adjust"))
		why = "the tracepoint tcp:tcp_rcv_space_adjust";
	else if (p->arrivals_sampled || p->detach)
		why = p->detach ? "LOADLENS_OBSERVER_DETACH off" : "--arrivals always";
	if (why) {
		prog_off(s->progs.handle_tcp_rcv_space_adjust);
		prog_off(s->progs.lean_sweep);
		prog_off(s->progs.lean_udp);
		if (p->lean == OBS_LEAN_ON)
			ll_warn(prog, "note: --lean on needs %s: every hook instead", why);
		return;
	}
	got->lean = true;
	got->lean_progs[0] = s->progs.handle_sk_data_ready;
	got->lean_progs[1] = s->progs.handle_sock_recv_length;
	got->lean_progs[2] = s->progs.handle_tcp_rcv_space_adjust;
	got->lean_progs[3] = s->progs.handle_sock_send_length;
	for (size_t i = 0; i < OBS_LEAN_PROGS; i++)
		bpf_program__set_autoattach(got->lean_progs[i], false);
	/* the copy hook alone's passes (lean.c attaches their iterators) */
	got->lean_sweep = s->progs.lean_sweep;
	got->lean_udp = s->progs.lean_udp;
	bpf_program__set_autoattach(got->lean_sweep, false);
	bpf_program__set_autoattach(got->lean_udp, false);
	attached_add(got, "tcp_rcv_space_adjust (--lean)");
}

/* Switch off what the kernel lacks, before load. -ENOTSUP: request timing is not possible. */
static int programs(struct sockets_bpf *s, const char *prog,
		       const struct obs_reqtime_mech_plan *p, struct obs_reqtime_mech_got *got)
{
	char why[256];

	got->mech = obs_reqtime_mech_choose(p->want, why, sizeof(why));
	if (got->mech == OBS_REQTIME_MECH_OFF) {
		ll_warn(prog, "note: request timing is off: %s", why);
		return -ENOTSUP;
	}
	if (got->mech == OBS_REQTIME_MECH_TRACEPOINT) {
		tier_off(s, OBS_REQTIME_MECH_FENTRY);
		got->arrival = s->progs.handle_sk_data_ready;
		attached_add(got, "sk_data_ready, sock_recv_length, sock_send_length");
	} else {
		tier_off(s, OBS_REQTIME_MECH_TRACEPOINT);
		got->arrival = s->progs.handle_sock_def_readable;
		attached_add(got, "fentry sock_def_readable, fexit inet_recvmsg, inet_sendmsg");
		/* IPv6 may be a module (its functions in the module's BTF): try, or go without */
		if (obs_startup_fentry_probe("inet6_recvmsg") ||
		    obs_startup_fentry_probe("inet6_sendmsg")) {
			prog_off(s->progs.handle_inet6_recvmsg_exit);
			prog_off(s->progs.handle_inet6_sendmsg_exit);
			ll_warn(prog, "note: requests on IPv6 sockets are not timed: no BPF trampoline "
				      "on inet6_recvmsg/inet6_sendmsg");
		} else {
			attached_add(got, "inet6_recvmsg, inet6_sendmsg");
		}
	}

	lean(s, prog, p, got);

	/* the connection programs' tp_btf inet_sock_set_state closes out a server's last response
	 * (the raw_tp fallback does not); accept times come from the syscall tier, when attached */
	got->close_out = bpf_program__autoload(s->progs.handle_inet_sock_set_state);
	if (got->close_out)
		attached_add(got, "inet_sock_set_state");
	got->accept = obs_startup_tracepoint_exists("syscalls", "sys_exit_accept4");

	/* opt-in: these run on every wake-up and context switch of the host */
	got->runq = p->runq && obs_startup_btf_tracepoint_exists("sched_wakeup") &&
		    obs_startup_btf_tracepoint_exists("sched_wakeup_new") &&
		    obs_startup_btf_tracepoint_exists("sched_switch");
	if (got->runq) {
		attached_add(got, "sched_wakeup, sched_switch");
	} else {
		prog_off(s->progs.handle_sched_wakeup);
		prog_off(s->progs.handle_sched_wakeup_new);
		prog_off(s->progs.handle_sched_switch);
		if (p->runq)
			ll_warn(prog, "note: no sched_wakeup/sched_switch tracepoints; run-queue "
				      "wait is off");
	}
	s->rodata->targ_runq = got->runq;
	/* before 5.18 sched_switch passes no prev_state: the programs read the task's state */
	s->rodata->targ_switch_state = obs_startup_btf_tracepoint_nargs("sched_switch") >= 4;
	return 0;
}

/* The constants and map sizes. */
static int configure(struct sockets_bpf *s, const struct obs_reqtime_mech_plan *p)
{
	size_t i;
	int err;

	if (p->dyn)
		memset((void *)s->rodata->targ_slot, RT_SLOT_DYN, sizeof(s->rodata->targ_slot));
	else if (!p->nports)
		memset((void *)s->rodata->targ_slot, 1, sizeof(s->rodata->targ_slot));
	s->rodata->targ_owned = p->owned;
	for (i = 0; i < p->nports; i++)
		s->rodata->targ_slot[p->ports[i]] = (uint8_t)(i + 1);
	s->rodata->targ_requests = 1;
	if (p->trace_path)
		s->rodata->targ_trace_every = p->trace_every ? p->trace_every : 1;
	s->rodata->targ_nslots = (uint32_t)p->nslots;
	err = bpf_map__set_max_entries(s->maps.recs, (uint32_t)(p->nslots * (size_t)p->ncpu));
	if (!err && !p->trace_path)
		err = bpf_map__set_max_entries(s->maps.trace, (uint32_t)sysconf(_SC_PAGESIZE));
	return err;
}

int obs_reqtime_mech_plan(const char *prog, struct obs_sockets *conn,
			  const struct obs_reqtime_mech_plan *p, struct obs_reqtime_mech_got *got)
{
	struct sockets_bpf *s = obs_sockets_skel(conn);
	int err;

	memset(got, 0, sizeof(*got));
	err = programs(s, prog, p, got);
	if (err)
		return err;
	/* TLS plaintext: uprobes on the targets' libssl, attached once the targets are known */
	got->ssl = !p->no_tls_uprobes &&
		   obs_ssl_probes_possible(conn, got->ssl_why, sizeof(got->ssl_why));
	if (p->no_tls_uprobes)
		snprintf(got->ssl_why, sizeof(got->ssl_why), "uprobes switched off (--no-tls-uprobes)");
	obs_ssl_probes_plan(conn, got->ssl);
	err = configure(s, p);
	if (err) {
		ll_warn(prog, "cannot size the request-timing maps: %s", strerror(-err));
		return err;
	}
	if (p->arrivals_sampled)
		bpf_program__set_autoattach(got->arrival, false);
	detach(prog, s, got, p->detach);
	/* HTTP/2 statuses: the server's header blocks, found where the walk finds the write's
	 * buffer (the task's user registers) */
	got->h2_headers = p->h2_headers && obs_sockets_features(conn)->user_regs;
	s->rodata->targ_h2_hb = got->h2_headers;
	s->rodata->targ_h2_frames = p->h2_frames ? p->h2_frames : LL_H2_FRAMES;
	if (!got->h2_headers)
		bpf_map__set_max_entries(s->maps.h2_hb, (uint32_t)sysconf(_SC_PAGESIZE));
	return 0;
}

void obs_reqtime_mech_off(struct obs_sockets *conn)
{
	struct sockets_bpf *s = obs_sockets_skel(conn);

	tier_off(s, OBS_REQTIME_MECH_TRACEPOINT);
	tier_off(s, OBS_REQTIME_MECH_FENTRY);
	prog_off(s->progs.handle_sched_wakeup);
	prog_off(s->progs.handle_sched_wakeup_new);
	prog_off(s->progs.handle_sched_switch);
	/* the shared programs still reference these maps: keep them, at their smallest */
	bpf_map__set_max_entries(s->maps.recs, 1);
	bpf_map__set_max_entries(s->maps.tcp_slots, 1);
	bpf_map__set_max_entries(s->maps.tls_hs, 1);
	bpf_map__set_max_entries(s->maps.h2_streams, 1);
	bpf_map__set_max_entries(s->maps.h2_runs, 1);
	bpf_map__set_max_entries(s->maps.trace, (uint32_t)sysconf(_SC_PAGESIZE));
	bpf_map__set_max_entries(s->maps.h2_hb, (uint32_t)sysconf(_SC_PAGESIZE));
	obs_ssl_probes_plan(conn, false);
}

bool obs_reqtime_mech_payload(struct obs_sockets *conn, bool off, int64_t period_us)
{
	struct sockets_bpf *s = obs_sockets_skel(conn);

	/* the read's buffer is found through the task's user registers (OBS_SYSCALL_REGS) */
	if (off || !obs_sockets_features(conn)->user_regs)
		return false;
	if (period_us >= 0)
		s->rodata->targ_payload_period_ns = (uint64_t)period_us * 1000;
	s->rodata->targ_payload = 1;
	return true;
}

uint64_t obs_reqtime_mech_missed(struct obs_sockets *conn, enum obs_reqtime_mech m)
{
	struct sockets_bpf *s = obs_sockets_skel(conn);
	struct bpf_program *progs[TIER_PROGS + 4];
	size_t n;

	tier_progs(s, m, progs);
	for (n = 0; progs[n]; n++)
		;
	progs[n++] = s->progs.handle_sched_wakeup;
	progs[n++] = s->progs.handle_sched_wakeup_new;
	progs[n++] = s->progs.handle_sched_switch;
	return obs_bpfread_progs_missed(progs, n) + obs_ssl_probes_missed(conn);
}
