// SPDX-License-Identifier: MIT
/* Request timing output: live lines, the interval record, the text summary and the
 * "request_timing" JSON object, from the snapshot observer/features/requests.c publishes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "loadlens/cli.h"
#include "loadlens/h2.h"
#include "loadlens/hist_json.h"
#include "loadlens/ssl.h"
#include "output/h2_status_report.h"
#include "output/reqtime_report.h"
#include "output/tls_calls.h"
#include "tick/reqtime_hist.h"

struct comp {
	unsigned int which;
	const char *json;
	const char *text;
};

static const struct comp comps[] = {
	{RT_QUEUE, "socket_queue_wait", "socket-queue wait"},
	{RT_SERVICE, "service_time", "service (1st write)"},
	{OBS_REQTIME_SERVICE_LAST, "service_time_last_write", "service (last write)"},
	{RT_RESIDENCE, "residence", "residence"},
	{RT_ACCEPT, "accept_queue_share", "accept-queue share"},
	{RT_TLS_HS, "tls_handshake", "TLS handshake"},
	{RT_TLS_WORK, "tls_handshake_work", "TLS handshake work"},
};
#define NCOMPS (sizeof(comps) / sizeof(comps[0]))

static const char *proto(const struct obs_reqtime_slot *sl)
{
	return sl->udp ? "udp" : "tcp";
}

static bool slot_active(const struct obs_reqtime_slot *sl)
{
	const struct rt_ctrs *c = &sl->c;

	return c->requests || c->unanswered || c->unsolicited || c->tls_handshakes ||
	       c->h2_conns || c->h2_bad_preface;
}

static const char *pct(const struct ll_hist *h, double p, char *buf, size_t len)
{
	if (!ll_hist_count(h))
		return "-";
	return ll_fmt_ns((double)ll_hist_percentile(h, p), buf, len);
}

static json_t *pct_json(const struct ll_hist *h, double p)
{
	return ll_hist_count(h) ? json_integer((json_int_t)ll_hist_percentile(h, p)) : json_null();
}

/* json_object_set_new() that remembers a failure. */
static void set(json_t *obj, const char *key, json_t *val, bool *ok)
{
	if (!val || json_object_set_new(obj, key, val))
		*ok = false;
}

static double server_rps(const struct rt_ctrs *c)
{
	if (c->requests < 2 || c->last_ns <= c->first_ns)
		return 0.0;
	return (double)(c->requests - 1) * 1e9 / (double)(c->last_ns - c->first_ns);
}

/* An interval's slot i, if active in the interval's delta d or in the current snapshot cur: its
 * socket-queue wait, service and residence histograms into q, s, r. False: it is not, nothing
 * read. */
static bool slot_hists(const struct obs_reqtime_stats *d, const struct obs_reqtime_stats *cur,
			  size_t i, struct ll_hist *q, struct ll_hist *s, struct ll_hist *r)
{
	if (!slot_active(&d->slot[i]) && !slot_active(&cur->slot[i]))
		return false;
	obs_reqtime_hist(d, i, RT_QUEUE, q);
	obs_reqtime_hist(d, i, RT_SERVICE, s);
	obs_reqtime_hist(d, i, RT_RESIDENCE, r);
	return true;
}

/* The run-queue wait buckets of st into h (no exact sum or max: see runq_hist). */
static void runq_buckets(const struct obs_reqtime_stats *st, struct ll_hist *h)
{
	uint32_t k;

	ll_hist_reset(h);
	for (k = 0; k < LL_HIST_BUCKETS; k++)
		ll_hist_add_bucket(h, k, st->runq[k]);
}

int obs_reqtime_fmt_live(FILE *out, const struct obs_requests_snap *sn, double interval_s)
{
	const struct obs_reqtime_stats *d = sn->delta, *cur = sn->cur;
	struct ll_hist *q = ll_hist_new(), *s = ll_hist_new(), *r = ll_hist_new();
	char a[32], b[32], c[32], e[32], f[32], g[32];
	size_t i;
	int err = 0;

	if (!q || !s || !r) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < d->nslots; i++) {
		const struct rt_ctrs *ct = &d->slot[i].c;

		if (!slot_hists(d, cur, i, q, s, r))
			continue;
		fprintf(out,
			"  %s/%-5u req %8llu %9.1f/s  queue p50 %-7s p99 %-7s  service p50 %-7s "
			"p99 %-7s  residence p50 %-7s p99 %s\n",
			proto(&d->slot[i]), d->slot[i].port, (unsigned long long)ct->requests,
			interval_s > 0 ? (double)ct->requests / interval_s : 0.0,
			pct(q, 50, a, sizeof(a)), pct(q, 99, b, sizeof(b)),
			pct(s, 50, c, sizeof(c)), pct(s, 99, e, sizeof(e)),
			pct(r, 50, f, sizeof(f)), pct(r, 99, g, sizeof(g)));
		if (!ct->tls_handshakes)
			continue;
		obs_reqtime_hist(d, i, RT_TLS_HS, q);
		obs_reqtime_hist(d, i, RT_TLS_WORK, s);
		fprintf(out, "  %s/%-5u tls handshakes %8llu %9.1f/s  handshake p50 %-7s p99 %-7s  "
			     "server's work p50 %-7s p99 %s\n",
			proto(&d->slot[i]), d->slot[i].port, (unsigned long long)ct->tls_handshakes,
			interval_s > 0 ? (double)ct->tls_handshakes / interval_s : 0.0,
			pct(q, 50, a, sizeof(a)), pct(q, 99, b, sizeof(b)),
			pct(s, 50, c, sizeof(c)), pct(s, 99, e, sizeof(e)));
	}
	runq_buckets(d, q);
	if (ll_hist_count(q))
		fprintf(out, "  run-queue wait of serving threads: %llu wake-ups  p50 %s  p99 %s\n",
			(unsigned long long)ll_hist_count(q), pct(q, 50, a, sizeof(a)),
			pct(q, 99, b, sizeof(b)));
	fflush(out);
cleanup:
	ll_hist_free(r);
	ll_hist_free(s);
	ll_hist_free(q);
	return err;
}

json_t *obs_reqtime_fmt_interval(const struct obs_requests_snap *sn, double t, double interval_s)
{
	const struct obs_reqtime_stats *d = sn->delta, *cur = sn->cur;
	struct ll_hist *q = ll_hist_new(), *s = ll_hist_new(), *r = ll_hist_new();
	json_t *iv = json_object(), *slots = json_array(), *one;
	bool ok = q && s && r && iv && slots;
	double rps;
	size_t i;

	for (i = 0; ok && i < d->nslots; i++) {
		const struct rt_ctrs *ct = &d->slot[i].c;

		if (!slot_hists(d, cur, i, q, s, r))
			continue;
		rps = interval_s > 0 ? (double)ct->requests / interval_s : 0.0;
		one = json_object();
		if (!one || json_array_append_new(slots, one)) {
			ok = false;
			continue;
		}
		set(one, "port", json_integer(d->slot[i].port), &ok);
		set(one, "proto", json_string(proto(&d->slot[i])), &ok);
		set(one, "requests", json_integer((json_int_t)ct->requests), &ok);
		set(one, "requests_per_s", json_real(rps), &ok);
		set(one, "socket_queue_wait_p50", pct_json(q, 50), &ok);
		set(one, "socket_queue_wait_p99", pct_json(q, 99), &ok);
		set(one, "service_time_p50", pct_json(s, 50), &ok);
		set(one, "service_time_p99", pct_json(s, 99), &ok);
		set(one, "residence_p50", pct_json(r, 50), &ok);
		set(one, "residence_p99", pct_json(r, 99), &ok);
		if (!ct->tls_handshakes)
			continue;
		obs_reqtime_hist(d, i, RT_TLS_HS, q);
		obs_reqtime_hist(d, i, RT_TLS_WORK, s);
		set(one, "tls_handshakes", json_integer((json_int_t)ct->tls_handshakes), &ok);
		set(one, "tls_handshake_p50", pct_json(q, 50), &ok);
		set(one, "tls_handshake_p99", pct_json(q, 99), &ok);
		set(one, "tls_handshake_work_p50", pct_json(s, 50), &ok);
		set(one, "tls_handshake_work_p99", pct_json(s, 99), &ok);
	}
	if (ok) {
		runq_buckets(d, q);
		set(iv, "t_s", json_real(t), &ok);
		set(iv, "interval_s", json_real(interval_s), &ok);
		set(iv, "slots", slots, &ok);
		slots = NULL;
		set(iv, "run_queue_wait_p50", pct_json(q, 50), &ok);
		set(iv, "run_queue_wait_p99", pct_json(q, 99), &ok);
	}
	ll_hist_free(r);
	ll_hist_free(s);
	ll_hist_free(q);
	json_decref(slots);
	if (!ok) {
		json_decref(iv);
		return NULL;
	}
	return iv;
}

/* A note of a slot's summary: n and what (a printf format), when n is not 0. */
__attribute__((format(printf, 3, 4))) static void note(FILE *out, uint64_t n,
							  const char *what, ...)
{
	va_list ap;

	if (!n)
		return;
	fprintf(out, "      %llu ", (unsigned long long)n);
	va_start(ap, what);
	vfprintf(out, what, ap);
	va_end(ap);
	fputc('\n', out);
}

static void notes(FILE *out, const struct rt_ctrs *c)
{
	note(out, c->unanswered, "read with no response before the next read or the close");
	note(out, c->no_arrival, "read with no arrival seen (queued before start, or while "
				    "arrival stamping was off): no queue wait or residence");
	note(out, c->multi_write, "responses written in several writes");
	note(out, c->unsolicited, "writes with no request read before them");
	note(out, c->ring_overrun, "datagrams queued beyond %d stamps: no queue wait",
		RT_UDP_RING);
	note(out, c->trace_lost, "trace records lost (ring buffer full)");
	note(out, c->multi_arrival, "reads took the bytes of several client writes (pipelined "
				       "requests, or requests written in pieces)");
	note(out, c->tls_handshakes, "TLS handshakes (%llu TLS 1.3, %llu TLS 1.2 resuming a "
		"session), timed apart: not requests", (unsigned long long)c->tls13,
		(unsigned long long)c->tls_resumed);
	note(out, c->tls_plain_conns, "TLS connections seen in plaintext (uprobes on libssl): "
		"their requests counted from it");
	note(out, c->ktls_conns, "TLS connections in the kernel's TLS both ways (kTLS): their "
		"requests counted from the plaintext the server reads and writes on the socket, as "
		"in the clear, no uprobe (HTTP/2 streams there are timed from their read: the "
		"sequence numbers count records)");
	note(out, c->tls_alerts, "TLS alerts read in a handshake (it failed, or the client left)");
	note(out, c->tls_plain_lost, "TLS connections whose plaintext found no room (%d at once): "
		"not counted", RT_SSL_CONNS);
	note(out, c->tls_lost, "TLS handshakes not timed (too many at once, or records "
				  "not followed)");
	note(out, c->h2_conns, "HTTP/2 connections (client preface): each stream one request, "
		"timed apart; %llu streams the server ended before the client did (not timed), "
		"%llu reset by the client before a response",
		(unsigned long long)c->h2_early, (unsigned long long)c->h2_client_reset);
	note(out, c->h2_bad_preface, "connections whose first bytes began the HTTP/2 client preface "
		"(\"PRI \") and broke it: neither HTTP/2 nor HTTP/1, not followed, none of their "
		"reads counted as requests");
	note(out, c->h2_lost, "HTTP/2 connections whose frames were lost track of (no memory for "
		"the walk's state, net.core.optmem_max): %llu of their later reads and writes not "
		"walked, their streams not counted", (unsigned long long)c->h2_unwalked);
	note(out, c->h2_behind, "HTTP/2 streams began while older streams of their connection "
		"were unanswered: a server that serves a connection's streams one at a time holds "
		"them itself, and that wait is in their service time, not in the socket-queue wait");
	note(out, c->h2_stream_drops, "HTTP/2 streams not timed: the %u entries of the stream table "
		"(%u) they may take were all held by other open streams", RT_H2_PROBES,
		RT_H2_STREAMS);
	note(out, c->h2_over_bound, "HTTP/2 streams not timed: their connection held %u streams in "
		"the stream table already (no client may take more)", RT_H2_CONN_STREAMS);
	note(out, c->h2_unmatched, "HTTP/2 responses ended a stream the observer was not timing "
		"(not counted)");
	note(out, c->h2_gaps, "HTTP/2 gaps (reads or writes of a connection the frame walk did not "
		"see, or lost its place in: the lean hooks took them, more than %d frames or %d "
		"buffers, bytes not readable; it resumes at a read or write of whole frames): %llu "
		"requests answered in them or across them, counted and not timed; %llu reads and "
		"%llu writes in them not walked", LL_H2_FRAMES, LL_H2_IOVS,
		(unsigned long long)c->h2_gap_answered, (unsigned long long)c->h2_gap_reads,
		(unsigned long long)c->h2_gap_writes);
	note(out, c->h2_gap_unknown, "HTTP/2 streams open across a write gap that the server never "
		"ended after it, or begun in reads not walked (by their stream ids) that no walked "
		"write ended: answered in the writes not walked, or not at all (not known: not "
		"counted as unanswered)");
	note(out, c->udp_unpaired, "UDP datagrams read while %u other threads of their socket were "
		"serving one each: not timed, not counted", RT_UDP_READERS);
}

/* Why TLS connections were not seen in plaintext, in words. */
static const char *tls_unseen_why(const struct obs_reqtime_features *f)
{
	static char buf[1300];

	if (!f->tls_possible)
		snprintf(buf, sizeof(buf), "TLS plaintext %s", f->tls_text);
	else if (f->tls_without)
		snprintf(buf, sizeof(buf), "%s (pid %u)%s maps no libssl: TLS linked into the "
			 "executable, as Go's crypto/tls, has no uprobe here", f->tls_without_comm,
			 f->tls_without_pid, f->tls_without > 1 ? " and others" : "");
	else
		snprintf(buf, sizeof(buf), "their server maps no libssl the observer probed at "
			 "start (%s): started later with another TLS library, or TLS linked into the "
			 "executable", f->tls_text);
	return buf;
}

/* The run-queue wait histogram of st into h, with its exact sum and max. */
static void runq_hist(const struct obs_reqtime_stats *st, struct ll_hist *h)
{
	runq_buckets(st, h);
	if (ll_hist_count(h)) {
		h->sum = st->global[RT_G_RUNQ_SUM_NS];
		h->max = st->global[RT_G_RUNQ_MAX_NS];
	}
}

/* A slot's HTTP/2 and gRPC statuses (h2: its counts, NULL when not read). */
static void h2_statuses(FILE *out, const struct rt_ctrs *c, const struct obs_h2_status_counts *h2)
{
	if (!c->h2_conns)
		return;
	if (!h2) {
		fprintf(out, "      HTTP/2 and gRPC statuses not read (LOADLENS_OBSERVER_H2_HEADERS=off, "
			     "or no user registers here)\n");
		return;
	}
	obs_h2_status_fmt(out, h2, c->h2_hb_ends, c->h2_hb_lost, c->h2_hb_big);
}

/* The lean hooks' lines (kernel/lean.h): how much of the run, and what they could not time. */
static void lean_summary(FILE *out, const struct obs_requests_snap *sn)
{
	const struct obs_reqtime_features *f = &sn->features;
	const struct obs_reqtime_stats *st = sn->cur;
	uint64_t turns = f->lean_reads, unknown = st->global[RT_G_LEAN_UNKNOWN];
	uint64_t missed = st->global[RT_G_LEAN_MISSED];

	/* nothing to say when they never ran (JSON features.lean_reason says why) */
	if (!f->lean || (!turns && !missed && f->lean_mode != OBS_LEAN_ON))
		return;
	fprintf(out, "  lean hooks (--lean %s): the read at tcp_rcv_space_adjust %.0f%% of the "
		     "run, %llu requests; now %s%s%s\n",
		sn->lean_mode, 100 * f->lean_share, (unsigned long long)turns,
		f->lean_state ? f->lean_state : "full", f->lean_why[0] ? ": " : "", f->lean_why);
	if (f->lean_solo_share > 0)
		fprintf(out, "  lean hooks: the copy hook alone (the send hook detached too) %.0f%% "
			     "of the run\n", 100 * f->lean_solo_share);
	if (unknown)
		fprintf(out, "  lean hooks: %llu of those %llu requests have no socket-queue wait "
			     "(they came before the previous response, or in pieces: the full hooks "
			     "time those)\n",
			(unsigned long long)unknown, (unsigned long long)turns);
	if (missed)
		fprintf(out, "  lean hooks: %llu TLS or HTTP/2 connection%s read under them: TLS not "
			     "timed; HTTP/2 frames not walked while they read (gaps, below)\n",
			(unsigned long long)missed, missed == 1 ? "" : "s");
}

int obs_reqtime_fmt_summary(FILE *out, const struct obs_requests_snap *sn)
{
	const struct obs_reqtime_stats *st = sn->cur;
	const struct obs_reqtime_features *f = &sn->features;
	struct ll_hist *h = ll_hist_new();
	char p50[32], p90[32], p99[32], p999[32], mx[32], mean[32], line[640];
	uint64_t requests = 0, ktls = 0, other_tls = 0;
	bool any = false;
	size_t i, k;
	int err = 0;

	if (!h)
		return -ENOMEM;
	fprintf(out, "request timing (%s)\n", sn->attached);
	lean_summary(out, sn);
	if (f->arrivals_sampled)
		fprintf(out, "  arrivals sampled (--arrivals sampled): sk_data_ready attached %.0f%% of "
			     "the run; counts and service times cover every request, socket-queue "
			     "wait and residence those that arrived while it was\n",
			100 * f->arrival_share);
	for (i = 0; i < st->nslots; i++) {
		const struct rt_ctrs *c = &st->slot[i].c;

		if (!slot_active(&st->slot[i]))
			continue;
		any = true;
		fprintf(out, "  %s/%u: %llu requests; at the server %.1f req/s (first to last "
			     "response, %.2fs)\n",
			proto(&st->slot[i]), st->slot[i].port, (unsigned long long)c->requests,
			server_rps(c),
			c->last_ns > c->first_ns ? (double)(c->last_ns - c->first_ns) / 1e9 : 0.0);
		if (c->h2_gap_answered)
			fprintf(out, "    and %llu HTTP/2 requests answered in gaps of the frame walk "
				     "(see below): counted, not timed\n",
				(unsigned long long)c->h2_gap_answered);
		if (c->tls_unseen)
			fprintf(out, "    warning: %llu TLS connections not seen in plaintext (%s): "
				     "counted as connections and handshakes, none of their requests\n",
				(unsigned long long)c->tls_unseen, tls_unseen_why(f));
		fprintf(out, "    %-21s %10s %9s %9s %9s %9s %9s %9s\n", "", "count", "mean", "p50",
			"p90", "p99", "p99.9", "max");
		for (k = 0; k < NCOMPS; k++) {
			obs_reqtime_hist(st, i, comps[k].which, h);
			if (!ll_hist_count(h))
				continue;
			fprintf(out, "    %-21s %10llu %9s %9s %9s %9s %9s %9s\n", comps[k].text,
				(unsigned long long)ll_hist_count(h),
				ll_fmt_ns(ll_hist_mean(h), mean, sizeof(mean)),
				pct(h, 50, p50, sizeof(p50)), pct(h, 90, p90, sizeof(p90)),
				pct(h, 99, p99, sizeof(p99)), pct(h, 99.9, p999, sizeof(p999)),
				ll_fmt_ns((double)ll_hist_max(h), mx, sizeof(mx)));
		}
		notes(out, c);
		h2_statuses(out, c, sn->h2 ? &sn->h2[i] : NULL);
	}
	if (!any)
		fprintf(out, "  no request served on the target ports\n");
	runq_hist(st, h);
	if (ll_hist_count(h)) {
		fprintf(out, "  run-queue wait of the serving threads: %llu  mean %s  p50 %s  p99 %s  "
			     "max %s\n",
			(unsigned long long)ll_hist_count(h),
			ll_fmt_ns(ll_hist_mean(h), mean, sizeof(mean)), pct(h, 50, p50, sizeof(p50)),
			pct(h, 99, p99, sizeof(p99)),
			ll_fmt_ns((double)ll_hist_max(h), mx, sizeof(mx)));
	}
	if (f->trace)
		fprintf(out, "  trace: %llu records written, %llu write errors\n",
			(unsigned long long)sn->trace_written,
			(unsigned long long)sn->trace_write_errors);
	if (st->global[RT_G_FOREIGN] || st->global[RT_G_PORTS_FULL] || st->global[RT_G_CLIENT])
		fprintf(out, "  scope: %s; not timed: %llu sockets of other processes, %llu of the "
			     "targets' client connections (ephemeral ports), %llu of theirs past %d "
			     "ports\n",
			sn->scope, (unsigned long long)st->global[RT_G_FOREIGN],
			(unsigned long long)st->global[RT_G_CLIENT],
			(unsigned long long)st->global[RT_G_PORTS_FULL], RT_DYN_PORTS);
	if (st->global[RT_G_NO_STORAGE] || st->global[RT_G_TGIDS_FULL] || st->missed ||
	    st->global[RT_G_SSL_PROCS_FULL])
		fprintf(out, "  drops: socket state not created %llu, run-queue slots full %llu, "
			     "skipped runs %llu, TLS servers not probed (table slot taken) %llu\n",
			(unsigned long long)st->global[RT_G_NO_STORAGE],
			(unsigned long long)st->global[RT_G_TGIDS_FULL],
			(unsigned long long)st->missed,
			(unsigned long long)st->global[RT_G_SSL_PROCS_FULL]);
	for (i = 0; i < st->nslots; i++) {
		requests += st->slot[i].c.requests;
		ktls += st->slot[i].c.ktls_conns;
		other_tls += st->slot[i].c.tls_plain_conns + st->slot[i].c.tls_unseen;
	}
	if (obs_tls_calls_text(line, sizeof(line), st->global[RT_G_SSL_CALLS],
			       st->global[RT_G_SSL_OTHER], requests, other_tls ? 0 : ktls))
		fprintf(out, "  %s\n", line);
	fflush(out);
	ll_hist_free(h);
	return err;
}

static json_t *slot_json(const struct obs_reqtime_stats *st, size_t i,
			 const struct obs_h2_status_counts *h2, struct ll_hist *h, bool *ok)
{
	const struct rt_ctrs *c = &st->slot[i].c;
	json_t *o = json_object();
	size_t k;

	if (!o) {
		*ok = false;
		return NULL;
	}
	set(o, "port", json_integer(st->slot[i].port), ok);
	set(o, "proto", json_string(proto(&st->slot[i])), ok);
	set(o, "requests", json_integer((json_int_t)c->requests), ok);
	set(o, "unanswered", json_integer((json_int_t)c->unanswered), ok);
	set(o, "no_arrival", json_integer((json_int_t)c->no_arrival), ok);
	set(o, "untimed", json_integer((json_int_t)c->untimed), ok);
	set(o, "multi_write", json_integer((json_int_t)c->multi_write), ok);
	set(o, "unsolicited_writes", json_integer((json_int_t)c->unsolicited), ok);
	set(o, "udp_ring_overrun", json_integer((json_int_t)c->ring_overrun), ok);
	set(o, "multi_arrival_reads", json_integer((json_int_t)c->multi_arrival), ok);
	set(o, "udp_reader_switches", json_integer((json_int_t)c->udp_switch), ok);
	set(o, "udp_shared_sockets", json_integer((json_int_t)c->udp_shared), ok);
	set(o, "udp_unpaired", json_integer((json_int_t)c->udp_unpaired), ok);
	set(o, "trace_lost", json_integer((json_int_t)c->trace_lost), ok);
	set(o, "tls_handshakes", json_integer((json_int_t)c->tls_handshakes), ok);
	set(o, "tls13_handshakes", json_integer((json_int_t)c->tls13), ok);
	set(o, "tls12_resumed", json_integer((json_int_t)c->tls_resumed), ok);
	set(o, "tls_plain_connections", json_integer((json_int_t)c->tls_plain_conns), ok);
	set(o, "tls_unseen", json_integer((json_int_t)c->tls_unseen), ok);
	set(o, "ktls_connections", json_integer((json_int_t)c->ktls_conns), ok);
	set(o, "tls_plain_lost", json_integer((json_int_t)c->tls_plain_lost), ok);
	set(o, "tls_alerts", json_integer((json_int_t)c->tls_alerts), ok);
	set(o, "tls_lost", json_integer((json_int_t)c->tls_lost), ok);
	set(o, "tls_alpn_h2", json_integer((json_int_t)c->tls_alpn_h2), ok);
	/* a TLS connection's requests come from its plaintext (uprobes on libssl): HTTP/2 streams,
	 * HTTP/1.1 turns of the plaintext; without it, none (never turns of ciphertext) */
	set(o, "tls_requests", json_string(!c->tls_handshakes && !c->tls_plain_conns &&
						   !c->tls_unseen && !c->ktls_conns ? "none"
					   : c->tls_unseen ? "not counted (plaintext not seen)"
							   : "plaintext"),
	    ok);
	set(o, "h2_connections", json_integer((json_int_t)c->h2_conns), ok);
	set(o, "h2_lost", json_integer((json_int_t)c->h2_lost), ok);
	set(o, "h2_unwalked", json_integer((json_int_t)c->h2_unwalked), ok);
	set(o, "h2_unmatched", json_integer((json_int_t)c->h2_unmatched), ok);
	set(o, "h2_early", json_integer((json_int_t)c->h2_early), ok);
	set(o, "h2_client_reset", json_integer((json_int_t)c->h2_client_reset), ok);
	set(o, "h2_bad_preface", json_integer((json_int_t)c->h2_bad_preface), ok);
	set(o, "h2_over_bound", json_integer((json_int_t)c->h2_over_bound), ok);
	set(o, "h2_stream_drops", json_integer((json_int_t)c->h2_stream_drops), ok);
	set(o, "h2_behind", json_integer((json_int_t)c->h2_behind), ok);
	set(o, "h2_gaps", json_integer((json_int_t)c->h2_gaps), ok);
	set(o, "h2_gap_reads", json_integer((json_int_t)c->h2_gap_reads), ok);
	set(o, "h2_gap_answered", json_integer((json_int_t)c->h2_gap_answered), ok);
	set(o, "h2_gap_writes", json_integer((json_int_t)c->h2_gap_writes), ok);
	set(o, "h2_gap_unknown", json_integer((json_int_t)c->h2_gap_unknown), ok);
	/* the statuses of the HTTP/2 responses and gRPC calls (null: not read, or no HTTP/2) */
	set(o, "h2_statuses", h2 && c->h2_conns ? obs_h2_status_json(h2, c->h2_hb_ends, c->h2_hb_lost,
								       c->h2_hb_big)
						: json_null(), ok);
	set(o, "first_response_ns", json_integer((json_int_t)c->first_ns), ok);
	set(o, "last_response_ns", json_integer((json_int_t)c->last_ns), ok);
	set(o, "server_throughput_rps", json_real(server_rps(c)), ok);
	for (k = 0; k < NCOMPS; k++) {
		obs_reqtime_hist(st, i, comps[k].which, h);
		set(o, comps[k].json, ll_hist_to_json(h), ok);
	}
	return o;
}

int obs_reqtime_fmt_json_add(json_t *root, const struct obs_requests_snap *sn, json_t *intervals)
{
	const struct obs_reqtime_stats *st = sn->cur;
	const struct obs_reqtime_features *f = &sn->features;
	const struct obs_h2_status_counts *h2 = sn->h2;
	json_t *o = json_object(), *slots = json_array(), *feat = json_object();
	struct ll_hist *h = ll_hist_new();
	bool ok = o && slots && feat && h;
	size_t i;

	if (!ok)
		goto cleanup;
	for (i = 0; i < st->nslots; i++)
		if (st->slot[i].used &&
		    json_array_append_new(slots, slot_json(st, i, h2 ? &h2[i] : NULL, h, &ok)))
			ok = false;
	set(feat, "mechanism", json_string(sn->mech), &ok);
	set(feat, "close_out", json_boolean(f->close_out), &ok);
	set(feat, "accept_time", json_boolean(f->accept), &ok);
	set(feat, "run_queue", json_boolean(f->runq), &ok);
	set(feat, "h2_headers", json_boolean(f->h2_headers), &ok);
	set(feat, "trace", json_boolean(f->trace), &ok);
	set(feat, "arrivals", json_string(f->arrivals_sampled ? "sampled" : "always"), &ok);
	set(feat, "arrival_share", json_real(f->arrivals_sampled ? f->arrival_share : 1.0), &ok);
	set(feat, "tls_plaintext", json_string(f->tls_plaintext ? "uprobes" : "off"), &ok);
	set(feat, "tls_plaintext_detail", json_string(f->tls_text), &ok);
	set(feat, "tls_processes_without_libssl", json_integer((json_int_t)f->tls_without), &ok);
	set(feat, "lean", json_string(f->lean ? sn->lean_mode : "off"), &ok);
	set(feat, "lean_share", json_real(f->lean ? f->lean_share : 0.0), &ok);
	set(feat, "lean_solo_share", json_real(f->lean ? f->lean_solo_share : 0.0), &ok);
	set(feat, "lean_state", f->lean && f->lean_state ? json_string(f->lean_state) : json_null(),
	    &ok);
	set(feat, "lean_reason", f->lean && f->lean_why[0] ? json_string(f->lean_why) : json_null(),
	    &ok);
	set(o, "features", feat, &ok);
	feat = NULL;
	set(o, "slots", slots, &ok);
	slots = NULL;
	runq_hist(st, h);
	set(o, "run_queue_wait", f->runq ? ll_hist_to_json(h) : json_null(), &ok);
	set(o, "trace_written", json_integer((json_int_t)sn->trace_written), &ok);
	set(o, "trace_write_errors", json_integer((json_int_t)sn->trace_write_errors), &ok);
	set(o, "no_storage", json_integer((json_int_t)st->global[RT_G_NO_STORAGE]), &ok);
	set(o, "tgids_full", json_integer((json_int_t)st->global[RT_G_TGIDS_FULL]), &ok);
	set(o, "scope", json_string(sn->scope), &ok);
	set(o, "foreign_sockets", json_integer((json_int_t)st->global[RT_G_FOREIGN]), &ok);
	set(o, "ports_full", json_integer((json_int_t)st->global[RT_G_PORTS_FULL]), &ok);
	set(o, "client_sockets", json_integer((json_int_t)st->global[RT_G_CLIENT]), &ok);
	set(o, "tcp_own_storage", json_integer((json_int_t)st->global[RT_G_TCP_OWN_STORAGE]),
	       &ok);
	set(o, "tcp_stale_entries", json_integer((json_int_t)st->global[RT_G_TCP_STALE]), &ok);
	set(o, "ssl_unmapped", json_integer((json_int_t)st->global[RT_G_SSL_UNMAPPED]), &ok);
	set(o, "ssl_procs_full", json_integer((json_int_t)st->global[RT_G_SSL_PROCS_FULL]), &ok);
	set(o, "ssl_calls", json_integer((json_int_t)st->global[RT_G_SSL_CALLS]), &ok);
	set(o, "ssl_calls_other", json_integer((json_int_t)st->global[RT_G_SSL_OTHER]), &ok);
	set(o, "lean_reads", json_integer((json_int_t)f->lean_reads), &ok);
	set(o, "lean_no_arrival", json_integer((json_int_t)st->global[RT_G_LEAN_UNKNOWN]), &ok);
	set(o, "lean_untimed_connections", json_integer((json_int_t)st->global[RT_G_LEAN_MISSED]),
	    &ok);
	set(o, "skipped_runs", json_integer((json_int_t)st->missed), &ok);
	set(o, "intervals", json_incref(intervals), &ok);
	if (ok) {
		ok = !json_object_set_new(root, "request_timing", o); /* takes o either way */
		o = NULL;
	}

cleanup:
	ll_hist_free(h);
	json_decref(feat);
	json_decref(slots);
	json_decref(o);
	return ok ? 0 : -ENOMEM;
}
