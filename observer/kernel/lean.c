// SPDX-License-Identifier: MIT
/* The lean hooks: when request timing's reads are begun at the copy hook (see lean.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "loadlens/cli.h"
#include "kernel/lean.h"
#include "kernel/systier.h"

struct obs_lean {
	const char *prog;
	enum obs_lean_mode mode;
	struct obs_lean_rule rule;
	struct obs_systier *tier; /* its child attaches and detaches the three programs */
	volatile uint8_t *marks;
	uint64_t start_ns, last_ns, lean_ns;
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
		return OBS_LEAN_PROG_COPY;
	case OBS_LEAN_GOING:
	case OBS_LEAN_LEAVING:
		return OBS_LEAN_PROG_ARRIVAL | OBS_LEAN_PROG_RECV | OBS_LEAN_PROG_COPY;
	default:
		return OBS_LEAN_PROG_ARRIVAL | OBS_LEAN_PROG_RECV;
	}
}

bool obs_lean_marks(enum obs_lean_state s)
{
	return s == OBS_LEAN_GOING || s == OBS_LEAN_LEAN || s == OBS_LEAN_LEAVING;
}

/* What the copy hook cannot do showed in this interval: why, in r->why; false if nothing. */
static bool cannot(struct obs_lean_rule *r, const struct obs_lean_interval *iv)
{
	if (iv->lean_missed || iv->tls_h2) {
		snprintf(r->why, sizeof(r->why), "%llu TLS or HTTP/2 connection%s (TLS ones begun "
			 "under the lean hooks are not timed; HTTP/2 ones are from their next read "
			 "of whole frames)",
			 (unsigned long long)(iv->lean_missed + iv->tls_h2),
			 iv->lean_missed + iv->tls_h2 == 1 ? "" : "s");
		return true;
	}
	if (iv->udp) {
		snprintf(r->why, sizeof(r->why), "UDP requests on a target port");
		return true;
	}
	if (iv->lean_unknown > 1 && iv->lean_unknown * OBS_LEAN_UNKNOWN_PER > iv->tcp_requests) {
		snprintf(r->why, sizeof(r->why), "%llu of %llu requests without the arrival the full "
			 "hooks see (pipelined, or written in pieces)",
			 (unsigned long long)iv->lean_unknown, (unsigned long long)iv->tcp_requests);
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
	case OBS_LEAN_FULL:
		if (iv->tls_h2 || iv->udp) {
			cannot(r, iv);
			r->state = OBS_LEAN_DONE;
		} else if (iv->tcp_requests && !iv->multi_arrival) {
			if (++r->plain >= OBS_LEAN_AFTER) {
				snprintf(r->why, sizeof(r->why),
					 "%u intervals of plain TCP requests only", r->plain);
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
		if (cannot(r, iv))
			r->state = OBS_LEAN_LEAVING;
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

struct obs_lean *obs_lean_new(const char *prog, enum obs_lean_mode mode,
			      struct bpf_program *const progs[3], volatile uint8_t *marks)
{
	struct bpf_program *p[3] = {progs[0], progs[1], progs[2]};
	struct obs_lean *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return NULL;
	l->prog = prog;
	l->mode = mode;
	l->marks = marks;
	l->rule.state = mode == OBS_LEAN_ON ? OBS_LEAN_LEAN : OBS_LEAN_FULL;
	l->tier = obs_systier_new(prog, OBS_SYSTIER_AUTO, p, 3);
	if (!l->tier) {
		err = errno;
		free(l);
		errno = err;
		return NULL;
	}
	*l->marks = obs_lean_marks(l->rule.state);
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
	obs_systier_free(l->tier);
	free(l);
}

void obs_lean_tick(struct obs_lean *l, const struct obs_lean_interval *iv, bool final)
{
	enum obs_lean_state was, now;
	uint64_t t = now_ns();
	int err;

	if (!l)
		return;
	was = l->rule.state;
	if (was == OBS_LEAN_GOING || was == OBS_LEAN_LEAN || was == OBS_LEAN_LEAVING) {
		l->lean_ns += t - l->last_ns;
		l->reads += iv->tcp_requests;
	}
	l->last_ns = t;
	if (final)
		return;
	now = obs_lean_decide(&l->rule, l->mode, iv);
	if (now == was)
		return;
	if (now == OBS_LEAN_GOING)
		ll_warn(l->prog, "note: request timing: lean hooks from now on (the read at "
				 "tcp:tcp_rcv_space_adjust; sk_data_ready and sock_recv_length "
				 "detached): %s",
			l->rule.why);
	else if (now == OBS_LEAN_DONE && was == OBS_LEAN_FULL)
		ll_warn(l->prog, "note: request timing keeps every hook: %s", l->rule.why);
	else if (now == OBS_LEAN_LEAVING || (now == OBS_LEAN_DONE && was == OBS_LEAN_GOING))
		ll_warn(l->prog, "note: request timing: every hook again, for the rest of the run: %s",
			l->rule.why);
	/* marks on before the copy hook comes; off once it has gone */
	if (obs_lean_marks(now))
		*l->marks = 1;
	err = obs_systier_want(l->tier, obs_lean_progs(now), 0);
	if (!obs_lean_marks(now))
		*l->marks = 0;
	if (err) {
		ll_warn(l->prog, "note: cannot switch request timing's hooks: %s", strerror(-err));
		if (now != OBS_LEAN_DONE) {
			/* every hook, as far as the child can still attach them */
			l->rule.state = OBS_LEAN_DONE;
			snprintf(l->rule.why, sizeof(l->rule.why), "cannot switch: %s",
				 strerror(-err));
			obs_systier_want(l->tier, obs_lean_progs(OBS_LEAN_DONE), 0);
		}
	}
}

double obs_lean_share(const struct obs_lean *l)
{
	uint64_t t = now_ns(), on = l->lean_ns;
	enum obs_lean_state s = l->rule.state;

	if (s == OBS_LEAN_GOING || s == OBS_LEAN_LEAN || s == OBS_LEAN_LEAVING)
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
