// SPDX-License-Identifier: MIT
/* The syscall tier, attached on demand (see systier.h for why and when). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "loadlens/cli.h"
#include "kernel/startup.h"
#include "kernel/systier.h"
#include "kernel/failures_object.h"

struct obs_systier {
	enum obs_systier_mode mode;
	struct bpf_program *progs[OBS_SYSTIER_MAX_PROGS];
	struct bpf_link *links[OBS_SYSTIER_MAX_PROGS]; /* ON: ours; AUTO: the child holds them */
	size_t n;
	int sock;  /* AUTO: our end of the socketpair to the child */
	pid_t child;
	uint64_t tp_ids[OBS_SYSTIER_MAX_PROGS]; /* classic tracepoints' ids, read while root */
	struct obs_systier_state st; /* attached (AUTO: by '1', not a brief sample), ticks, linger */
	const char *reason;
	uint64_t start_ns, last_ns, on_ns;
	void (*on_attach)(void *);
	void *on_attach_arg;
	void (*on_lead)(void *, bool);
	void *on_lead_arg;
	bool lead; /* what on_lead was last told */
};

static const char *const names[] = {
	[OBS_SYSTIER_AUTO] = "auto",
	[OBS_SYSTIER_ON] = "on",
	[OBS_SYSTIER_OFF] = "off",
};

int obs_systier_mode_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

const char *obs_systier_mode_name(enum obs_systier_mode m)
{
	return names[m];
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A classic tracepoint's id, from tracefs (readable by root only), so that the helper can attach
 * it later as an unprivileged uid: perf_event_open() of a tracepoint by id needs CAP_PERFMON, not
 * tracefs. 0 for a program that is not a classic tracepoint, or an id that cannot be read.
 */
static const char *classic_tp(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);

	if (!strncmp(sec, "tracepoint/", 11))
		return sec + 11;
	if (!strncmp(sec, "tp/", 3))
		return sec + 3;
	return NULL;
}

static uint64_t systier_tp_id(const struct bpf_program *p)
{
	const char *tp = classic_tp(p);
	unsigned long long id = 0;
	char path[512];
	FILE *f;

	if (!tp || !obs_startup_tracefs())
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s/id", obs_startup_tracefs(), tp);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &id) != 1)
		id = 0;
	fclose(f);
	return id;
}

/* Attach one program: a classic tracepoint by its id (what libbpf does, without tracefs). */
static struct bpf_link *attach(struct bpf_program *p, uint64_t tp_id)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = tp_id,
		.sample_period = 1,
		.wakeup_events = 1,
	};
	struct bpf_link *l;
	int pfd, err;

	if (!tp_id)
		return bpf_program__attach(p);
	pfd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	l = bpf_program__attach_perf_event(p, pfd);
	if (!l) {
		err = errno;
		close(pfd);
		errno = err;
	}
	return l; /* owns pfd */
}

/* Attach (on) or detach every program; the first error, as a positive errno, or 0. */
static int set_links(struct bpf_link **links, struct bpf_program *const *progs,
			const uint64_t *tp_ids, size_t n, bool on)
{
	int err = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (on && !links[i]) {
			links[i] = attach(progs[i], tp_ids ? tp_ids[i] : 0);
			if (!links[i] && !err)
				err = errno ? errno : EINVAL;
		} else if (!on && links[i]) {
			bpf_link__destroy(links[i]);
			links[i] = NULL;
		}
	}
	return err;
}

/* Have exactly the programs of mask attached (bit i: progs[i]), attaching before detaching: a
 * program that takes over another's work is there before that one goes. The first error, as a
 * positive errno, or 0. */
static int set_mask(struct bpf_link **links, struct bpf_program *const *progs,
		    const uint64_t *tp_ids, size_t n, unsigned int mask)
{
	int err = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(mask & 1U << i) || links[i])
			continue;
		links[i] = attach(progs[i], tp_ids ? tp_ids[i] : 0);
		if (!links[i] && !err)
			err = errno ? errno : EINVAL;
	}
	if (err) /* what was asked did not hold: keep the others attached */
		return err;
	for (i = 0; i < n; i++) {
		if ((mask & 1U << i) || !links[i])
			continue;
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
	return 0;
}

/* The child: one byte in ('1' attach, '0' detach, 'S' attach for OBS_SYSTIER_SAMPLE_MS, then
 * detach unasked; OBS_SYSTIER_MASK | mask: set_mask()), one byte out (0 or an errno). It runs as
 * the observer's unprivileged user, with CAP_BPF and CAP_PERFMON only, no bounding set, no new
 * privileges: the tracepoint ids were read by the parent while it was root.
 * LOADLENS_OBSERVER_SWITCH_DELAY_MS (0..5000) holds each switch that long: the tests' busy machine,
 * where the child comes late to what the parent asked. */
static void systier_child(int sock, struct bpf_program *const *progs, const uint64_t *tp_ids,
			  size_t n)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	int window = -1; /* a sample under way: its ms left to run (roughly: no signal ends a poll) */
	const uint64_t keep = 1ULL << CAP_BPF | 1ULL << CAP_PERFMON;
	struct bpf_link *links[OBS_SYSTIER_MAX_PROGS] = {};
	const char *delay = getenv("LOADLENS_OBSERVER_SWITCH_DELAY_MS");
	int switch_delay_ms = delay ? atoi(delay) : 0;

	if (switch_delay_ms < 0 || switch_delay_ms > 5000)
		switch_delay_ms = 0;
	unsigned char cmd, res;
	struct obs_user user;
	ssize_t r;
	size_t i;

	/* the terminal's Ctrl-C is the observer's to handle: we leave when it closes the socket */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* a classic tracepoint whose id is unknown needs tracefs, root's: then stay uid 0 */
	for (i = 0; i < n && (tp_ids[i] || !classic_tp(progs[i])); i++)
		;
	obs_startup_unprivileged_user(&user);
	if (i == n && !geteuid() ? obs_startup_drop_to_user(NULL, NULL, keep, &user)
		   : obs_startup_drop_privileges_keep(NULL, NULL, keep))
		_exit(1);
	for (;;) {
		if (window >= 0 && poll(&p, 1, window) == 0) {
			set_links(links, progs, tp_ids, n, false); /* the sample is over */
			window = -1;
			continue;
		}
		window = -1; /* a command ends a sample: what it asks holds from now */
		r = read(sock, &cmd, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if ((cmd & OBS_SYSTIER_MASK) && switch_delay_ms)
			poll(NULL, 0, switch_delay_ms); /* the tests' slow child */
		res = (unsigned char)(cmd & OBS_SYSTIER_MASK
					      ? set_mask(links, progs, tp_ids, n, cmd & ~OBS_SYSTIER_MASK)
					      : set_links(links, progs, tp_ids, n, cmd != '0'));
		if (cmd == 'S')
			window = OBS_SYSTIER_SAMPLE_MS;
		if (write(sock, &res, 1) != 1)
			break;
	}
	set_links(links, progs, tp_ids, n, false);
	_exit(0);
}

/*
 * Ask the child to attach or detach, without waiting: a detach can take the child about a second
 * (the kernel waits for an RCU grace period per tracepoint it unregisters), and the interval loop
 * must not stall. Its answers are collected at the next call; the first failure is returned.
 */
static int send_cmd(struct obs_systier *t, unsigned char cmd)
{
	unsigned char res;
	int err = 0;
	ssize_t r;

	while ((r = read(t->sock, &res, 1)) == 1)
		if (res && !err)
			err = -(int)res;
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		return -EPIPE;
	if (write(t->sock, &cmd, 1) != 1)
		return -EPIPE;
	return err;
}

int obs_systier_want(struct obs_systier *t, unsigned int mask, int wait_ms)
{
	struct pollfd p = {.fd = t->sock, .events = POLLIN};
	unsigned char res;
	ssize_t r;
	int err;

	if (t->mode != OBS_SYSTIER_AUTO || mask >= OBS_SYSTIER_MASK || t->n > 7)
		return -EINVAL;
	err = send_cmd(t, (unsigned char)(OBS_SYSTIER_MASK | mask));
	if (!wait_ms || err == -EPIPE)
		return err;
	/* this answer, now (send_cmd read the earlier ones) */
	if (poll(&p, 1, wait_ms) != 1)
		return -ETIMEDOUT;
	r = read(t->sock, &res, 1);
	if (r != 1)
		return -EPIPE;
	return res ? -(int)res : err;
}

struct obs_systier *obs_systier_new(const char *prog, enum obs_systier_mode mode,
				    struct bpf_program *const *progs, size_t n)
{
	struct obs_systier *t;
	int sv[2], err;
	size_t i;

	if (n > OBS_SYSTIER_MAX_PROGS) {
		errno = E2BIG;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->mode = mode;
	t->n = n;
	t->sock = -1;
	memcpy(t->progs, progs, n * sizeof(progs[0]));
	t->start_ns = t->last_ns = now_ns();
	if (mode == OBS_SYSTIER_ON) {
		err = set_links(t->links, t->progs, NULL, n, true);
		if (err) {
			ll_warn(prog, "cannot attach the syscall tracepoints: %s", strerror(err));
			obs_systier_free(t);
			errno = err;
			return NULL;
		}
		t->st.attached = true;
	} else if (mode == OBS_SYSTIER_AUTO) {
		for (i = 0; i < n; i++)
			t->tp_ids[i] = systier_tp_id(t->progs[i]);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv)) {
			err = errno;
			ll_warn(prog, "cannot start the syscall-tier helper: %s", strerror(err));
			free(t);
			errno = err;
			return NULL;
		}
		t->child = fork();
		if (t->child == 0) {
			close(sv[0]);
			/* the child waits for commands; only our end is non-blocking */
			fcntl(sv[1], F_SETFL, 0);
			systier_child(sv[1], t->progs, t->tp_ids, n);
		}
		close(sv[1]);
		if (t->child < 0) {
			err = errno;
			close(sv[0]);
			ll_warn(prog, "cannot start the syscall-tier helper: %s", strerror(err));
			free(t);
			errno = err;
			return NULL;
		}
		t->sock = sv[0];
	}
	return t;
}

void obs_systier_free(struct obs_systier *t)
{
	if (!t)
		return;
	set_links(t->links, t->progs, NULL, t->n, false);
	if (t->sock >= 0)
		close(t->sock); /* the child detaches and exits */
	if (t->child > 0)
		waitpid(t->child, NULL, 0);
	free(t);
}

static bool sample_tick(unsigned int ticks)
{
	return ticks % OBS_SYSTIER_SAMPLE_EVERY == OBS_SYSTIER_SAMPLE_EVERY / 2;
}

struct obs_systier_step obs_systier_plan(const struct obs_systier_state *st, bool pressure,
					 bool soon)
{
	struct obs_systier_step s = {.linger = st->linger};
	bool sample = false;

	if (pressure) {
		s.linger = OBS_SYSTIER_LINGER;
		s.want = true;
	} else if (s.linger) {
		s.linger--;
		s.want = true;
	} else {
		/* a sample: one interval in OBS_SYSTIER_SAMPLE_EVERY, not the first */
		s.want = sample = sample_tick(st->ticks);
	}
	/* from an interval before a sample, while pressure may come, while attached, and for the
	 * interval after */
	s.lead = s.want || st->attached || sample_tick(st->ticks + 1) || soon;
	/* a brief sample: the first OBS_SYSTIER_SAMPLE_MS of the interval only, the child detaches
	 * unasked (attached stays false) */
	s.brief = sample && st->brief && !st->attached;
	return s;
}

int obs_systier_tick(struct obs_systier *t, const char *pressure, bool soon)
{
	uint64_t now = now_ns();
	struct obs_systier_step s;
	int err;

	if (t->st.attached)
		t->on_ns += now - t->last_ns;
	t->last_ns = now;
	if (t->mode != OBS_SYSTIER_AUTO)
		return 0;
	t->st.ticks++;
	s = obs_systier_plan(&t->st, pressure != NULL, soon);
	t->st.linger = s.linger;
	if (pressure)
		t->reason = pressure;
	if (t->on_lead && s.lead != t->lead)
		t->on_lead(t->on_lead_arg, s.lead);
	t->lead = s.lead;
	if (!s.brief && s.want == t->st.attached)
		return 0;
	if (s.want && t->on_attach)
		t->on_attach(t->on_attach_arg);
	/* the child does it in the background; an error surfaces at the next switch */
	err = send_cmd(t, s.brief ? 'S' : s.want ? '1' : '0');
	if (s.brief && !err)
		t->on_ns += OBS_SYSTIER_SAMPLE_MS * 1000000ULL;
	else if (!s.brief && err != -EPIPE)
		t->st.attached = s.want;
	return err;
}

void obs_systier_brief_samples(struct obs_systier *t)
{
	t->st.brief = true;
}

void obs_systier_on_attach(struct obs_systier *t, void (*fn)(void *), void *arg)
{
	t->on_attach = fn;
	t->on_attach_arg = arg;
}

void obs_systier_on_lead(struct obs_systier *t, void (*fn)(void *, bool), void *arg)
{
	t->on_lead = fn;
	t->on_lead_arg = arg;
}

bool obs_systier_attached(const struct obs_systier *t)
{
	return t->st.attached;
}

enum obs_systier_mode obs_systier_mode(const struct obs_systier *t)
{
	return t->mode;
}

double obs_systier_share(const struct obs_systier *t)
{
	uint64_t now = now_ns(), on = t->on_ns + (t->st.attached ? now - t->last_ns : 0);

	return now > t->start_ns ? (double)on / (double)(now - t->start_ns) : 0.0;
}

const char *obs_systier_reason(const struct obs_systier *t)
{
	return t->reason;
}
