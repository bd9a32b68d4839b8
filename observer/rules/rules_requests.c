// SPDX-License-Identifier: MIT
/* Rules on request timing: busy workers against a busy CPU, and what makes a request count mean
 * something else (pipelining, a UDP socket several threads read). */
#include <stdio.h>
#include <string.h>
#include "rules/rules.h"
#include "rules/cpu_waits.h"

static const struct obs_snap_slot *slot(const struct obs_snap *s, uint16_t port, bool udp)
{
	size_t i;

	for (i = 0; i < s->nslots; i++)
		if (s->slot[i].port == port && s->slot[i].udp == udp)
			return &s->slot[i];
	return NULL;
}

/* Requests waited q in the socket queue: OBS_RULE_SAT_RATIO times their service, and `least`. */
static bool queued_at(const struct obs_snap_slot *sl, double q, double least)
{
	return sl && sl->requests >= OBS_RULE_SAT_MIN_REQUESTS && q >= 0 &&
	       sl->service_p50_ns >= 0 && q >= least &&
	       q >= OBS_RULE_SAT_RATIO * sl->service_p50_ns;
}

/*
 * Saturated for the last OBS_RULE_SAT_INTERVALS: the median request waited in the newest; in an
 * older one it is enough that the queue was building by its end (the p90 waited), or a load that
 * began in the middle of it would need a third interval. tail: the p90 in every one (a server
 * that gets the CPU in turns: queue_in_turns()).
 */
static bool queue_held(const struct obs_snap_hist *h, const struct obs_snap_slot *now,
		       double least, bool tail)
{
	const struct obs_snap_slot *sl;
	const struct obs_snap *s;
	unsigned int k;

	for (k = 0; k < OBS_RULE_SAT_INTERVALS; k++) {
		if (!(s = obs_snap_at(h, k)) || !(sl = slot(s, now->port, now->udp)))
			return false;
		if (!(!tail && queued_at(sl, sl->queue_p50_ns, least)) &&
		    !((k || tail) && queued_at(sl, sl->queue_p90_ns, least)))
			return false;
	}
	return true;
}

static bool runq_high(const struct obs_snap *s)
{
	return s->runq_on && s->runq_count >= OBS_RULE_SAT_MIN_REQUESTS &&
	       s->runq_p50_ns >= OBS_RULE_RUNQ_P50_NS;
}

/*
 * How many of the last OBS_RULE_SAT_INTERVALS snapshots showed the run queue high (0: not
 * saturated). Each must, except an older one with too few wake-ups to judge either way (a load
 * that began late in it): then the newest alone decides, on twice the wake-ups.
 */
static unsigned int cpu_saturated(const struct obs_snap_hist *h)
{
	const struct obs_snap *s;
	unsigned int b, judged = 0;

	for (b = 0; b < OBS_RULE_SAT_INTERVALS; b++) {
		if (!(s = obs_snap_at(h, b)))
			return 0;
		if (runq_high(s)) {
			judged++;
			continue;
		}
		if (b == 0 || !s->runq_on || s->runq_count >= OBS_RULE_SAT_MIN_REQUESTS)
			return 0;
		/* too few wake-ups in an older interval to judge it */
		return judged == 1 && obs_snap_at(h, 0)->runq_count >= 2 * OBS_RULE_SAT_MIN_REQUESTS
			       ? 1
			       : 0;
	}
	return judged;
}

/*
 * A server whose CPUs other work holds gets them in turns: the requests that come while it runs
 * are served at once, and those that come between its turns wait for the next. Its median
 * request may then wait less than a worker pool's floor while a tenth wait whole turns (nginx at
 * nice 10 beside 12 hogs on one CPU: p50 0.2-0.7 ms, p90 450 ms). Where the targets' threads
 * waited for a CPU longer than they ran (obs_cpu_contended_all), a p90 that held is the CPU's wait.
 */
static bool queue_in_turns(const struct obs_snap_hist *h, const struct obs_snap_slot *now)
{
	return obs_cpu_contended_all(h) && queue_held(h, now, OBS_RULE_SAT_MIN_QUEUE_NS, true);
}

/* Requests queue on a slot and the serving processes wait for a CPU: the CPU, not the workers.
 * contended: they did not keep their CPUs busy themselves (others hold the CPUs, or a quota),
 * else they are what the CPUs carry; turns: the queue is its p90 (queue_in_turns()). */
static void cpu_finding(const struct obs_snap *now, const struct obs_snap_slot *sl,
			const char *key, bool contended, bool turns, struct obs_findings *out)
{
	double runnable = now->cpu_waiting + now->cpu_running;
	double q = turns ? sl->queue_p90_ns : sl->queue_p50_ns;
	double x = sl->service_p50_ns > 0 ? q / sl->service_p50_ns : 0;
	char a[32], b[32], c[32], lost[96] = "", wait[256], unread[160] = "";
	json_t *ev;

	if (now->cpu_lost >= 0.05)
		snprintf(lost, sizeof(lost), "; %.1f CPU stolen or in interrupts",
			 now->cpu_lost);
	if (obs_cpu_unread(now))
		snprintf(unread, sizeof(unread), "; those of the %u processes watched, %llu more "
			 "past --max-procs: the CPUs were %.0f%% busy", now->cpu_procs,
			 (unsigned long long)now->cpu_unread,
			 100 * now->cpu_busy / (now->cpu_cpus ? now->cpu_cpus : 1));
	obs_rule_ns(sl->queue_p50_ns, a, sizeof(a));
	obs_rule_ns(sl->service_p50_ns, b, sizeof(b));
	if (turns)
		snprintf(wait, sizeof(wait), "wait for the server's turns on the CPU: a tenth "
			 "%.0fx their service time or more (queue p90 %s, p50 %s; service p50 %s)",
			 x, obs_rule_ns(sl->queue_p90_ns, c, sizeof(c)), a, b);
	else
		snprintf(wait, sizeof(wait), "wait %.0fx their service time in the socket queue "
			 "(queue p50 %s, service p50 %s)", x, a, b);
	ev = json_pack("{s:s, s:f, s:f, s:f, s:f, s:i, s:i, s:f, s:f, s:f}", "source",
		       "schedstat", "runnable", runnable, "waiting", now->cpu_waiting, "running",
		       now->cpu_running, "lost", now->cpu_lost, "cpus", (int)now->cpu_cpus,
		       "processes", (int)now->cpu_procs, "queue_p50", sl->queue_p50_ns,
		       "queue_p90", sl->queue_p90_ns, "service_p50", sl->service_p50_ns);
	if (turns)
		json_object_set_new(ev, "in_turns", json_true());
	if (obs_cpu_unread(now)) {
		json_object_set_new(ev, "unread", json_integer((json_int_t)now->cpu_unread));
		json_object_set_new(ev, "busy", json_real(now->cpu_busy));
	}
	if (contended) {
		json_object_set_new(ev, "contended", json_true());
		obs_findings_add(out, "cpu_saturation", OBS_SEV_WARNING, "", ev,
				 "cpu: requests on %s %s while the server's threads waited for a CPU "
				 "longer than they ran (on average %.2f of them waited on a run "
				 "queue, %.2f ran, on %u CPU%s%s%s): other work holds the CPUs, or a "
				 "CPU quota throttles the server; more workers would not help: give "
				 "it CPUs (move or limit what else runs there, raise its quota) or "
				 "reduce load", key, wait, now->cpu_waiting, now->cpu_running,
				 now->cpu_cpus, now->cpu_cpus == 1 ? "" : "s", lost, unread);
		return;
	}
	obs_findings_add(out, "cpu_saturation", OBS_SEV_WARNING, "", ev,
			 "cpu: the server's processes wait for a CPU (%.0f runnable on %u CPU%s: on "
			 "average %.1f of their threads waited on a run queue, %.1f ran%s%s), and "
			 "requests on %s %s: more workers would not help; add CPUs, or reduce load or "
			 "what else runs there", runnable, now->cpu_cpus,
			 now->cpu_cpus == 1 ? "" : "s", now->cpu_waiting, now->cpu_running, lost,
			 unread, key, wait);
}

/*
 * The targets forked a process for most requests in each of the last intervals (a child per
 * connection, as PostgreSQL's backends): a request then waits in the socket queue while its
 * process is made, and no pool of workers is there to be busy.
 */
static bool forked_per_request(const struct obs_snap_hist *h, const struct obs_snap_slot *now)
{
	const struct obs_snap_slot *sl;
	const struct obs_snap *s;
	unsigned int k;

	for (k = 0; k < OBS_RULE_SAT_INTERVALS; k++) {
		if (!(s = obs_snap_at(h, k)) || !s->children_on || !s->forker.pid ||
		    !(sl = slot(s, now->port, now->udp)))
			return false;
		if (s->forker.forks < OBS_RULE_FORK_SHARE * (double)sl->requests)
			return false;
	}
	return true;
}

static void fork_wait_finding(const struct obs_snap *now, const struct obs_snap_slot *sl,
			      const char *key, struct obs_findings *out)
{
	char a[32], b[32];

	obs_findings_add(out, "fork_wait", OBS_SEV_NOTE, key,
			 json_pack("{s:i, s:s, s:f, s:f, s:I, s:i, s:s, s:I}", "port",
				   (int)sl->port, "proto", sl->udp ? "udp" : "tcp", "queue_p50",
				   sl->queue_p50_ns, "service_p50", sl->service_p50_ns, "requests",
				   (json_int_t)sl->requests, "forker", (int)now->forker.pid, "comm",
				   now->forker.comm, "forks", (json_int_t)now->forker.forks),
			 "fork: requests on %s wait %.0fx their service time in the socket queue "
			 "(queue p50 %s, service p50 %s) while pid %u (%s) forks a process for "
			 "them (%llu forks for %llu requests this interval): the wait is a "
			 "process's start, not busy workers; a pool of processes (pre-forked, or a "
			 "connection pooler in front) removes it",
			 key, sl->service_p50_ns > 0 ? sl->queue_p50_ns / sl->service_p50_ns : 0,
			 obs_rule_ns(sl->queue_p50_ns, a, sizeof(a)),
			 obs_rule_ns(sl->service_p50_ns, b, sizeof(b)), now->forker.pid,
			 now->forker.comm, (unsigned long long)now->forker.forks,
			 (unsigned long long)sl->requests);
}

/* Requests in service at once on sl over s's interval (Little's law on the median service):
 * its completions a second times their service time. */
static double in_service_at(const struct obs_snap *s, const struct obs_snap_slot *sl, double svc)
{
	return s->dt > 0 ? (double)sl->requests / s->dt * svc * 1e-9 : 0;
}

static double in_service(const struct obs_snap *s, const struct obs_snap_slot *sl)
{
	return in_service_at(s, sl, sl->service_p50_ns);
}

static bool inside_judged(const struct obs_snap *s, const struct obs_snap_slot *sl)
{
	return sl && s->dt > 0 && sl->requests >= OBS_RULE_INSIDE_MIN_REQUESTS &&
	       sl->service_p50_ns > 0;
}

/* Service time of sl in the newest interval (b 0) or an older one of the recent ones: there it
 * is enough that the p90 grew (a load that began in the middle of it). */
static double recent_service(const struct obs_snap_slot *sl, unsigned int b)
{
	return b && sl->service_p90_ns > sl->service_p50_ns ? sl->service_p90_ns
							    : sl->service_p50_ns;
}

/*
 * Requests wait inside the server (a multiplexed connection's streams, read at once and queued
 * for a fixed number of places; no socket queue to see): in each of the last
 * OBS_RULE_SAT_INTERVALS, OBS_RULE_INSIDE_GROWTH times as many requests were in service at once,
 * each OBS_RULE_INSIDE_GROWTH times as long, as in an earlier interval of the history (of such
 * intervals, the one that completed the most a second). A server that serves more at once
 * completes more in the same time each; here, by Little's law, it served at most a third of them
 * at that earlier pace (completions a second x that service time), and the rest waited (or its
 * handlers slowed as they multiplied: the same from outside). *lo: that earlier interval.
 */
static bool waited_inside(const struct obs_snap_hist *h, const struct obs_snap_slot *now,
			  const struct obs_snap **lo)
{
	const struct obs_snap_slot *sl, *lsl = NULL, *rsl[OBS_RULE_SAT_INTERVALS];
	const struct obs_snap *s, *rs[OBS_RULE_SAT_INTERVALS];
	unsigned int b, k;
	bool below;

	*lo = NULL;
	for (b = 0; b < OBS_RULE_SAT_INTERVALS; b++) {
		if (!(rs[b] = obs_snap_at(h, b)) || !(rsl[b] = slot(rs[b], now->port, now->udp)) ||
		    !inside_judged(rs[b], rsl[b]) ||
		    recent_service(rsl[b], b) < OBS_RULE_SAT_MIN_QUEUE_NS)
			return false;
	}
	for (b = OBS_RULE_SAT_INTERVALS; (s = obs_snap_at(h, b)); b++) {
		sl = slot(s, now->port, now->udp);
		if (!inside_judged(s, sl))
			continue;
		below = true;
		for (k = 0; k < OBS_RULE_SAT_INTERVALS; k++)
			below = below &&
				in_service_at(rs[k], rsl[k], recent_service(rsl[k], k)) >=
					OBS_RULE_INSIDE_GROWTH * in_service(s, sl) &&
				recent_service(rsl[k], k) >=
					OBS_RULE_INSIDE_GROWTH * sl->service_p50_ns;
		if (below && (!*lo || sl->requests / s->dt > lsl->requests / (*lo)->dt)) {
			*lo = s;
			lsl = sl;
		}
	}
	return *lo != NULL;
}

static void inside_finding(const struct obs_snap *now, const struct obs_snap_slot *sl,
			   const struct obs_snap *lo, const char *key, const char *rq,
			   struct obs_findings *out)
{
	const struct obs_snap_slot *lsl = slot(lo, sl->port, sl->udp);
	char a[32], b[32];

	obs_findings_add(out, "worker_saturation", OBS_SEV_WARNING, key,
			 json_pack("{s:i, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:I}", "port",
				   (int)sl->port, "proto", sl->udp ? "udp" : "tcp", "source",
				   "inside", "in_service", in_service(now, sl), "in_service_before",
				   in_service(lo, lsl), "rate", (double)sl->requests / now->dt,
				   "rate_before", (double)lsl->requests / lo->dt, "service_p50",
				   sl->service_p50_ns, "service_p50_before", lsl->service_p50_ns,
				   "requests", (json_int_t)sl->requests),
			 "workers: requests on %s wait inside the server: %.0f were in service at "
			 "once (%.1f at %.1f s), yet it completed %.0f/s (%.0f/s then), and service "
			 "p50 grew from %s to %s: it serves a fixed number at once and the rest wait "
			 "in their service time (streams read at once, queued inside; or its handlers "
			 "slowed as they multiplied); add workers or reduce load%s", key, in_service(now, sl), in_service(lo, lsl),
			 lo->t, (double)sl->requests / now->dt, (double)lsl->requests / lo->dt,
			 obs_rule_ns(lsl->service_p50_ns, a, sizeof(a)),
			 obs_rule_ns(sl->service_p50_ns, b, sizeof(b)), rq);
}

/* The load stopped while the CPU held its queue: this interval completed half as many requests as
 * the one before, whose threads waited at the bar. What waited now had queued then; the targets'
 * threads went idle or ended with the load (a process per connection takes its run time with it),
 * so this interval's waits judge nothing (PostgreSQL pinned to one CPU: 39 waiting, then 0.23 and
 * 0.00 running as pgbench's 40 backends exited, its last requests queued 7.4 ms). */
static bool cpu_queue_drained(const struct obs_snap_hist *h, const struct obs_snap_slot *now)
{
	const struct obs_snap *s = obs_snap_at(h, 1);
	const struct obs_snap_slot *lo = s ? slot(s, now->port, now->udp) : NULL;

	return lo && obs_cpu_waited(s) && 2 * now->requests <= lo->requests;
}

/* Why the queue is no CPU's, from --runq or the targets' schedstat, or how to tell. */
static void not_cpu(const struct obs_snap *now, char *rq, size_t len)
{
	char c[32];

	if (now->runq_on && now->runq_p50_ns >= 0)
		snprintf(rq, len, "; run-queue wait p50 %s: not the CPU",
			 obs_rule_ns(now->runq_p50_ns, c, sizeof(c)));
	else if (now->cpu_on && obs_cpu_contended(now))
		/* this interval only: the workers, and the CPU too */
		snprintf(rq, len, "; their threads also waited for a CPU %.2f on average (%.2f "
			 "ran) this interval", now->cpu_waiting, now->cpu_running);
	else if (now->cpu_on)
		snprintf(rq, len, "; their threads waited for a CPU %.2f on average (%.2f ran): "
			 "not the CPU", now->cpu_waiting, now->cpu_running);
	else
		snprintf(rq, len, "; --runq tells CPU saturation apart");
}

void obs_rule_saturation(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *lo;
	const struct obs_snap_slot *sl;
	unsigned int cpu = cpu_saturated(h);
	bool waited = !cpu && (obs_cpu_waited_all(h) || obs_cpu_waited_still(h)), named = false;
	/* waits at the bar lately and still at part of it now: no worker pool's queue, even where
	 * the CPU's finding does not hold yet; once they fell below that, the queue is judged anew */
	bool lately = obs_cpu_waited_lately(h) &&
		      obs_cpu_waited_at(now, OBS_RULE_CPU_OLDER);
	bool held, turns;
	char a[32], b[32], d[32], key[24], rq[160];
	size_t i;

	if (cpu)
		obs_findings_add(out, "cpu_saturation", OBS_SEV_WARNING, "",
				 json_pack("{s:f, s:f, s:I}", "runq_p50_ns", now->runq_p50_ns,
					   "runq_p99_ns", now->runq_p99_ns, "wakeups",
					   (json_int_t)now->runq_count),
				 "cpu: the serving threads wait for a CPU: run-queue wait p50 %s, p99 "
				 "%s %s; the CPUs are saturated: add CPUs or reduce load",
				 obs_rule_ns(now->runq_p50_ns, a, sizeof(a)),
				 obs_rule_ns(now->runq_p99_ns, b, sizeof(b)),
				 cpu > 1 ? "over the last intervals"
					 : "this interval (the one before had too few wake-ups to judge)");
	for (i = 0; i < now->nslots; i++) {
		sl = &now->slot[i];
		snprintf(key, sizeof(key), "%s/%u", sl->udp ? "udp" : "tcp", sl->port);
		/* the queue is the CPU's, told by the scheduler's accounting: named once; a queue
		 * the CPU makes grows by one service time a waiting process, so a shorter one is
		 * worth naming than a worker pool's */
		if (waited && queue_held(h, sl, OBS_RULE_CPU_MIN_QUEUE_NS, false)) {
			if (!named)
				cpu_finding(now, sl, key, false, false, out);
			named = true;
			continue;
		}
		if (cpu || lately || cpu_queue_drained(h, sl))
			continue; /* the wait is the CPU's, named or about to be */
		not_cpu(now, rq, sizeof(rq));
		held = queue_held(h, sl, OBS_RULE_SAT_MIN_QUEUE_NS, false);
		turns = !held && queue_in_turns(h, sl);
		if (!held && !turns) {
			if (waited_inside(h, sl, &lo))
				inside_finding(now, sl, lo, key, rq, out);
			continue;
		}
		if (!turns && forked_per_request(h, sl)) {
			fork_wait_finding(now, sl, key, out);
			continue;
		}
		if (turns || obs_cpu_contended_all(h)) {
			if (!named)
				cpu_finding(now, sl, key, true, turns, out);
			named = true;
			continue;
		}
		obs_findings_add(out, "worker_saturation", OBS_SEV_WARNING, key,
				 json_pack("{s:i, s:s, s:f, s:f, s:I}", "port", (int)sl->port, "proto",
					   sl->udp ? "udp" : "tcp", "queue_p50", sl->queue_p50_ns,
					   "service_p50", sl->service_p50_ns, "requests",
					   (json_int_t)sl->requests),
				 "workers: requests on %s wait %.0fx their service time in the socket "
				 "queue (queue p50 %s, service p50 %s, %d intervals): the server's "
				 "workers are busy; add workers or reduce load%s", key,
				 sl->service_p50_ns > 0 ? sl->queue_p50_ns / sl->service_p50_ns : 0,
				 obs_rule_ns(sl->queue_p50_ns, a, sizeof(a)),
				 obs_rule_ns(sl->service_p50_ns, d, sizeof(d)), OBS_RULE_SAT_INTERVALS,
				 rq);
	}
}

/* The bytes say it: enough sampled reads held several requests (OBS_RULE_PL_MIN, 10, and 10%
 * of the samples), or, in a burst too short for that many samples, most of them did
 * (OBS_RULE_PL_BURST_MIN, 3, and half). */
static bool pl_pipelined(const struct obs_snap_slot *sl)
{
	if (sl->udp || !sl->pl_samples)
		return false;
	if (sl->pl_multi >= OBS_RULE_PL_MIN &&
	    sl->pl_multi * 100.0 >= OBS_RULE_PL_PCT * sl->pl_samples)
		return true;
	return sl->pl_multi >= OBS_RULE_PL_BURST_MIN &&
	       sl->pl_multi * 100.0 >= OBS_RULE_PL_BURST_PCT * sl->pl_samples;
}

/* The arrivals say it: enough reads took several writes of the client. */
static bool arrivals_pipelined(const struct obs_snap_slot *sl)
{
	return sl->pipelined_reads >= OBS_RULE_PIPELINE_MIN && sl->reads &&
	       sl->pipelined_reads * 100.0 >= OBS_RULE_PIPELINE_PCT * sl->reads;
}

/* "16x", "1.4x" */
static const char *factor(double f, char *buf, size_t len)
{
	snprintf(buf, len, f >= 9.95 ? "%.0fx" : "%.1fx", f);
	return buf;
}

static void pl_finding(const struct obs_snap_slot *sl, const char *key, struct obs_findings *out)
{
	double per = (double)sl->pl_requests / (double)sl->pl_samples;
	double share = 100.0 * (double)sl->pl_multi / (double)sl->pl_samples;
	char a[32], b[32], c[32], d[32], ex[96] = "";

	if (sl->pl_extrapolated)
		snprintf(ex, sizeof(ex), "; %s reads were longer than the %d bytes looked at: "
			 "counted by length", obs_rule_num(sl->pl_extrapolated, d, sizeof(d)),
			 sl->pl_scan);
	obs_findings_add(out, "pipelining", OBS_SEV_NOTE, key,
			 json_pack("{s:i, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I}", "port",
				   (int)sl->port, "sampled_reads", (json_int_t)sl->pl_samples,
				   "multi_request_reads", (json_int_t)sl->pl_multi,
				   "requests_in_samples", (json_int_t)sl->pl_requests,
				   "requests_per_read", per, "max_per_read", (json_int_t)sl->pl_max,
				   "requests_counted", (json_int_t)sl->reads, "estimated_requests",
				   (json_int_t)(per * (double)sl->reads + 0.5), "pipelined_reads",
				   (json_int_t)sl->pipelined_reads, "reads", (json_int_t)sl->reads),
			 "requests: on %s, %.0f%% of %s sampled reads held several requests (%.1f "
			 "per read on average, up to %s): requests here are reads, and their times "
			 "a read's; the server handled about %s the %s requests counted%s",
			 key, share, obs_rule_num(sl->pl_samples, a, sizeof(a)), per,
			 obs_rule_num(sl->pl_max, b, sizeof(b)), factor(per, c, sizeof(c)),
			 obs_rule_num(sl->reads, d, sizeof(d)), ex);
}

/* Runs a per-slot rule on each slot of the latest interval, with the slot's key ("tcp/6379"). */
static void each_slot(const struct obs_snap_hist *h, struct obs_findings *out,
		      void (*rule)(const struct obs_snap_slot *sl, const char *key,
				   struct obs_findings *out))
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	const struct obs_snap_slot *sl;
	char key[24];
	size_t i;

	for (i = 0; i < now->nslots; i++) {
		sl = &now->slot[i];
		snprintf(key, sizeof(key), "%s/%u", sl->udp ? "udp" : "tcp", sl->port);
		rule(sl, key, out);
	}
}

static void pipelining_slot(const struct obs_snap_slot *sl, const char *key,
			    struct obs_findings *out)
{
	char a[32], b[32];

	if (pl_pipelined(sl)) {
		pl_finding(sl, key, out);
		return;
	}
	if (!arrivals_pipelined(sl))
		return;
	obs_findings_add(out, "pipelining", OBS_SEV_NOTE, key,
			 json_pack("{s:i, s:I, s:I}", "port", (int)sl->port, "pipelined_reads",
				   (json_int_t)sl->pipelined_reads, "reads", (json_int_t)sl->reads),
			 "requests: on %s, %s of %s reads took several writes of the client at once "
			 "(pipelining): requests here are reads, and their times a read's",
			 key, obs_rule_num(sl->pipelined_reads, a, sizeof(a)),
			 obs_rule_num(sl->reads, b, sizeof(b)));
}

void obs_rule_pipelining(const struct obs_snap_hist *h, struct obs_findings *out)
{
	each_slot(h, out, pipelining_slot);
}

static void udp_shared_slot(const struct obs_snap_slot *sl, const char *key,
			    struct obs_findings *out)
{
	char a[32], b[32], c[32];

	/* each thread is timed from its read to its reply: only datagrams read while every entry
	 * of the socket's reader table was serving one go uncounted */
	if (!sl->udp || !sl->udp_unpaired)
		return;
	obs_findings_add(out, "udp_shared_socket", OBS_SEV_NOTE, key,
			 json_pack("{s:i, s:I, s:I, s:I, s:I}", "port", (int)sl->port, "sockets",
				   (json_int_t)sl->udp_multi_reader_sockets, "reader_switches",
				   (json_int_t)sl->udp_reader_switches, "unpaired",
				   (json_int_t)sl->udp_unpaired, "requests",
				   (json_int_t)sl->requests),
			 "requests: on %s, %s datagrams were read while %d other threads of their "
			 "socket were serving one each: not counted (%s counted; %s socket%s read by "
			 "several threads)", key, obs_rule_num(sl->udp_unpaired, a, sizeof(a)),
			 (int)sl->udp_readers, obs_rule_num(sl->requests, b, sizeof(b)),
			 obs_rule_num(sl->udp_multi_reader_sockets, c, sizeof(c)),
			 sl->udp_multi_reader_sockets == 1 ? "" : "s");
}

void obs_rule_udp_shared(const struct obs_snap_hist *h, struct obs_findings *out)
{
	each_slot(h, out, udp_shared_slot);
}
