// SPDX-License-Identifier: MIT
/* The syscall tier's pressure, derived from the interval's snapshots, and the feature that
 * switches the tier on it (features/pressure.h). */
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "kernel/skeletons.h"
#include "kernel/systier.h"
#include "features/feature.h"
#include "features/pressure.h"
#include "tick/snapshots.h"

const char *obs_pressure(const struct obs_tick *tk)
{
	const struct obs_sockstat_snap *ss = tk->sockstat;
	const struct obs_processes_snap *ps = tk->procs;
	unsigned int s;

	if (ps && ps->fd_pct >= 50)
		return "fds past half their limit";
	if (ps && ps->have_files && ps->file_max && ps->file_nr * 2 >= ps->file_max)
		return "open files past half of fs.file-max";
	if (ss && ss->ports.pct >= 50)
		return "ephemeral ports past half the range";
	for (s = 0; tk->fail && s < OBS_SYS_MAX; s++)
		if (tk->fail->sys[s][OBS_FAIL_EADDRNOTAVAIL] || tk->fail->sys[s][OBS_FAIL_EMFILE] ||
		    tk->fail->sys[s][OBS_FAIL_ENFILE])
			return "syscalls failing for want of ports or fds";
	if (tk->netstat && tk->netstat->overflows_drops)
		return "listen overflows or drops";
	if (ss && ss->cs.listen_backlog && ss->cs.listen_qlen_max * 2 >= ss->cs.listen_backlog)
		return "accept queue past half its backlog";
	return NULL;
}

bool obs_pressure_queue_building(const struct obs_tick *tk)
{
	const struct obs_sockstat_snap *ss = tk->sockstat;

	return ss && ss->cs.listen_backlog && ss->cs.listen_qlen_max * 4 >= ss->cs.listen_backlog;
}

struct obs_pressure_feature {
	const char *prog;
	struct obs_kernel *k;
	struct obs_systier *tier; /* from the start: the objects make it at attach */
};

struct obs_pressure_feature *obs_pressure_new(const char *prog, struct obs_kernel *k)
{
	struct obs_pressure_feature *p = calloc(1, sizeof(*p));

	if (p) {
		p->prog = prog;
		p->k = k;
	}
	return p;
}

static int start_feature(void *self)
{
	struct obs_pressure_feature *p = self;

	p->tier = obs_kernel_systier(p->k);
	return 0;
}

/* The interval's sign of pressure switches the tier (AUTO mode) for the intervals after it. */
static int tick(void *self, struct obs_tick *tk)
{
	struct obs_pressure_feature *p = self;
	int err = obs_systier_tick(p->tier, obs_pressure(tk), obs_pressure_queue_building(tk));

	if (err)
		ll_warn(p->prog, "note: cannot switch the syscall tracepoints: %s", strerror(-err));
	return 0;
}

/* After the final read there is no interval left to switch for. */
static int finish(void *self, struct obs_tick *tk)
{
	(void)self;
	(void)tk;
	return 0;
}

const struct obs_feature obs_pressure_ops = {
	.name = "pressure", .start = start_feature, .tick = tick, .finish = finish,
};
