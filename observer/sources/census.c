// SPDX-License-Identifier: MIT
/* Socket census: its context in the target's namespace (the sock_diag socket, the sysctls, the
 * TcpExt counters' file), the walk by a TCP iterator counting in the kernel
 * (census_tcp_iter.c; sock_diag's walk where it does not load: census_diag.c), the port groups
 * and the census' result. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include "loadlens/cli.h"
#include "loadlens/parse.h"
#include "sources/census.h"
#include "sources/census_ctx.h"

const char *const obs_census_tcp_state_names[OBS_TCP_STATES] = {
	[1] = "ESTABLISHED", [2] = "SYN_SENT",	 [3] = "SYN_RECV",   [4] = "FIN_WAIT1",
	[5] = "FIN_WAIT2",   [6] = "TIME_WAIT",	 [7] = "CLOSE",	     [8] = "CLOSE_WAIT",
	[9] = "LAST_ACK",    [10] = "LISTEN",	 [11] = "CLOSING",   [12] = "NEW_SYN_RECV",
};

_Static_assert(CEN_GROUPS == GROUP_SLOTS * 3 / 4 && CEN_PORTS == OBS_MAX_PORTS &&
		       CEN_STATES == OBS_TCP_STATES,
	       "the iterator counts what the sock_diag walk counts, with the same bounds");

static const char *const census_paths[] = {
	"/proc/sys/net/ipv4/ip_local_port_range", "/proc/self/net/netstat",
	"/proc/sys/net/ipv4/tcp_tw_reuse", "/proc/sys/net/ipv4/tcp_fin_timeout",
	"/proc/sys/net/ipv4/tcp_max_tw_buckets",
};
_Static_assert(sizeof(census_paths) / sizeof(census_paths[0]) == CENSUS_NFILES,
	       "one path per census file");


static int open_in_ns(struct obs_census_ctx *c)
{
	size_t i;

	c->nl = mnl_socket_open(NETLINK_SOCK_DIAG);
	if (!c->nl || mnl_socket_bind(c->nl, 0, MNL_SOCKET_AUTOPID))
		return -errno;
	c->portid = mnl_socket_get_portid(c->nl);
	for (i = 0; i < CENSUS_NFILES; i++)
		c->fd[i] = open(census_paths[i], O_RDONLY | O_CLOEXEC);
	return 0;
}

struct obs_census_ctx *obs_census_new(const char *prog, int netns_fd, const uint16_t *ports,
				      size_t nports)
{
	struct obs_census_ctx *c = calloc(1, sizeof(*c));
	int self = -1, err = 0;
	size_t i;

	if (!c)
		return NULL;
	for (i = 0; i < CENSUS_NFILES; i++)
		c->fd[i] = -1;
	c->prog = prog;
	c->groups = calloc(GROUP_SLOTS, sizeof(*c->groups));
	c->buf = malloc(RECV_BUF);
	c->age = obs_sock_age_new();
	if (!c->groups || !c->buf || !c->age) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < nports && i < OBS_MAX_PORTS; i++) {
		c->port_bits[ports[i] >> 6] |= 1ULL << (ports[i] & 63);
		c->ports[i] = ports[i];
	}
	c->nports = i;
	if (netns_fd >= 0) {
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (self < 0 || setns(netns_fd, CLONE_NEWNET)) {
			err = -errno;
			ll_warn(prog, "cannot enter the target's network namespace: %s",
				strerror(-err));
			goto cleanup;
		}
	}
	err = open_in_ns(c);
	if (self >= 0 && setns(self, CLONE_NEWNET)) {
		err = -errno;
		ll_warn(prog, "cannot return to our network namespace: %s", strerror(-err));
	}
	if (err) {
		ll_warn(prog, "cannot open a sock_diag socket: %s", strerror(-err));
		goto cleanup;
	}
	/* the walk in the kernel where it loads; sock_diag's walk otherwise */
	c->it = obs_census_iter_new(netns_fd, c->ports, c->nports);
	if (!c->it)
		ll_warn(prog, "note: the socket census uses sock_diag (a TCP iterator: %s)",
			strerror(errno));
cleanup:
	if (self >= 0)
		close(self);
	if (err) {
		obs_census_free(c);
		errno = -err;
		return NULL;
	}
	return c;
}

void obs_census_free(struct obs_census_ctx *c)
{
	size_t i;

	if (!c)
		return;
	obs_census_iter_free(c->it);
	obs_census_iter_free(c->it_off);
	if (c->nl)
		mnl_socket_close(c->nl);
	for (i = 0; i < CENSUS_NFILES; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	free(c->groups);
	free(c->buf);
	obs_sock_age_free(c->age);
	free(c);
}

/* The sockets the iterator handed out to age, as on_msg() ages sock_diag's. */
static void iter_rec(void *arg, const struct cen_rec *r)
{
	struct obs_census_ctx *c = arg;
	uint32_t src[4], dst[4];
	int port;

	memcpy(src, r->saddr, sizeof(src));
	memcpy(dst, r->daddr, sizeof(dst));
	if (r->state == OBS_TCP_CLOSE_WAIT && !r->accepted) {
		if (!obs_sock_age_unaccepted(c->age, conn_hash(r->family, src, r->sport, dst,
							       r->dport)))
			c->cur->unaccepted_untracked++;
		return;
	}
	if (!obs_sock_age_track(c->age, r->cookie, r->state == OBS_TCP_CLOSE_WAIT,
				conn_hash(r->family, dst, r->dport, src, r->sport))) {
		c->cur->close_wait_untracked++;
		return;
	}
	port = port_index(c, r->sport, r->dport);
	if (port >= 0)
		obs_sock_age_port(c->age, (int16_t)port);
}

static void iter_group(void *arg, const struct cen_group_key *k, const struct cen_group_val *v)
{
	struct obs_census_ctx *c = arg;
	struct obs_port_group g;
	uint32_t i = 0;

	memset(&g, 0, sizeof(g));
	g.family = k->family;
	memcpy(g.saddr, k->saddr, 16);
	memcpy(g.daddr, k->daddr, 16);
	g.dport = k->dport;
	g.in_use = v->in_use;
	g.time_wait = v->time_wait;
	g.fin_wait2 = v->fin_wait2;
	/* into the table sock_diag's walk fills (the kernel's map is its size, 3/4 of it) */
	for (i = hash(&g) & (GROUP_SLOTS - 1); c->groups[i].in_use; i = (i + 1) & (GROUP_SLOTS - 1))
		;
	c->groups[i] = g;
	c->ngroups++;
}

static int iter_walk(struct obs_census_ctx *c, struct obs_census *cs)
{
	const struct obs_census_iter_sink sink = {iter_rec, iter_group, c};
	struct obs_census_iter_counts n;
	size_t i;
	int err;

	err = obs_census_iter_walk(c->it, c->listen_bits, cs->port_lo, cs->port_hi, &n, &sink);
	if (err)
		return err;
	/* added to the listen pass' listeners */
	for (i = 0; i < CEN_STATES && i < OBS_TCP_STATES; i++)
		cs->state[i] += n.state[i];
	cs->sockets += n.sockets;
	cs->groups_capped = n.capped;
	for (i = 0; i < cs->nports; i++) {
		cs->ports[i].close_wait = n.close_wait[i];
		cs->ports[i].fin_wait2 = n.fin_wait2[i];
		cs->ports[i].time_wait = n.time_wait[i];
	}
	return 0;
}

static int64_t read_int(int fd)
{
	char buf[32];
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

static void read_range(struct obs_census_ctx *c, struct obs_census *cs)
{
	char buf[64];
	unsigned int lo, hi;
	ssize_t n;

	if (c->fd[CENSUS_RANGE] < 0)
		return;
	n = pread(c->fd[CENSUS_RANGE], buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%u %u", &lo, &hi) == 2 && lo && lo <= hi && hi < 65536) {
		cs->port_lo = lo;
		cs->port_hi = hi;
	}
}

static int cmp_group(const void *a, const void *b)
{
	const struct obs_port_group *x = a, *y = b;
	int d;

	if (x->in_use != y->in_use)
		return x->in_use < y->in_use ? 1 : -1;
	/* ties by the key: the same top whatever order the walk found the groups in */
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	d = memcmp(x->saddr, y->saddr, 16);
	if (!d)
		d = memcmp(x->daddr, y->daddr, 16);
	return d ? d : (int)x->dport - (int)y->dport;
}

int obs_census_listeners(struct obs_census_ctx *c, struct obs_census *cs)
{
	memset(cs, 0, sizeof(*cs));
	memset(c->listen_bits, 0, sizeof(c->listen_bits));
	return obs__census_diag_listen_pass(c, cs);
}

void obs_census_listen_queue(struct obs_census_ctx *c, struct obs_census *lp,
			     struct obs_listen_queue *q)
{
	memset(q, 0, sizeof(*q));
	if (!c || obs_census_listeners(c, lp))
		return;
	q->queued = lp->listen_queued;
	q->qlen_max = lp->listen_qlen_max;
	q->backlog = lp->listen_backlog;
	q->ok = true;
}

int obs_census_take(struct obs_census_ctx *c, struct obs_census *cs)
{
	struct timespec t0, t1;
	size_t i;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	obs_sock_age_begin(c->age, (double)t0.tv_sec + (double)t0.tv_nsec / 1e9);
	memset(cs, 0, sizeof(*cs));
	memset(c->listen_bits, 0, sizeof(c->listen_bits));
	memset(c->groups, 0, GROUP_SLOTS * sizeof(*c->groups));
	c->ngroups = 0;
	c->cur = cs;
	read_range(c, cs);
	cs->tw_reuse = (int)read_int(c->fd[CENSUS_TW_REUSE]);
	cs->fin_timeout_s = (int)read_int(c->fd[CENSUS_FIN_TIMEOUT]);
	cs->max_tw_buckets = read_int(c->fd[CENSUS_MAX_TW]);
	err = obs__census_diag_listen_pass(c, cs);
	for (i = 0; i < c->nports; i++) {
		cs->ports[i].port = c->ports[i];
		cs->ports[i].server_side = bit(c->listen_bits, c->ports[i]);
	}
	cs->nports = c->nports;
	if (!err && c->it) {
		err = iter_walk(c, cs);
		if ((err == -EPERM || err == -EACCES) && !c->it_off) {
			/* creating the iterator refused (privilege gone on a kernel that checks it):
			 * sock_diag from here on; nothing of this walk was counted yet */
			ll_warn(c->prog, "note: the socket census' TCP iterator failed (%s); "
					 "sock_diag from now on", strerror(-err));
			c->it_off = c->it;
			c->it = NULL;
			err = 0;
		}
	}
	if (!err && !c->it)
		err = obs__census_diag_walk(c);
	if (err)
		return err;
	obs_sock_age_end(c->age, &c->aged);
	cs->aging_young = c->aged.young;
	cs->fin_wait2_peer_queued = c->aged.peer_queued;
	cs->close_wait_old = c->aged.close_wait_old;
	cs->fin_wait2_old = c->aged.fin_wait2_old;
	for (i = 0; i < cs->nports; i++) {
		cs->ports[i].close_wait_old = c->aged.port_close_wait_old[i];
		cs->ports[i].fin_wait2_old = c->aged.port_fin_wait2_old[i];
	}
	/* the most used groups first */
	for (i = 0; i < GROUP_SLOTS; i++) {
		if (!c->groups[i].in_use)
			continue;
		if (cs->ntop < OBS_CENSUS_TOP) {
			cs->top[cs->ntop++] = c->groups[i];
			qsort(cs->top, cs->ntop, sizeof(cs->top[0]), cmp_group);
		} else if (cmp_group(&c->groups[i], &cs->top[OBS_CENSUS_TOP - 1]) < 0) {
			cs->top[OBS_CENSUS_TOP - 1] = c->groups[i];
			qsort(cs->top, cs->ntop, sizeof(cs->top[0]), cmp_group);
		}
	}
	cs->ngroups = c->ngroups;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cs->took_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	return 0;
}

const char *obs_census_mechanism(const struct obs_census_ctx *c)
{
	return c->it ? "bpf_iter" : "sock_diag";
}

int obs_census_use_iter(struct obs_census_ctx *c, bool on)
{
	struct obs_census_iter *t;

	if (on == !!c->it)
		return 0;
	if (on && !c->it_off)
		return -ENOTSUP;
	t = c->it;
	c->it = c->it_off;
	c->it_off = t;
	return 0;
}

uint32_t obs_census_range(const struct obs_census *cs)
{
	return cs->port_lo ? cs->port_hi - cs->port_lo + 1 : 0;
}

int obs_census_netstat(struct obs_census_ctx *c, struct obs_netstat *out)
{
	return obs_proc_netstat_read(c->fd[CENSUS_NETSTAT], out);
}

const char *obs_census_port_group_text(const struct obs_port_group *g, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN + 2], d[INET6_ADDRSTRLEN + 8];
	int fam = g->family == AF_INET6 ? AF_INET6 : AF_INET;

	snprintf(buf, len, "%s -> %s", ll_format_ip(fam, g->saddr, -1, s, sizeof(s)),
		 ll_format_ip(fam, g->daddr, g->dport, d, sizeof(d)));
	return buf;
}
