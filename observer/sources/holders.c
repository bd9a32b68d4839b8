// SPDX-License-Identifier: MIT
/* Who holds the connections of a pressed port group (holders.h). */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include "loadlens/parse.h"
#include "sources/fditer.h"
#include "sources/census.h"
#include "sources/holders.h"
#include "rules/rules.h"

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Is the census' most used group pressed: near the range, or out of ports this interval? */
static bool pressed(const struct obs_census *cs, bool fresh, uint64_t fails)
{
	uint32_t range = cs ? obs_census_range(cs) : 0;

	if (!cs || !cs->ntop || !range)
		return false;
	return fails || (fresh && 100.0 * cs->top[0].in_use >= OBS_RULE_PORT_PCT * range);
}

static void pass(struct obs_holders *h, struct obs_fditer *it, uint32_t netns,
		 const struct obs_port_group *g, double t)
{
	struct obs_fditer_holder out[OBS_SNAP_HOLDERS];
	struct obs_fditer_holders_rest rest;
	struct fdc_hold_key key = {.netns = netns, .dport = g->dport, .family = g->family};
	struct obs_snap_holders *s = &h->last;
	struct obs_snap_holder *q;
	double t0 = mono_ms(), ms;
	ssize_t n, i;

	memcpy(key.saddr, g->saddr, sizeof(key.saddr));
	memcpy(key.daddr, g->daddr, sizeof(key.daddr));
	h->last_t = t;
	h->passes++;
	n = obs_fditer_holders(it, &key, out, OBS_SNAP_HOLDERS, &rest);
	ms = mono_ms() - t0;
	if (ms > h->ms_max)
		h->ms_max = ms;
	if (n == -ENOTSUP) { /* the holders program did not load: no pass from now on */
		h->off = true;
		h->passes--;
		return;
	}
	if (n < 0) {
		h->failed++;
		return;
	}
	memset(s, 0, sizeof(*s));
	s->on = true;
	s->t = t;
	ll_format_ip(g->family, g->saddr, -1, s->of.src, sizeof(s->of.src));
	ll_format_ip(g->family, g->daddr, -1, s->of.dst, sizeof(s->of.dst));
	s->of.dport = g->dport;
	s->of.in_use = g->in_use;
	s->of.time_wait = g->time_wait;
	s->of.fin_wait2 = g->fin_wait2;
	s->n = (size_t)n;
	for (i = 0; i < n; i++) {
		q = &s->holder[i];
		q->pid = out[i].pid;
		memcpy(q->comm, out[i].h.comm, sizeof(q->comm));
		q->comm[sizeof(q->comm) - 1] = '\0';
		q->conns = out[i].h.conns;
		q->unread = out[i].h.unread;
		q->never_read = out[i].h.never_read;
		q->unread_bytes = out[i].h.unread_bytes;
		q->idle = out[i].h.idle;
	}
	s->more = rest.procs;
	s->more_conns = rest.conns;
	s->lost = rest.lost;
	s->server_pid = rest.server_pid;
	memcpy(s->server_comm, rest.server_comm, sizeof(s->server_comm));
	s->server_comm[sizeof(s->server_comm) - 1] = '\0';
}

void obs_holders_read(struct obs_holders *h, struct obs_fditer *it, uint32_t netns,
		      const struct obs_census *cs, bool fresh, uint64_t fails, double t)
{
	if (it && !h->off && pressed(cs, fresh, fails) &&
	    (!h->passes || t >= h->last_t + OBS_HOLDERS_EVERY_S))
		pass(h, it, netns, &cs->top[0], t);
}
