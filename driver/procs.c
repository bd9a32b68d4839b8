// SPDX-License-Identifier: MIT
/* The fd budget of a run, its wall, and -p N worker processes merged into one result. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "loadlens/cli.h"
#include "base/drv.h"
#include "results/merge.h"
#include "procs.h"
#include "results/report.h"
#include "run.h"

/* Why the hard limit could not be raised to what one process needs (0: it was not tried). */
static int raise_err;

uint64_t drv_procs_fds_needed(const struct drv_config *cfg, uint64_t connections)
{
	uint64_t threads = cfg->threads < connections ? cfg->threads : connections;

	return connections + 16 * threads + 64;
}

uint64_t drv_procs_raise_nofile(const struct drv_config *cfg)
{
	uint64_t need = drv_procs_fds_needed(cfg, cfg->connections);
	struct rlimit rl, up;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (!geteuid() && rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		up.rlim_cur = up.rlim_max = need;
		if (!setrlimit(RLIMIT_NOFILE, &up))
			rl = up;
		else /* EPERM: no CAP_SYS_RESOURCE; above fs.nr_open: EPERM too */
			raise_err = errno;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
}

static uint64_t sysctl(const char *path, unsigned int field)
{
	unsigned long long v[3] = {0, 0, 0};
	FILE *f = fopen(path, "re");
	int n = 0;

	if (f) {
		n = fscanf(f, "%llu %llu %llu", &v[0], &v[1], &v[2]);
		fclose(f);
	}
	return n > (int)field ? v[field] : 0;
}

/* Which wall holds one process to `limit` fds, as the end of a sentence. */
static void procs_wall(uint64_t limit, uint64_t need, char *buf, size_t len)
{
	uint64_t nr_open = sysctl("/proc/sys/fs/nr_open", 0);

	if (nr_open && need > nr_open && limit >= nr_open)
		snprintf(buf, len, "fs.nr_open (%" PRIu64 "), the most any process may hold: raise "
			 "it with sysctl fs.nr_open=N, or run several processes with -p",
			 nr_open);
	else if (!geteuid() && raise_err)
		snprintf(buf, len, "the hard RLIMIT_NOFILE (%" PRIu64 "), which root cannot raise "
			 "here (%s: no CAP_SYS_RESOURCE%s): run several processes with -p, or "
			 "raise it where it is set (LimitNOFILE=, limits.conf, the container's "
			 "ulimit)", limit, strerror(raise_err),
			 nr_open && need > nr_open ? ", or above fs.nr_open" : "");
	else
		snprintf(buf, len, "the hard RLIMIT_NOFILE (%" PRIu64 ", ulimit -Hn): run several "
			 "processes with -p, or raise it (as root, or with LimitNOFILE=, "
			 "limits.conf)", limit);
}

uint64_t drv_procs_plan(const struct drv_config *cfg, uint64_t limit, char *msg, size_t len)
{
	uint64_t n = cfg->procs ? cfg->procs : 1, per, need, total, file_nr, file_max, fit;
	struct drv_config one = *cfg;
	char wall[400];

	msg[0] = '\0';
	for (;;) {
		one.threads = cfg->threads / n ? cfg->threads / n + (cfg->threads % n != 0) : 1;
		per = drv_procs_fds_needed(&one, drv_procs_share(cfg->connections, n, 0));
		if (limit == UINT64_MAX || per <= limit || cfg->procs || n >= DRV_MAX_PROCS ||
		    n >= cfg->connections)
			break;
		n++;
	}
	need = drv_procs_fds_needed(cfg, cfg->connections);
	if (per > limit) {
		procs_wall(limit, per, wall, sizeof(wall));
		/* the processes that would fit, each leaving room for its threads */
		fit = limit > 16 * one.threads + 64 ? limit - 16 * one.threads - 64 : 1;
		snprintf(msg, len, "%" PRIu64 " connections in %" PRIu64 " process%s need about "
			 "%" PRIu64 " fds each, past %s; expect EMFILE (-p %" PRIu64 " fits)",
			 cfg->connections, n, n == 1 ? "" : "es", per, wall,
			 (cfg->connections + fit - 1) / fit);
		return n;
	}
	/* every process's fds come from one system-wide table */
	file_nr = sysctl("/proc/sys/fs/file-nr", 0);
	file_max = sysctl("/proc/sys/fs/file-nr", 2);
	total = cfg->connections + n * (per - drv_procs_share(cfg->connections, n, 0));
	if (file_max && file_nr + total > file_max) {
		snprintf(msg, len, "%" PRIu64 " connections need about %" PRIu64 " fds and the "
			 "system has %" PRIu64 " of fs.file-max %" PRIu64 " in use: the wall is "
			 "fs.file-max, for every process together; raise it with sysctl "
			 "fs.file-max=N; expect ENFILE", cfg->connections, total, file_nr, file_max);
		return n;
	}
	if (n > 1 && !cfg->procs) {
		procs_wall(limit, need, wall, sizeof(wall));
		snprintf(msg, len, "note: %" PRIu64 " connections need about %" PRIu64 " fds, and "
			 "one process may hold %" PRIu64 " (the wall is %s): running %" PRIu64
			 " worker processes, one merged result", cfg->connections, need, limit,
			 wall, n);
	}
	return n;
}

/* --- the worker processes --- */

struct child {
	pid_t pid;
	int fd; /* its JSON result, read to the end */
	char *buf;
	size_t len, cap;
	int status;
	uint64_t threads, conns;
};

static volatile sig_atomic_t procs_signo, nsig;

static void on_signal(int signo)
{
	procs_signo = signo;
	nsig++;
}

/* In the child: run its share and write its result into fd. Never returns. */
static void child_run(const struct drv_config *cfg, uint64_t i, uint64_t n, int fd,
			 struct drv_live_pub *pub, uint64_t threads)
{
	struct drv_config c = *cfg;
	struct drv_result res = {0};
	uint64_t j;
	int r;

	/* the parent forwards a signal once: a terminal's SIGINT to the group would be twice */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(LL_EXIT_FAIL);
	c.conn_total = cfg->connections;
	c.conn_base = 0;
	for (j = 0; j < i; j++)
		c.conn_base += drv_procs_share(cfg->connections, n, j);
	c.connections = drv_procs_share(cfg->connections, n, i);
	c.threads = threads;
	c.quiet = true;
	c.json_path = NULL;
	c.live_pub = pub;
	r = drv_run(&c, &res);
	if (r && !res.threads_started)
		ll_warn(DRV_PROG, "worker process %" PRIu64 " cannot start: %s", i, strerror(-r));
	r = drv_report_json_write_fd(fd, &c, &res);
	_exit(r ? LL_EXIT_FAIL : LL_EXIT_OK);
}

static int read_child(struct child *ch)
{
	ssize_t n;
	char *p;

	if (ch->cap - ch->len < 65536) {
		p = realloc(ch->buf, ch->cap + 262144);
		if (!p)
			return -ENOMEM;
		ch->buf = p;
		ch->cap += 262144;
	}
	n = read(ch->fd, ch->buf + ch->len, ch->cap - ch->len - 1);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (!n) {
		close(ch->fd);
		ch->fd = -1;
		return 0;
	}
	ch->len += (size_t)n;
	return 0;
}

static void live(const struct drv_live_pub *pub, uint64_t n, double t, double iv,
		    uint64_t *last_resp)
{
	uint64_t resp = 0, errs = 0, conns = 0, i;

	for (i = 0; i < n; i++) {
		resp += __atomic_load_n(&pub[i].responses, __ATOMIC_RELAXED);
		errs += __atomic_load_n(&pub[i].errors, __ATOMIC_RELAXED);
		conns += __atomic_load_n(&pub[i].connections, __ATOMIC_RELAXED);
	}
	fprintf(stderr, "[%7.1fs] %" PRIu64 " responses, %.0f req/s, %" PRIu64 " errors, %" PRIu64
		" connections (%" PRIu64 " processes)\n", t, resp - *last_resp,
		(double)(resp - *last_resp) / iv, errs, conns, n);
	*last_resp = resp;
}

static double procs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read every child's result while printing the live line; forward the first signal. */
static void procs_wait(const struct drv_config *cfg, struct child *ch, uint64_t n,
		    const struct drv_live_pub *pub)
{
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	double t0 = procs_now(), iv = (double)cfg->interval_ns / 1e9, next = t0 + iv * 1.5, now;
	uint64_t i, k, open, last = 0;
	sig_atomic_t forwarded = 0;
	int timeout;

	for (;;) {
		if (nsig > forwarded) {
			forwarded = nsig;
			for (i = 0; i < n; i++)
				if (ch[i].pid > 0)
					kill(ch[i].pid, SIGTERM);
			if (forwarded > 1) {
				fprintf(stderr, DRV_PROG ": second signal, exiting without a "
							 "summary\n");
				_exit(128 + procs_signo);
			}
		}
		for (i = open = 0; i < n; i++)
			if (ch[i].fd >= 0) {
				pfd[open].fd = ch[i].fd;
				pfd[open].events = POLLIN;
				pfd[open++].revents = 0;
			}
		if (!open || !pfd)
			break;
		now = procs_now();
		timeout = iv > 0 && !cfg->quiet ? (int)((next - now) * 1000) + 1 : 1000;
		if (timeout < 0)
			timeout = 0;
		if (poll(pfd, open, timeout) < 0 && errno != EINTR)
			break;
		/* only the pipes with something to read: a read would wait for a child's end */
		for (i = 0, k = 0; i < n && k < open; i++) {
			if (ch[i].fd < 0)
				continue;
			if (pfd[k++].revents && read_child(&ch[i]))
				break;
		}
		now = procs_now();
		if (iv > 0 && !cfg->quiet && now >= next) {
			live(pub, n, next - t0 - iv / 2, iv, &last); /* the workers publish on the grid */
			while (next <= now)
				next += iv;
		}
	}
	free(pfd);
	for (i = 0; i < n; i++) {
		if (ch[i].fd >= 0)
			close(ch[i].fd);
		while (ch[i].pid > 0 && waitpid(ch[i].pid, &ch[i].status, 0) < 0 && errno == EINTR)
			;
	}
}

/* Merge the children's documents; one line for each that gave none. Returns those lost. */
static uint64_t merge(struct drv_merge *m, struct child *ch, uint64_t n)
{
	json_error_t jerr;
	char err[256];
	uint64_t i, lost = 0;
	json_t *doc;

	for (i = 0; i < n; i++) {
		doc = ch[i].len ? json_loadb(ch[i].buf, ch[i].len, 0, &jerr) : NULL;
		if (!doc || drv_merge_add(m, doc, err, sizeof(err))) {
			lost++;
			ll_warn(DRV_PROG, "worker process %" PRIu64 " (pid %d) gave no result (%s): "
				"its %" PRIu64 " connections are not in the totals", i, (int)ch[i].pid,
				WIFSIGNALED(ch[i].status) ? strsignal(WTERMSIG(ch[i].status))
				: !doc ? "no output" : err, ch[i].conns);
		}
		json_decref(doc);
	}
	return lost;
}

int drv_procs_run(const struct drv_config *cfg, int json_fd, uint64_t nofile_limit)
{
	uint64_t n = cfg->procs, i, lost, threads = 0;
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	struct child *ch = calloc(n, sizeof(*ch));
	struct drv_live_pub *pub;
	struct drv_config rep;
	struct drv_merge m;
	int p[2], rc = LL_EXIT_OK, r;

	pub = mmap(NULL, n * sizeof(*pub), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		   -1, 0);
	if (!ch || pub == MAP_FAILED) {
		ll_warn(DRV_PROG, "cannot start %" PRIu64 " worker processes: out of memory", n);
		free(ch);
		return LL_EXIT_FAIL;
	}
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < n; i++) {
		ch[i].fd = -1;
		ch[i].conns = drv_procs_share(cfg->connections, n, i);
		ch[i].threads = drv_procs_share(cfg->threads, n, i);
		if (!ch[i].threads)
			ch[i].threads = 1;
		threads += ch[i].threads;
		if (pipe2(p, O_CLOEXEC)) {
			ll_warn(DRV_PROG, "worker process %" PRIu64 ": pipe: %s", i, strerror(errno));
			break;
		}
		ch[i].pid = fork();
		if (!ch[i].pid) {
			uint64_t j;

			for (j = 0; j < i; j++)
				if (ch[j].fd >= 0)
					close(ch[j].fd);
			close(p[0]);
			child_run(cfg, i, n, p[1], &pub[i], ch[i].threads);
		}
		close(p[1]);
		if (ch[i].pid < 0) {
			ll_warn(DRV_PROG, "worker process %" PRIu64 ": fork: %s", i, strerror(errno));
			close(p[0]);
			break;
		}
		ch[i].fd = p[0];
	}
	if (i < n) { /* the ones started still run their share, and are reported */
		rc = LL_EXIT_FAIL;
		nsig = 0;
	}
	procs_wait(cfg, ch, i, pub);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	r = drv_merge_init(&m);
	if (r) {
		rc = LL_EXIT_FAIL;
		goto cleanup;
	}
	lost = merge(&m, ch, i);
	drv_merge_finish(&m);
	if (lost || i < n)
		rc = LL_EXIT_FAIL;
	rep = *cfg;
	rep.threads = threads;
	m.res.nofile_limit = nofile_limit;
	m.res.threads = (uint32_t)threads;
	m.res.procs = (uint32_t)n;
	drv_report_summary(stdout, &rep, &m.res);
	if (json_fd >= 0) {
		r = drv_report_json_write_fd(json_fd, &rep, &m.res);
		if (r) {
			ll_warn(DRV_PROG, "cannot write %s: %s", cfg->json_path, strerror(-r));
			rc = LL_EXIT_FAIL;
		}
	}
	if (!m.res.total.requests && m.res.total.errors_total)
		rc = LL_EXIT_FAIL;
	drv_merge_fini(&m);
cleanup:
	for (i = 0; i < n; i++)
		free(ch[i].buf);
	free(ch);
	munmap(pub, n * sizeof(*pub));
	return rc;
}
