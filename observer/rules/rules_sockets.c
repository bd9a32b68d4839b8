// SPDX-License-Identifier: MIT
/* Rules on sockets: ephemeral ports, TIME_WAIT, FIN_WAIT2, CLOSE_WAIT, listen queues. */
#include <stdio.h>
#include <string.h>
#include "rules/rules.h"

#define TW_HOLD_S 60 /* TCP_TIMEWAIT_LEN */

/* Census snapshots, newest first, up to max. */
static unsigned int censuses(const struct obs_snap_hist *h, const struct obs_snap **out,
				unsigned int max)
{
	const struct obs_snap *s;
	unsigned int b, n = 0;

	for (b = 0; n < max && (s = obs_snap_at(h, b)); b++)
		if (s->census)
			out[n++] = s;
	return n;
}

static bool rules_sockets_reuse(const struct obs_snap *s, const struct obs_snap_group *g)
{
	return s->tw_reuse == 1 || (s->tw_reuse == 2 && g->loopback);
}

/* Ports of g a new connect() cannot take: TIME_WAIT ones are reusable with tcp_tw_reuse. */
static uint32_t rules_sockets_held(const struct obs_snap *s, const struct obs_snap_group *g)
{
	return g->in_use - (rules_sockets_reuse(s, g) ? g->time_wait : 0);
}

static const struct obs_snap_group *group(const struct obs_snap *s,
					     const struct obs_snap_group *g)
{
	size_t i;

	for (i = 0; i < s->ngroups; i++)
		if (s->group[i].dport == g->dport && !strcmp(s->group[i].src, g->src) &&
		    !strcmp(s->group[i].dst, g->dst))
			return &s->group[i];
	return NULL;
}

/* Growth of the held ports of g (ports/s) over the censuses, or 0 with fewer than 3, or when it
 * is slowing down and would level off below the range (obs_rule_growth_left). */
static double growth(const struct obs_snap_hist *h, const struct obs_snap_group *g, double range)
{
	double left;
	const struct obs_snap *cs[OBS_SNAP_HIST];
	const struct obs_snap_group *o;
	double t[OBS_SNAP_HIST], y[OBS_SNAP_HIST];
	unsigned int i, n = censuses(h, cs, OBS_SNAP_HIST), k = 0;

	for (i = 0; i < n; i++) {
		o = group(cs[i], g);
		if (!o)
			break;
		t[k] = cs[i]->t;
		y[k++] = rules_sockets_held(cs[i], o);
	}
	if (k < 3 || t[0] - t[k - 1] < 2.0)
		return 0;
	left = obs_rule_growth_left(t, y, k);
	if (left >= 0 && y[0] + left < range)
		return 0;
	return obs_rule_slope(t, y, k);
}

/* The latest census of the kept history that saw a connecting group, or NULL. */
static const struct obs_snap *census_groups(const struct obs_snap_hist *h)
{
	const struct obs_snap *s;
	unsigned int b;

	for (b = 0; b < OBS_SNAP_HIST && (s = obs_snap_at(h, b)); b++)
		if (s->census && s->ngroups && s->range)
			return s;
	return NULL;
}

/*
 * The processes whose connect() ran out of ports (snapshot portfail): ", in haproxy (pid 42:
 * 4,000)" into who, and their evidence [{pid, comm, failures, failures_total}] (failures: this
 * interval, against the previous snapshot's count).
 */
static json_t *portfail(const struct obs_snap_hist *h, char *who, size_t len)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *prev = obs_snap_at(h, 1);
	const struct obs_snap_portfail *p;
	json_t *a = json_array();
	uint64_t before;
	char n[32];
	size_t i, k, w;

	who[0] = '\0';
	for (i = 0, w = 0; i < now->nportfail; i++) {
		p = &now->portfail[i];
		before = 0;
		for (k = 0; prev && k < prev->nportfail; k++)
			if (prev->portfail[k].pid == p->pid && prev->portfail[k].total <= p->total)
				before = prev->portfail[k].total;
		json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:I}", "pid", (int)p->pid,
						   "comm", p->comm, "failures",
						   (json_int_t)(p->total - before), "failures_total",
						   (json_int_t)p->total));
		if (w < len)
			w += (size_t)snprintf(who + w, len - w, "%s%s (pid %u: %s)",
					      i ? ", " : ", in ", p->comm, p->pid,
					      obs_rule_num(p->total, n, sizeof(n)));
	}
	if (now->portfail_more && w < len)
		snprintf(who + w, len - w, " and %zu more processes", now->portfail_more);
	return a;
}

/* A holders pass older than this (s) names no one: the processes may have gone since. */
#define HOLDERS_STALE_S 10.0

/* Is pid one of the watched processes (a --pid target, or the owner of a target listener)? */
static bool watched_pid(const struct obs_snap *s, uint32_t pid)
{
	size_t i;

	for (i = 0; pid && i < s->nprocs; i++)
		if (s->proc[i].pid == pid && s->proc[i].watched)
			return true;
	return false;
}

/* What the kernel shows of how holder q reads its connections: "and reads none (9,000 bytes
 * wait in their receive queues)", or "" when it reads them. */
static void holder_reads(const struct obs_snap_holder *q, char *buf, size_t len)
{
	char a[32], b[32];

	if (q->never_read && q->never_read == q->conns)
		snprintf(buf, len, " and reads none (%s bytes wait in their receive queues)",
			 obs_rule_num(q->unread_bytes, a, sizeof(a)));
	else if (q->unread * 2 >= q->conns && q->unread)
		snprintf(buf, len, " and leaves %s of them unread (%s bytes in their receive "
			 "queues)", obs_rule_num(q->unread, a, sizeof(a)),
			 obs_rule_num(q->unread_bytes, b, sizeof(b)));
	else if (q->idle == q->conns)
		snprintf(buf, len, ", idle (no byte sent or received on them)");
	else
		buf[0] = '\0';
}

/*
 * Who holds the connections of group g, where the latest holders pass counted them (features/
 * holders.h): "; pid 42 (python3) holds 900 connections to this server and reads none (...);
 * pid 43 (loadlens-driver) 98" into buf ("" if none), and their evidence (null if none).
 */
static json_t *holders(const struct obs_snap *now, const struct obs_snap_group *g, char *buf,
		       size_t len)
{
	const struct obs_snap_holders *hs = &now->holders;
	const struct obs_snap_holder *q;
	uint64_t held = 0;
	json_t *o, *a;
	char n[32], m[32], reads[128], to[96];
	bool here;
	size_t i, w;

	buf[0] = '\0';
	if (!hs->on || hs->of.dport != g->dport || strcmp(hs->of.src, g->src) ||
	    strcmp(hs->of.dst, g->dst) || now->t - hs->t > HOLDERS_STALE_S)
		return json_null();
	a = json_array();
	for (i = 0; i < hs->n; i++) {
		q = &hs->holder[i];
		held += q->conns;
		json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I}", "pid",
						   (int)q->pid, "comm", q->comm, "connections",
						   (json_int_t)q->conns, "unread", (json_int_t)q->unread,
						   "never_read", (json_int_t)q->never_read,
						   "unread_bytes", (json_int_t)q->unread_bytes, "idle",
						   (json_int_t)q->idle));
	}
	held += hs->more_conns + hs->lost;
	here = watched_pid(now, hs->server_pid);
	o = json_pack("{s:f, s:o, s:I, s:I, s:I, s:I, s:o}", "at_s", hs->t, "processes", a,
		      "other_processes", (json_int_t)hs->more, "other_connections",
		      (json_int_t)hs->more_conns, "lost", (json_int_t)hs->lost, "unheld",
		      (json_int_t)(hs->of.in_use > held ? hs->of.in_use - held : 0), "server",
		      hs->server_pid ? json_pack("{s:i, s:s, s:b}", "pid", (int)hs->server_pid,
						 "comm", hs->server_comm, "watched", here)
				     : json_null());
	if (!hs->n)
		return o;
	/* the most: in full, with how it reads them; the next one by count */
	q = &hs->holder[0];
	holder_reads(q, reads, sizeof(reads));
	if (here)
		snprintf(to, sizeof(to), "connections to this server (%s, pid %u)", hs->server_comm,
			 hs->server_pid);
	else
		snprintf(to, sizeof(to), "of them");
	w = (size_t)snprintf(buf, len, "; pid %u (%s) holds %s %s%s", q->pid, q->comm,
			     obs_rule_num(q->conns, n, sizeof(n)), to, reads);
	if (hs->n > 1 && w < len)
		w += (size_t)snprintf(buf + w, len - w, "; pid %u (%s) %s", hs->holder[1].pid,
				      hs->holder[1].comm,
				      obs_rule_num(hs->holder[1].conns, n, sizeof(n)));
	if (hs->n > 2 && w < len)
		snprintf(buf + w, len - w, ", %zu more processes %s", hs->n - 2 + hs->more,
			 obs_rule_num(held - q->conns - hs->holder[1].conns - hs->lost, m,
				      sizeof(m)));
	return o;
}

void obs_rule_port_exhaustion(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *cs = obs_rule_census(h, 3, NULL);
	uint64_t fails = now->fails[OBS_SNAP_EADDRNOTAVAIL];
	uint64_t total = now->fails_total[OBS_SNAP_EADDRNOTAVAIL] > fails
				 ? now->fails_total[OBS_SNAP_EADDRNOTAVAIL]
				 : fails;
	double frate = now->dt > 0 ? fails / now->dt : 0;
	const char *sys = now->fails_sys[OBS_SNAP_EADDRNOTAVAIL];
	char a[32], b[32], c[32], tot[32], key[112], fc[96], why[256];
	const struct obs_snap_group *g;
	double pct, rate, tte;
	uint32_t held;
	size_t i;
	bool reuse, tw_wait;
	char who[160], hold[224];
	json_t *procs, *ev;

	if (!sys)
		sys = "connect";
	/* failures are the group's that ran out, however old the census that named it (censuses
	 * are spaced): one finding per cause, under one key */
	if (fails && (!cs || !cs->ngroups))
		cs = census_groups(h);
	if (fails && (!cs || !cs->ngroups || !cs->range)) {
		procs = portfail(h, who, sizeof(who));
		obs_findings_add(out, "port_exhaustion", OBS_SEV_CRITICAL, "",
				 json_pack("{s:I, s:f, s:I, s:o}", "failures", (json_int_t)fails,
					   "failures_per_s", frate, "failures_total",
					   (json_int_t)total, "processes", procs),
				 "ports: %s() failed with EADDRNOTAVAIL %s time%s (%.0f/s; %s since the "
				 "start%s): no ephemeral port left; %s", sys,
				 obs_rule_num(fails, a, sizeof(a)), fails == 1 ? "" : "s", frate,
				 obs_rule_num(total, tot, sizeof(tot)), who,
				 obs_rule_census(h, OBS_SNAP_HIST - 1, NULL)
					 ? "no census found the connecting sockets in the watched "
					   "network namespace"
					 : "no census has named the connecting side yet");
		return;
	}
	if (!cs || !cs->range)
		return;
	for (i = 0; i < cs->ngroups; i++) {
		g = &cs->group[i];
		reuse = rules_sockets_reuse(cs, g);
		held = rules_sockets_held(cs, g);
		pct = 100.0 * held / cs->range;
		if (pct > 100)
			pct = 100;
		/* the failures are the most pressed group's: it is the one that runs out */
		if (!(i == 0 && fails) && pct < OBS_RULE_PORT_PCT)
			continue;
		rate = growth(h, g, (double)cs->range);
		tte = -1;
		fc[0] = '\0';
		if (rate > 0.5 && held < cs->range) {
			tte = (cs->range - held) / rate;
			if (tte <= OBS_RULE_HORIZON_S)
				snprintf(fc, sizeof(fc), "; full in ~%.0f s at %+.0f/s", tte, rate);
			else
				tte = -1;
		}
		/* the cause follows the census: FIN_WAIT2 only where orphans hold the ports, and
		 * TIME_WAIT that tcp_tw_reuse lets a connect() take once it is 1 s old is no
		 * 60 s hold */
		tw_wait = reuse && g->time_wait && g->time_wait * 2 >= g->in_use;
		if (held && g->fin_wait2 * 2 >= held)
			snprintf(why, sizeof(why), "most are FIN_WAIT2 orphans: the peer never closes, "
				 "and each is freed only after tcp_fin_timeout (%d s)",
				 cs->fin_timeout_s);
		else if (held && g->time_wait * 2 >= held && !reuse)
			snprintf(why, sizeof(why), "most are TIME_WAIT, held %d s each with "
				 "net.ipv4.tcp_tw_reuse %d: reuse connections (keep-alive) or set "
				 "tcp_tw_reuse to 1", TW_HOLD_S, cs->tw_reuse);
		else if (tw_wait)
			snprintf(why, sizeof(why), "most are TIME_WAIT, which net.ipv4.tcp_tw_reuse %d "
				 "lets a connect() take once it is 1 s old: more new connections a "
				 "second than the range has ports; reuse connections (keep-alive) or "
				 "widen net.ipv4.ip_local_port_range", cs->tw_reuse);
		else if (!g->in_use)
			snprintf(why, sizeof(why), "the census found none of its sockets (they come "
				 "and go between censuses)");
		else
			snprintf(why, sizeof(why), "most are open connections: open fewer, or widen "
				 "net.ipv4.ip_local_port_range");
		snprintf(key, sizeof(key), "%s -> %s:%u", g->src, g->dst, g->dport);
		if (i == 0 && fails) {
			procs = portfail(h, who, sizeof(who));
			ev = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:I, s:f, s:i, s:i, s:i, s:I, s:o}",
				       "group", key, "src", g->src, "dst", g->dst, "dport",
				       (int)g->dport, "in_use", (int)held, "range", (int)cs->range,
				       "pct", pct, "failures", (json_int_t)fails, "failures_per_s",
				       frate, "time_wait", (int)g->time_wait, "fin_wait2",
				       (int)g->fin_wait2, "tw_reuse", cs->tw_reuse, "failures_total",
				       (json_int_t)total, "processes", procs);
			json_object_set_new(ev, "holders", holders(now, g, hold, sizeof(hold)));
			obs_findings_add(out, "port_exhaustion", OBS_SEV_CRITICAL, key, ev,
				"ports: %s has run out of ephemeral ports: %s() failed with "
				"EADDRNOTAVAIL %s time%s in %.1f s (%.0f/s; %s since the start%s); %s of "
				"%s ports %s (%s in TIME_WAIT)%s; %s", key, sys,
				obs_rule_num(fails, a, sizeof(a)), fails == 1 ? "" : "s", now->dt, frate,
				obs_rule_num(total, tot, sizeof(tot)), who,
				obs_rule_num(tw_wait ? g->in_use : held, b, sizeof(b)),
				obs_rule_num(cs->range, c, sizeof(c)), tw_wait ? "in use" : "held",
				obs_rule_num(g->time_wait, fc, sizeof(fc)), hold, why);
		} else {
			ev = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:I, s:i, s:i, s:i, s:o}",
				       "group", key, "src", g->src, "dst", g->dst, "dport",
				       (int)g->dport, "in_use", (int)held, "range", (int)cs->range,
				       "pct", pct, "failures", (json_int_t)0, "time_wait",
				       (int)g->time_wait, "fin_wait2", (int)g->fin_wait2, "tw_reuse",
				       cs->tw_reuse, "forecast_s",
				       tte >= 0 ? json_real(tte) : json_null());
			json_object_set_new(ev, "holders", holders(now, g, hold, sizeof(hold)));
			obs_findings_add(out, "port_exhaustion", OBS_SEV_WARNING, key, ev,
				"ports: %s holds %s of %s ephemeral ports (%.0f%%)%s%s; %s", key,
				obs_rule_num(held, a, sizeof(a)), obs_rule_num(cs->range, b, sizeof(b)),
				pct, fc, hold, why);
		}
	}
}

void obs_rule_time_wait(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	uint64_t tw = now->state[OBS_SNAP_TIME_WAIT], srv = 0;
	char a[32], b[32], side[128] = "";
	size_t i;

	if (!now->census)
		return;
	for (i = 0; i < now->nports; i++)
		if (now->port[i].server_side)
			srv += now->port[i].time_wait;
	if (srv)
		snprintf(side, sizeof(side), "; %s of them are the server's, which cost memory and "
			 "the census, not ports", obs_rule_num(srv, a, sizeof(a)));
	if (now->tw_overflow) {
		obs_findings_add(out, "time_wait", OBS_SEV_WARNING, "",
				 json_pack("{s:I, s:I, s:I}", "count", (json_int_t)tw, "overflow",
					   (json_int_t)now->tw_overflow, "max_tw_buckets",
					   (json_int_t)now->max_tw_buckets),
				 "TIME_WAIT: the table is full (net.ipv4.tcp_max_tw_buckets %lld): %s "
				 "connections closed without TIME_WAIT in %.1f s; %s sockets in "
				 "TIME_WAIT%s", (long long)now->max_tw_buckets,
				 obs_rule_num(now->tw_overflow, a, sizeof(a)), now->dt,
				 obs_rule_num(tw, b, sizeof(b)), side);
		return;
	}
	if (now->max_tw_buckets <= 0 ||
	    tw * 100.0 < OBS_RULE_TW_BUCKETS_PCT * (double)now->max_tw_buckets)
		return;
	obs_findings_add(out, "time_wait", OBS_SEV_WARNING, "",
			 json_pack("{s:I, s:I, s:I, s:I}", "count", (json_int_t)tw, "memory_bytes",
				   (json_int_t)(tw * OBS_RULE_TW_BYTES), "max_tw_buckets",
				   (json_int_t)now->max_tw_buckets, "server_side", (json_int_t)srv),
			 "TIME_WAIT: %s sockets hold about %.1f MB of kernel memory, %.0f%% of "
			 "net.ipv4.tcp_max_tw_buckets %lld; past it, closes skip TIME_WAIT%s",
			 obs_rule_num(tw, a, sizeof(a)), tw * OBS_RULE_TW_BYTES / 1048576.0,
			 100.0 * tw / now->max_tw_buckets, (long long)now->max_tw_buckets, side);
}

/* Count of a state on port (index into s->port by port number), or the total when port is 0. */
static int64_t port_count(const struct obs_snap *s, uint16_t port, int state)
{
	size_t i;

	if (!port)
		return (int64_t)s->state[state];
	for (i = 0; i < s->nports; i++)
		if (s->port[i].port == port)
			return state == OBS_SNAP_FIN_WAIT2  ? s->port[i].fin_wait2
			       : state == OBS_SNAP_TIME_WAIT ? s->port[i].time_wait
							     : s->port[i].close_wait;
	return 0;
}

/* Sockets of a state (FIN_WAIT2 or CLOSE_WAIT) on port that are old by the census, or the total
 * when port is 0. */
static int64_t port_old(const struct obs_snap *s, uint16_t port, int state)
{
	bool fw2 = state == OBS_SNAP_FIN_WAIT2;
	int64_t old = (int64_t)(fw2 ? s->fin_wait2_old : s->close_wait_old);
	size_t i;

	for (i = 0; port && i < s->nports; i++)
		if (s->port[i].port == port)
			old = fw2 ? s->port[i].fin_wait2_old : s->port[i].close_wait_old;
	return old;
}

/* A per-port finding's key ("port 8080", "port 0" for the totals) and its " on port 8080" (left
 * as it is for the totals). */
static void port_key(uint16_t port, char key[16], char on[32])
{
	snprintf(key, 16, "port %u", port);
	if (port)
		snprintf(on, 32, " on port %u", port);
}

/* The ports to judge in census s: its per-port counts, or 0 (the totals) without them. */
static size_t rules_sockets_ports(const struct obs_snap *s, uint16_t *ports)
{
	size_t i;

	if (!s->nports) {
		ports[0] = 0;
		return 1;
	}
	for (i = 0; i < s->nports; i++)
		ports[i] = s->port[i].port;
	return s->nports;
}

/* A port of a census whose sockets of one state stay: what a per-port rule is told of it. */
struct stale_port {
	const struct obs_snap_hist *h;
	const struct obs_snap *now;
	uint16_t port;	      /* 0: the totals (no per-port counts) */
	int64_t count, old;   /* sockets of the state on it; how many of them are old */
	char key[16], on[32]; /* "port 8080"; " on port 8080" ("" for the totals) */
};

/* Calls rule for each port of the latest census whose old sockets of state reach min. */
static void each_stale_port(const struct obs_snap_hist *h, int state, int64_t min,
			    void (*rule)(const struct stale_port *sp, struct obs_findings *out),
			    struct obs_findings *out)
{
	uint16_t ports[OBS_SNAP_PORTS];
	struct stale_port sp = {.h = h, .now = obs_snap_at(h, 0)};
	size_t i, n;

	if (!sp.now->census)
		return;
	n = rules_sockets_ports(sp.now, ports);
	for (i = 0; i < n; i++) {
		sp.port = ports[i];
		sp.count = port_count(sp.now, sp.port, state);
		sp.old = port_old(sp.now, sp.port, state);
		if (sp.old < min)
			continue;
		port_key(sp.port, sp.key, sp.on);
		rule(&sp, out);
	}
}

static void fin_wait2_port(const struct stale_port *sp, struct obs_findings *out)
{
	const struct obs_snap *now = sp->now;
	char a[32];

	obs_findings_add(out, "fin_wait2_orphans", OBS_SEV_WARNING, sp->key,
			 json_pack("{s:i, s:I, s:I, s:i}", "port", (int)sp->port, "count",
				   (json_int_t)sp->count, "old", (json_int_t)sp->old,
				   "fin_timeout_s", now->fin_timeout_s),
			 "FIN_WAIT2: %s connections%s closed by this side wait in FIN_WAIT2 for a "
			 "peer that never closes%s; they are freed after tcp_fin_timeout (%d s)",
			 obs_rule_num((uint64_t)sp->count, a, sizeof(a)), sp->on,
			 sp->port && port_count(now, sp->port, OBS_SNAP_CLOSE_WAIT)
				 ? " (the peers are here: the sockets in CLOSE_WAIT on the same port)"
				 : "",
			 now->fin_timeout_s);
}

void obs_rule_fin_wait2(const struct obs_snap_hist *h, struct obs_findings *out)
{
	/* a close under way leaves FIN_WAIT2 within a round trip; these stay */
	each_stale_port(h, OBS_SNAP_FIN_WAIT2, OBS_RULE_FW2_MIN, fin_wait2_port, out);
}

/* The one live watched process, or NULL when there are none or several. */
static const struct obs_snap_proc *only_proc(const struct obs_snap *s)
{
	const struct obs_snap_proc *p = NULL;
	size_t i;

	for (i = 0; i < s->nprocs; i++) {
		if (!s->proc[i].watched || s->proc[i].exited)
			continue;
		if (p)
			return NULL;
		p = &s->proc[i];
	}
	return p;
}

static void close_wait_port(const struct stale_port *sp, struct obs_findings *out)
{
	const struct obs_snap *cs[8];
	const struct obs_snap_proc *p = only_proc(sp->now);
	double t[8], y[8];
	unsigned int k, nc = censuses(sp->h, cs, 8);
	char a[32], b[32], who[48] = "";

	if (p)
		snprintf(who, sizeof(who), " (%s, pid %u)", p->comm, p->pid);
	for (k = 0; k < nc; k++) {
		t[k] = cs[k]->t;
		y[k] = (double)port_count(cs[k], sp->port, OBS_SNAP_CLOSE_WAIT);
	}
	obs_findings_add(out, "close_wait_leak", OBS_SEV_WARNING, sp->key,
			 json_pack("{s:i, s:I, s:I, s:i, s:f}", "port", (int)sp->port, "count",
				   (json_int_t)sp->count, "old", (json_int_t)sp->old, "pid",
				   p ? (int)p->pid : 0, "per_s", obs_rule_slope(t, y, nc)),
			 "CLOSE_WAIT: %s connections%s were closed by the peer and never by the "
			 "application%s, %s of them for 0.4 s or more (%+.1f/s): a connection leak",
			 obs_rule_num((uint64_t)sp->count, a, sizeof(a)), sp->on, who,
			 obs_rule_num((uint64_t)sp->old, b, sizeof(b)), obs_rule_slope(t, y, nc));
}

void obs_rule_close_wait(const struct obs_snap_hist *h, struct obs_findings *out)
{
	/* a socket the application forgot stays; one it is closing is gone in a moment */
	each_stale_port(h, OBS_SNAP_CLOSE_WAIT, OBS_RULE_CW_MIN, close_wait_port, out);
}

void obs_rule_listen_overflow(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	char a[32], key[16], port[32] = "a listener";

	/* the counters are the namespace's: a target listener must show it was one of its own */
	if (!now->listen_overflows || !now->listen_target_full)
		return;
	if (now->listen_port)
		snprintf(port, sizeof(port), "port %u", now->listen_port);
	snprintf(key, sizeof(key), "port %u", now->listen_port);
	obs_findings_add(out, "listen_overflow", OBS_SEV_WARNING, key,
			 json_pack("{s:i, s:I, s:i, s:i}", "port", (int)now->listen_port,
				   "overflows", (json_int_t)now->listen_overflows, "backlog",
				   (int)now->listen_backlog, "queue", (int)now->listen_qlen_max),
			 "listen: the accept queue of %s overflowed: %s handshakes dropped in %.1f s "
			 "(queue %u of backlog %u); accept faster or raise the backlog (listen(), "
			 "net.core.somaxconn)", port, obs_rule_num(now->listen_overflows, a, sizeof(a)),
			 now->dt, now->listen_qlen_max, now->listen_backlog);
}

void obs_rule_addrinuse(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	uint64_t n = now->fails[OBS_SNAP_EADDRINUSE];
	const char *sys = now->fails_sys[OBS_SNAP_EADDRINUSE];
	char a[32], b[32];

	if (!n)
		return;
	obs_findings_add(out, "addrinuse", OBS_SEV_WARNING, sys ? sys : "",
			 json_pack("{s:I, s:I, s:s}", "failures", (json_int_t)n, "total",
				   (json_int_t)now->fails_total[OBS_SNAP_EADDRINUSE], "syscall",
				   sys ? sys : "bind"),
			 "addresses: %s() failed with EADDRINUSE %s time%s in %.1f s (%s since "
			 "start): another socket holds that address and port", sys ? sys : "bind",
			 obs_rule_num(n, a, sizeof(a)), n == 1 ? "" : "s", now->dt,
			 obs_rule_num(now->fails_total[OBS_SNAP_EADDRINUSE], b, sizeof(b)));
}
