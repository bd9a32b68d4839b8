// SPDX-License-Identifier: MIT
/* One tick's read phase (tick_reader.h): every read of the interval, in its order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "kernel/lean.h"
#include "kernel/systier.h"
#include "sources/fds.h"
#include "sources/h2_status.h"
#include "sources/holders.h"
#include "sources/payload_read.h"
#include "sources/reqtime_stats.h"
#include "sources/tick_reader.h"
#include "sources/watched.h"

struct obs_reader {
	struct obs_reader_opts o;
	struct obs_reads reads;
	struct obs_census_plan plan;
	bool have_census;	/* a walk succeeded this run */
	uint64_t noport_prev;	/* connect()'s port searches that failed, at the last read */
	struct obs_fail_stats fail_prev;
};

struct obs_reader *obs_reader_new(void)
{
	return calloc(1, sizeof(struct obs_reader));
}

void obs_reader_set(struct obs_reader *rd, const struct obs_reader_opts *o)
{
	rd->o = *o;
}

void obs_reader_free(struct obs_reader *rd)
{
	free(rd);
}

struct obs_census_plan *obs_reader_census_plan(struct obs_reader *rd)
{
	return &rd->plan;
}

bool obs_reader_listen_base(struct obs_reader *rd)
{
	obs_census_listen_queue(rd->o.census, &rd->reads.listeners, &rd->reads.lq);
	obs_sockets_base(rd->o.conn, &rd->reads.lq);
	return rd->reads.lq.ok;
}

bool obs_census_plan_due(const struct obs_census_plan *p, double t, bool final, int64_t cw_moved,
			 uint64_t noport_d)
{
	if (final || t >= p->next_t)
		return true;
	if (p->cw_watch && p->cw_base + cw_moved >= 10 && t >= p->cw_from_t)
		return true;
	return noport_d && t >= p->noport_from_t;
}

/* Is the walk due at this read? */
static bool census_due(const struct obs_reader *rd, uint64_t noport_d)
{
	const uint64_t *mv = rd->reads.sockets.moves;
	int64_t moved = (int64_t)mv[OBS_TCP_CLOSE_WAIT] -
			(int64_t)mv[OBS_TCP_STATES + OBS_TCP_CLOSE_WAIT];

	return obs_census_plan_due(&rd->plan, rd->reads.t, rd->reads.final, moved, noport_d);
}

/* The walk, between two reads of the state moves (tick_reader.h). */
static void census_walk(struct obs_reader *rd, uint64_t noport_d)
{
	struct obs_reads *r = &rd->reads;
	bool around;

	if (rd->o.census && !census_due(rd, noport_d)) {
		r->census = OBS_READS_CENSUS_DEFERRED;
		return;
	}
	if (!rd->o.census) {
		r->census = OBS_READS_CENSUS_FAILED;
		return;
	}
	around = !obs_sockets_read_moves(rd->o.conn, r->moves_before);
	if (obs_census_take(rd->o.census, &r->walk)) {
		r->census = OBS_READS_CENSUS_FAILED;
		return;
	}
	r->census = OBS_READS_CENSUS_TAKEN;
	rd->have_census = true;
	r->moves_around = around && !obs_sockets_read_moves(rd->o.conn, r->moves_after);
	if (!r->moves_around) {
		memcpy(r->moves_before, r->sockets.moves, sizeof(r->moves_before));
		memcpy(r->moves_after, r->sockets.moves, sizeof(r->moves_after));
	}
}

/* connect()'s EADDRNOTAVAIL this interval, as the rules' snapshot counts it: the kernel's failed
 * port searches on the target ports, plus, with --pid/--cgroup, the failed calls. */
static uint64_t eaddrnotavail(const struct obs_reader *rd, uint64_t noport_d)
{
	const struct obs_reads *r = &rd->reads;
	uint64_t n = noport_d;
	unsigned int k;

	if (rd->o.local_fails)
		return noport_d;
	if (r->fail_err)
		return 0;
	for (k = 0; k < OBS_SYS_MAX; k++)
		n += r->fail.sys[k][OBS_FAIL_EADDRNOTAVAIL] -
		     rd->fail_prev.sys[k][OBS_FAIL_EADDRNOTAVAIL];
	return n;
}

/* The processes: the watched set, the file table, the holders of a pressed port group. */
static void processes(struct obs_reader *rd, uint64_t noport_d)
{
	struct obs_reads *r = &rd->reads;
	const struct obs_census *cs = rd->have_census ? &r->walk : NULL;

	if (rd->o.watched)
		obs_watched_tick(rd->o.watched, r->t, rd->o.census ? &r->walk : NULL);
	r->have_files = !obs_fd_system(&r->file_nr, &r->file_max);
	if (rd->o.holders && rd->o.watched)
		obs_holders_read(rd->o.holders, rd->o.watched->fdit, rd->o.netns, cs,
				 r->census == OBS_READS_CENSUS_TAKEN, eaddrnotavail(rd, noport_d),
				 r->t);
}

/* Request timing's counters; the final read after the --trace writer stopped, and before the
 * HTTP/2 status reader stops (the ring then holds every header block of the streams counted). */
static void requests(struct obs_reader *rd)
{
	struct obs_reads *r = &rd->reads;
	const struct obs_reader_opts *o = &rd->o;
	size_t i;
	int err;

	r->req = o->rt ? o->req : NULL;
	r->h2 = NULL;
	r->pl = o->rt ? o->pl : NULL;
	r->nreaders = 0;
	if (!o->rt)
		return;
	if (r->final) {
		obs_reqtime_trace_stop(o->rt);
		if (o->arrivals)
			obs_reqtime_arrival_share(o->rt, obs_systier_share(o->arrivals));
	}
	obs_lean_pass(o->lean); /* responses the copy hook alone has not seen yet */
	r->req_err = obs_reqtime_read(o->rt, o->req);
	if (!r->req_err)
		r->req_err = obs_payload_read(o->payload, o->pl);
	if (r->final)
		obs_h2_status_stop(o->h2s);
	/* the statuses decoded by now (on the final read, all: the reader drained the ring) */
	r->h2 = o->h2s && o->h2c ? o->h2c : NULL;
	for (i = 0; r->h2 && i < o->req->nslots; i++)
		obs_h2_status_read(o->h2s, i, &o->h2c[i]);
	if (!r->req_err && o->req->global[RT_G_FOREIGN])
		r->nreaders = obs_reqtime_foreign(o->rt, r->readers, OBS_SNAP_NOTES);
	/* the sampled arrivals' window, one interval in ten */
	if (!r->final && o->arrivals) {
		err = obs_systier_tick(o->arrivals, NULL, false);
		if (err)
			ll_warn(o->prog, "note: cannot switch the syscall tracepoints: %s",
				strerror(-err));
	}
}

int obs_reader_read(struct obs_reader *rd, double t, bool final, const struct obs_reads **out)
{
	struct obs_reads *r = &rd->reads;
	uint64_t noport_d;
	int err;

	*out = r;
	r->t = t;
	r->final = final;
	obs_census_listen_queue(rd->o.census, &r->listeners, &r->lq);
	err = obs_sockets_read(rd->o.conn, &r->sockets);
	if (err) {
		ll_warn(rd->o.prog, "cannot read BPF maps: %s", strerror(-err));
		return err;
	}
	obs_sockets_accepted(rd->o.conn, &r->sockets, &r->lq);
	noport_d = r->sockets.ctr[OBS_CTR_CONNECT_NOPORT] - rd->noport_prev;
	rd->noport_prev = r->sockets.ctr[OBS_CTR_CONNECT_NOPORT];
	rd->fail_prev = r->fail;
	r->fail_err = obs_fail_read(rd->o.fail, &r->fail);
	r->targets_full_pid = obs_fail_targets_full_pid(rd->o.fail);
	census_walk(rd, noport_d);
	processes(rd, noport_d);
	r->have_netstat = rd->o.census && !obs_census_netstat(rd->o.census, &r->netstat);
	requests(rd);
	return 0;
}
