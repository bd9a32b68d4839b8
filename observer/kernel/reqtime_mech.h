/* SPDX-License-Identifier: MIT */
/*
 * How request timing gets its events on this kernel, and its part of the socket object's plan
 * (bpf/sockets.bpf.c, opened by observer/kernel/sockets.c, not yet loaded): which mechanism
 * (probed: tracepoints or BPF trampolines), which programs load, the constants and map sizes.
 * A kernel-probing decision, made once before load; observer/sources/reqtime_stats.c reads the
 * results back through kernel/sockets.c.
 */
#ifndef LOADLENS_OBSERVER_KERNEL_REQTIME_MECH_H
#define LOADLENS_OBSERVER_KERNEL_REQTIME_MECH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/lean.h"

/* How request timing gets its events (docs/observer.md, "Kernels"). */
enum obs_reqtime_mech {
	OBS_REQTIME_MECH_OFF,	     /* none (as a wish: the best this kernel has) */
	OBS_REQTIME_MECH_TRACEPOINT, /* sock:sk_data_ready, sock_recv_length, sock_send_length (6.3+) */
	OBS_REQTIME_MECH_FENTRY,     /* fentry sock_def_readable, fexit inet{,6}_{recv,send}msg */
};

struct obs_sockets;
struct bpf_program;

/* LOADLENS_OBSERVER_DETACH, for measuring what a hook costs (bench/reqtime_overhead.sh): request
 * timing's arrival or send programs load but stay unattached, and its figures are then wrong */
#define OBS_REQTIME_DETACH_ARRIVAL 1u /* sk_data_ready (fentry: sock_def_readable) */
#define OBS_REQTIME_DETACH_SEND 2u    /* sock_send_length (fexit: inet{,6}_sendmsg) */

/* What request timing asks of the socket object. */
struct obs_reqtime_mech_plan {
	enum obs_reqtime_mech want; /* OFF: the best the kernel has */
	bool runq;		    /* --runq */
	const uint16_t *ports;	    /* nports 0: every port */
	size_t nports;
	bool owned;		    /* --pid/--cgroup: the targets' own sockets only */
	bool dyn;		    /* ... without --port: slots labelled by the BPF side */
	size_t nslots;
	int ncpu;
	const char *trace_path; /* --trace, or NULL */
	uint32_t trace_every;
	bool arrivals_sampled; /* the arrival program attached in windows (observer/kernel/systier.c) */
	enum obs_lean_mode lean; /* --lean (observer/kernel/lean.h) */
	bool h2_headers;       /* the server's HTTP/2 header blocks to userspace (statuses) */
	uint32_t h2_frames;    /* the HTTP/2 walk's frames a read or write (tests); 0: LL_H2_FRAMES */
	unsigned int detach;   /* OBS_REQTIME_DETACH_*: hooks loaded but left unattached */
	bool no_tls_uprobes;   /* --no-tls-uprobes: TLS plaintext off (kTLS needs no uprobe) */
};

/* What the plan got. */
struct obs_reqtime_mech_got {
	enum obs_reqtime_mech mech;
	bool close_out; /* inet_sock_set_state (tp_btf) closes out a connection's last response */
	bool accept;	/* sys_exit_accept4 exists: first requests' accept share */
	bool runq;
	struct bpf_program *arrival; /* with arrivals_sampled: for the tier to attach */
	/* the lean hooks can run here: the arrival, recv, copy and send programs, for lean.c's
	 * child; the passes' iterator programs */
	bool lean;
	struct bpf_program *lean_progs[OBS_LEAN_PROGS];
	struct bpf_program *lean_sweep, *lean_udp;
	bool ssl;		     /* TLS plaintext's uprobe programs load (ssl_probes.c) */
	bool h2_headers;	     /* HTTP/2 header blocks go to userspace (needs user registers) */
	char ssl_why[160];	     /* why not */
	char attached[256];	     /* the programs, comma separated */
};

/* The mechanism request timing would use on this kernel (want: OFF for the best, or one to
 * force), or OFF with the reason in why. Probes trampolines: needs privilege. */
enum obs_reqtime_mech obs_reqtime_mech_choose(enum obs_reqtime_mech want, char *why, size_t len);
const char *obs_reqtime_mech_name(enum obs_reqtime_mech m);
/* Switch off what the kernel lacks and size the maps, before load. -ENOTSUP (one note printed):
 * request timing is not possible here; another negative errno: printed. */
int obs_reqtime_mech_plan(const char *prog, struct obs_sockets *conn,
			  const struct obs_reqtime_mech_plan *p, struct obs_reqtime_mech_got *got);
/* No request timing: its programs left out, its maps at their smallest (before load). */
void obs_reqtime_mech_off(struct obs_sockets *conn);
/* Payload sampling on (period_us < 0: the default); false where it cannot run (x86-64 only). */
bool obs_reqtime_mech_payload(struct obs_sockets *conn, bool off, int64_t period_us);
/* Runs the kernel skipped of request timing's programs (mechanism m, run-queue ones). */
uint64_t obs_reqtime_mech_missed(struct obs_sockets *conn, enum obs_reqtime_mech m);

#endif /* LOADLENS_OBSERVER_KERNEL_REQTIME_MECH_H */
