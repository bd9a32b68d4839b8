// SPDX-License-Identifier: MIT
/* Both BPF objects, brought up in one order: open -> plans -> load -> attach -> syscall tier. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "kernel/skeletons.h"

struct obs_kernel {
	const char *prog;
	struct obs_sockets_opts copts;
	struct obs_sockets *conn;
	struct obs_fail *fail;
	struct obs_systier *tier;
};

struct obs_kernel *obs_kernel_open(const char *prog, const struct obs_sockets_opts *copts,
				   bool children)
{
	struct obs_kernel *k = calloc(1, sizeof(*k));
	struct obs_fail_opts fopts = {copts, children};
	int err;

	if (!k)
		return NULL;
	k->prog = prog;
	k->copts = *copts;
	k->conn = obs_sockets_open(prog, copts);
	if (!k->conn)
		goto fail;
	k->fail = obs_fail_open(prog, &fopts);
	if (!k->fail)
		goto fail;
	return k;

fail:
	err = errno;
	obs_kernel_free(k);
	errno = err;
	return NULL;
}

/* Handshakes store their time only while an accept exit may read it (systier.h, on_lead). */
static void handshake_stamps(void *arg, bool on)
{
	struct obs_kernel *k = arg;

	*obs_sockets_handshake_stamps(k->conn) = on;
}

/* The tier's programs of both objects. */
static int systier(struct obs_kernel *k, const struct obs_kernel_start_opts *o,
		      const char *needed_by)
{
	struct bpf_program *progs[OBS_SYSTIER_MAX_PROGS];
	enum obs_systier_mode mode = o->syscalls;
	size_t n;

	n = obs_sockets_tier_progs(k->conn, progs);
	n += obs_fail_tier_progs(k->fail, progs + n, OBS_SYSTIER_MAX_PROGS - n);
	if (obs_sockets_by_calls(k->conn))
		needed_by = "a process filter, --pid or --cgroup";
	if (needed_by && mode != OBS_SYSTIER_ON) {
		if (mode == OBS_SYSTIER_OFF)
			ll_warn(k->prog, "note: accepts are counted at accept() here (%s), which "
					 "--syscalls off leaves out: accepted will read 0", needed_by);
		else
			mode = OBS_SYSTIER_ON;
	}
	if (mode == OBS_SYSTIER_ON)
		handshake_stamps(k, true);
	k->tier = obs_systier_new(k->prog, mode, progs, n);
	if (!k->tier)
		return -errno;
	obs_systier_on_lead(k->tier, handshake_stamps, k);
	/* every syscall of the host is slower while it is attached: a sample of accept-queue
	 * waits needs a moment, not an interval */
	obs_systier_brief_samples(k->tier);
	return 0;
}

int obs_kernel_load(struct obs_kernel *k, const struct obs_kernel_plan *plans, size_t nplans)
{
	size_t i;
	int err;

	for (i = 0; i < nplans; i++) {
		err = plans[i].plan(plans[i].self, k);
		if (err)
			return err;
	}
	err = obs_sockets_load(k->conn, k->prog, &k->copts);
	if (!err)
		err = obs_fail_load(k->fail, k->prog, k->conn);
	return err;
}

int obs_kernel_start(struct obs_kernel *k, const struct obs_kernel_start_opts *o)
{
	const char *needed_by = NULL;
	int err;

	err = obs_kernel_load(k, o->plans, o->nplans);
	if (err)
		return err;
	if (o->before_attach)
		needed_by = o->before_attach(o->arg, k);
	err = obs_sockets_attach(k->conn, k->prog);
	if (!err)
		err = obs_fail_attach(k->fail, k->prog);
	if (!err)
		err = systier(k, o, needed_by);
	return err;
}

void obs_kernel_free(struct obs_kernel *k)
{
	if (!k)
		return;
	obs_systier_free(k->tier);
	obs_fail_free(k->fail);
	obs_sockets_free(k->conn);
	free(k);
}

struct obs_sockets *obs_kernel_conn(struct obs_kernel *k)
{
	return k->conn;
}

struct obs_fail *obs_kernel_fail(struct obs_kernel *k)
{
	return k->fail;
}

struct obs_systier *obs_kernel_systier(struct obs_kernel *k)
{
	return k->tier;
}
