// SPDX-License-Identifier: MIT
/* The lean hooks: when request timing's reads are begun at the copy hook (see lean.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "kernel/bpfread.h"
#include "kernel/iter_ns.h"
#include "kernel/lean.h"
#include "kernel/systier.h"

enum { PASS_TCP, PASS_UDP, PASSES };

struct obs_lean {
	const char *prog;
	enum obs_lean_mode mode;
	struct obs_lean_rule rule;
	struct obs_systier *tier; /* its child attaches and detaches the four programs */
	struct obs_lean_kernel k;
	struct bpf_link *links[PASSES]; /* the passes' iterators (NULL: no copy hook alone) */
	struct obs_iter_ns *ns;
	int pass_err; /* the first failed pass's errno, said once */
	uint64_t start_ns, last_ns, lean_ns, solo_ns;
	uint64_t reads; /* TCP requests while the copy hook was attached (it begins each) */
};

int obs_lean_mode_parse(const char *s)
{
	return obs_systier_mode_parse(s);
}

const char *obs_lean_mode_name(enum obs_lean_mode m)
{
	return obs_systier_mode_name((enum obs_systier_mode)m);
}

unsigned int obs_lean_progs(enum obs_lean_state s)
{
	switch (s) {
	case OBS_LEAN_LEAN:
	case OBS_LEAN_SOLO_GOING:
		return OBS_LEAN_PROG_COPY | OBS_LEAN_PROG_SEND;
	case OBS_LEAN_SOLO:
		return OBS_LEAN_PROG_COPY;
	case OBS_LEAN_START:
	case OBS_LEAN_GOING:
	case OBS_LEAN_LEAVING:
		return OBS_LEAN_PROG_ARRIVAL | OBS_LEAN_PROG_RECV | OBS_LEAN_PROG_COPY |
		       OBS_LEAN_PROG_SEND;
	default:
		return OBS_LEAN_PROG_ARRIVAL | OBS_LEAN_PROG_RECV | OBS_LEAN_PROG_SEND;
	}
}

uint8_t obs_lean_marks(enum obs_lean_state s)
{
	if (s == OBS_LEAN_START || s == OBS_LEAN_GOING)
		return 2; /* the full hooks there before the copy hook comes: TLS and HTTP/2 theirs */
	return s != OBS_LEAN_FULL && s != OBS_LEAN_DONE;
}

uint8_t obs_lean_solo(enum obs_lean_state s, uint8_t was)
{
	if (s == OBS_LEAN_SOLO)
		return 2;
	return s == OBS_LEAN_SOLO_GOING || was ? 1 : 0;
}

/* The copy hook in this state: the run's lean share counts it (not the start's overlap, every
 * hook attached while the first interval decides). */
static bool copy_on(enum obs_lean_state s)
{
	return s != OBS_LEAN_START && (obs_lean_progs(s) & OBS_LEAN_PROG_COPY);
}

/* r->why from fmt; true, for a rule that returns why it holds. */
static bool __attribute__((format(printf, 2, 3)))
say(struct obs_lean_rule *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return true;
}

/* What the copy hook cannot do showed in this interval: why, in r->why; false if nothing. */
static bool cannot(struct obs_lean_rule *r, const struct obs_lean_interval *iv)
{
	if (iv->lean_missed || iv->tls_h2)
		return say(r, "%llu TLS or HTTP/2 connection%s (TLS ones begun under the lean "
			   "hooks are not timed; HTTP/2 ones are from their next read of whole "
			   "frames)", (unsigned long long)(iv->lean_missed + iv->tls_h2),
			   iv->lean_missed + iv->tls_h2 == 1 ? "" : "s");
	if (iv->udp)
		return say(r, "UDP requests on a target port");
	if (iv->lean_unknown > 1 && iv->lean_unknown * OBS_LEAN_UNKNOWN_PER > iv->tcp_requests)
		return say(r, "%llu of %llu requests without the arrival the full hooks see "
			   "(pipelined, or written in pieces)",
			   (unsigned long long)iv->lean_unknown,
			   (unsigned long long)iv->tcp_requests);
	return false;
}

/* What the copy hook alone cannot do, and the send hook can, showed (or may come: a UDP socket on
 * a target port; its untimed responses leave the next arrival unknown too: said first). */
static bool solo_cannot(struct obs_lean_rule *r, const struct obs_lean_interval *iv)
{
	if (iv->udp_socks)
		return say(r, "%llu UDP socket%s on a target port (the copy hook alone does not "
			   "see UDP)", (unsigned long long)iv->udp_socks,
			   iv->udp_socks == 1 ? "" : "s");
	if (iv->untimed > 1 && iv->untimed * OBS_LEAN_UNKNOWN_PER > iv->tcp_requests)
		return say(r, "%llu of %llu responses the copy hook alone could not time (in "
			   "several segments, or written after the next request came)",
			   (unsigned long long)iv->untimed, (unsigned long long)iv->tcp_requests);
	return false;
}

/* The copy hook alone would leave these responses untimed: they went in several writes (an
 * LDAP search's entries and its Done: slapd's half of them); the lean hooks time them. Seen in
 * any interval with the send hook, so the copy hook alone is never tried on them. */
static bool solo_unfit(struct obs_lean_rule *r, const struct obs_lean_interval *iv)
{
	if (iv->multi_write > 1 && iv->multi_write * OBS_LEAN_UNKNOWN_PER > iv->tcp_requests) {
		say(r, "plain TCP requests only; %llu of %llu responses written in several writes, "
		    "which the copy hook alone could not time",
		    (unsigned long long)iv->multi_write, (unsigned long long)iv->tcp_requests);
		r->solo = false;
		return true;
	}
	return false;
}

enum obs_lean_state obs_lean_decide(struct obs_lean_rule *r, enum obs_lean_mode mode,
				    const struct obs_lean_interval *iv)
{
	if (mode != OBS_LEAN_AUTO) {
		r->state = mode == OBS_LEAN_ON ? OBS_LEAN_LEAN : OBS_LEAN_FULL;
		return r->state;
	}
	switch (r->state) {
	case OBS_LEAN_START: /* every hook and the copy hook: the first interval with requests */
		if (cannot(r, iv)) {
			r->state = OBS_LEAN_DONE;
		} else if (iv->tcp_requests && iv->queue_p99_ns > OBS_LEAN_QUEUE_NS) {
			say(r, "socket-queue wait p99 %.1f ms (over %llu ms): lean after %u "
			    "intervals of plain TCP requests",
			    (double)iv->queue_p99_ns / 1e6, OBS_LEAN_QUEUE_NS / 1000000ULL,
			    OBS_LEAN_AFTER);
			r->plain = 0;
			r->state = OBS_LEAN_FULL;
		} else if (iv->tcp_requests && !iv->multi_arrival) {
			/* the writes and (solo) the reads have left their marks all along */
			if (r->solo && solo_unfit(r, iv)) {
				r->state = OBS_LEAN_LEAN;
			} else if (r->solo && !iv->udp_socks) {
				say(r, "plain TCP requests only, by port, "
				    "no UDP socket on a target port");
				r->state = OBS_LEAN_SOLO;
			} else {
				say(r, "plain TCP requests only");
				r->state = OBS_LEAN_LEAN;
			}
		} else if (iv->tcp_requests) {
			say(r, "%llu reads of several client writes: lean after %u intervals of "
			    "plain TCP requests",
			    (unsigned long long)iv->multi_arrival, OBS_LEAN_AFTER);
			r->plain = 0;
			r->state = OBS_LEAN_FULL;
		}
		break;
	case OBS_LEAN_FULL:
		if (iv->tls_h2 || iv->udp) {
			cannot(r, iv);
			r->state = OBS_LEAN_DONE;
		} else if (iv->tcp_requests && !iv->multi_arrival) {
			if (++r->plain >= OBS_LEAN_AFTER) {
				say(r, "%u intervals of plain TCP requests only", r->plain);
				r->state = OBS_LEAN_GOING;
			}
		} else {
			r->plain = 0;
		}
		break;
	case OBS_LEAN_GOING: /* the full hooks are still attached: straight back to them */
		r->state = cannot(r, iv) ? OBS_LEAN_DONE : OBS_LEAN_LEAN;
		break;
	case OBS_LEAN_LEAN:
		if (cannot(r, iv)) {
			r->state = OBS_LEAN_LEAVING;
		} else if (r->solo && solo_unfit(r, iv)) {
			; /* lean it stays, for the run (why: said in the note) */
		} else if (r->solo && iv->tcp_requests && !iv->udp_socks) {
			say(r, "plain TCP requests only, by port, no UDP "
			    "socket on a target port");
			r->state = OBS_LEAN_SOLO_GOING;
		}
		break;
	case OBS_LEAN_SOLO_GOING:
	case OBS_LEAN_SOLO:
		if (solo_cannot(r, iv)) {
			/* lean again, with the send hook, for the rest of the run */
			r->solo = false;
			r->state = OBS_LEAN_LEAN;
		} else {
			r->state = cannot(r, iv) ? OBS_LEAN_LEAVING : OBS_LEAN_SOLO;
		}
		break;
	case OBS_LEAN_LEAVING:
		r->state = OBS_LEAN_DONE;
		break;
	case OBS_LEAN_DONE:
		break;
	}
	return r->state;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The passes' iterators, where the copy hook alone may come (else it does not). */
static void passes_new(struct obs_lean *l)
{
	struct bpf_program *p[PASSES] = {l->k.sweep, l->k.udp};
	int fds[PASSES], i;

	if (!l->k.solo_ok || !p[PASS_TCP] || !p[PASS_UDP])
		return;
	for (i = 0; i < PASSES; i++) {
		l->links[i] = bpf_program__attach_iter(p[i], NULL);
		if (!l->links[i])
			goto fail;
		fds[i] = bpf_link__fd(l->links[i]);
	}
	l->ns = obs_iter_ns_new(l->k.netns_fd, fds, PASSES);
	if (l->ns) {
		l->rule.solo = true;
		return;
	}
fail:
	ll_warn(l->prog, "note: request timing keeps the send hook (no pass over the target's "
			 "sockets: %s)", strerror(errno));
	for (i = 0; i < PASSES; i++) {
		bpf_link__destroy(l->links[i]);
		l->links[i] = NULL;
	}
}

struct obs_lean *obs_lean_new(const char *prog, enum obs_lean_mode mode,
			      const struct obs_lean_kernel *k)
{
	struct bpf_program *p[OBS_LEAN_PROGS];
	struct obs_lean *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return NULL;
	memcpy(p, k->progs, sizeof(p));
	l->prog = prog;
	l->mode = mode;
	l->k = *k;
	l->rule.state = mode == OBS_LEAN_ON ? OBS_LEAN_LEAN
			: mode == OBS_LEAN_AUTO ? OBS_LEAN_START : OBS_LEAN_FULL;
	l->tier = obs_systier_new(prog, OBS_SYSTIER_AUTO, p, OBS_LEAN_PROGS);
	if (!l->tier) {
		err = errno;
		free(l);
		errno = err;
		return NULL;
	}
	if (mode == OBS_LEAN_AUTO)
		passes_new(l); /* the copy hook alone may come: the reads leave marks from the start */
	*l->k.marks = obs_lean_marks(l->rule.state);
	*l->k.solo = l->rule.state == OBS_LEAN_START && l->rule.solo;
	/* the first state's programs before "observing": a detach is what takes long, not this */
	err = obs_systier_want(l->tier, obs_lean_progs(l->rule.state), 10000);
	if (err) {
		ll_warn(prog, "cannot attach request timing's %s: %s",
			mode == OBS_LEAN_ON ? "copy hook (tcp:tcp_rcv_space_adjust)"
					    : "sk_data_ready and sock_recv_length",
			strerror(-err));
		obs_lean_free(l);
		errno = -err;
		return NULL;
	}
	if (mode == OBS_LEAN_ON)
		ll_warn(prog, "note: --lean on: request timing reads at tcp:tcp_rcv_space_adjust, "
			      "with no sk_data_ready nor sock_recv_length: TLS, HTTP/2 and UDP requests "
			      "are not timed (counted), nor pipelined arrivals");
	l->start_ns = l->last_ns = now_ns();
	return l;
}

void obs_lean_free(struct obs_lean *l)
{
	if (!l)
		return;
	obs_iter_ns_free(l->ns);
	for (int i = 0; i < PASSES; i++)
		bpf_link__destroy(l->links[i]);
	obs_systier_free(l->tier);
	free(l);
}

/* One pass of iterator i: its programs write nothing to read; the walk is the work. */
static int pass(struct obs_lean *l, int i)
{
	char buf[4096];
	int fd = obs_iter_ns_create(l->ns, (size_t)i);

	if (fd < 0)
		return fd;
	return obs_bpfread_iter(fd, buf, sizeof(buf), 1, NULL, NULL);
}

static void passes(struct obs_lean *l, bool tcp)
{
	int err = 0;

	if (tcp)
		err = pass(l, PASS_TCP);
	*l->k.udp_socks = 0;
	if (!err)
		err = pass(l, PASS_UDP);
	if (err && !l->pass_err) {
		l->pass_err = -err;
		ll_warn(l->prog, "note: request timing: a pass over the target's sockets failed (%s)",
			strerror(-err));
	}
}

void obs_lean_pass(struct obs_lean *l)
{
	enum obs_lean_state s;

	if (!l || !l->ns)
		return;
	s = l->rule.state;
	if (((s == OBS_LEAN_LEAN || s == OBS_LEAN_START) && l->rule.solo) ||
	    s == OBS_LEAN_SOLO_GOING || s == OBS_LEAN_SOLO)
		passes(l, s != OBS_LEAN_LEAN);
}

void obs_lean_tick(struct obs_lean *l, const struct obs_lean_interval *given, bool final)
{
	struct obs_lean_interval ivs;
	const struct obs_lean_interval *iv = &ivs;
	enum obs_lean_state was, now;
	uint64_t t = now_ns();
	int err;

	if (!l)
		return;
	ivs = *given;
	ivs.udp_socks = l->ns ? *l->k.udp_socks : 0; /* this interval's UDP pass's, if any ran */
	was = l->rule.state;
	if (copy_on(was)) {
		l->lean_ns += t - l->last_ns;
		l->reads += iv->tcp_requests;
	}
	if (was == OBS_LEAN_SOLO)
		l->solo_ns += t - l->last_ns;
	l->last_ns = t;
	if (final)
		return;
	now = obs_lean_decide(&l->rule, l->mode, iv);
	if (now == was)
		return;
	if (now == OBS_LEAN_SOLO && was == OBS_LEAN_START)
		ll_warn(l->prog, "note: request timing: the copy hook alone from now on (the read "
				 "at tcp:tcp_rcv_space_adjust; sk_data_ready, sock_recv_length and "
				 "sock_send_length detached; responses seen by TCP's segment counts): %s",
			l->rule.why);
	else if (now == OBS_LEAN_GOING || (now == OBS_LEAN_LEAN && was == OBS_LEAN_START))
		ll_warn(l->prog, "note: request timing: lean hooks from now on (the read at "
				 "tcp:tcp_rcv_space_adjust; sk_data_ready and sock_recv_length "
				 "detached): %s",
			l->rule.why);
	else if (now == OBS_LEAN_SOLO_GOING)
		ll_warn(l->prog, "note: request timing: the copy hook alone from the next interval "
				 "(sock_send_length detached too; responses seen by TCP's segment "
				 "counts): %s",
			l->rule.why);
	else if (now == OBS_LEAN_LEAN && (was == OBS_LEAN_SOLO || was == OBS_LEAN_SOLO_GOING))
		ll_warn(l->prog, "note: request timing: the send hook again, for the rest of the run "
				 "(the lean hooks stay): %s",
			l->rule.why);
	else if (now == OBS_LEAN_DONE && (was == OBS_LEAN_FULL || was == OBS_LEAN_START))
		ll_warn(l->prog, "note: request timing keeps every hook: %s", l->rule.why);
	else if (now == OBS_LEAN_FULL)
		ll_warn(l->prog, "note: request timing: every hook for now: %s", l->rule.why);
	else if (now == OBS_LEAN_LEAVING || (now == OBS_LEAN_DONE && was == OBS_LEAN_GOING))
		ll_warn(l->prog, "note: request timing: every hook again, for the rest of the run: %s",
			l->rule.why);
	/* leaving the copy hook alone: what it answered so far, before the send hook is back */
	if (was == OBS_LEAN_SOLO && now != OBS_LEAN_SOLO && l->ns)
		passes(l, true);
	/* marks on before the copy hook comes; off once it has gone; the reads' own marks before
	 * the send hook goes, the sweep's answers once it has gone */
	if (obs_lean_marks(now))
		*l->k.marks = obs_lean_marks(now);
	if (now != OBS_LEAN_SOLO)
		*l->k.solo = obs_lean_solo(now, *l->k.solo);
	/* (marks going off before the copy hook has gone: it does nothing meanwhile, req_lean.bpf.h) */
	err = obs_systier_want(l->tier, obs_lean_progs(now), 0);
	if (!obs_lean_marks(now))
		*l->k.marks = 0;
	if (now == OBS_LEAN_SOLO && !err)
		*l->k.solo = obs_lean_solo(now, *l->k.solo);
	if (err) {
		ll_warn(l->prog, "note: cannot switch request timing's hooks: %s", strerror(-err));
		if (now != OBS_LEAN_DONE) {
			/* every hook, as far as the child can still attach them */
			l->rule.state = OBS_LEAN_DONE;
			snprintf(l->rule.why, sizeof(l->rule.why), "cannot switch: %s",
				 strerror(-err));
			*l->k.solo = obs_lean_solo(OBS_LEAN_DONE, *l->k.solo);
			obs_systier_want(l->tier, obs_lean_progs(OBS_LEAN_DONE), 0);
		}
	}
}

double obs_lean_share(const struct obs_lean *l)
{
	uint64_t t = now_ns(), on = l->lean_ns;

	if (copy_on(l->rule.state))
		on += t - l->last_ns;
	return t > l->start_ns ? (double)on / (double)(t - l->start_ns) : 0.0;
}

double obs_lean_solo_share(const struct obs_lean *l)
{
	uint64_t t = now_ns(), on = l->solo_ns;

	if (l->rule.state == OBS_LEAN_SOLO)
		on += t - l->last_ns;
	return t > l->start_ns ? (double)on / (double)(t - l->start_ns) : 0.0;
}

uint64_t obs_lean_reads(const struct obs_lean *l)
{
	return l->reads;
}

enum obs_lean_state obs_lean_state(const struct obs_lean *l)
{
	return l->rule.state;
}

const char *obs_lean_why(const struct obs_lean *l)
{
	return l->rule.why[0] ? l->rule.why : NULL;
}

enum obs_lean_mode obs_lean_mode(const struct obs_lean *l)
{
	return l->mode;
}
