// SPDX-License-Identifier: MIT
/* Socket census: a TCP iterator counting in the kernel (census_iter.c) or sock_diag (libmnl),
 * port groups, and the namespace's listen counters. */
#include <arpa/inet.h>
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
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include "loadlens/cli.h"
#include "loadlens/parse.h"
#include "sources/census.h"
#include "sources/census_tcp_iter.h"

const char *const obs_tcp_state_names[OBS_TCP_STATES] = {
	[1] = "ESTABLISHED", [2] = "SYN_SENT",	 [3] = "SYN_RECV",   [4] = "FIN_WAIT1",
	[5] = "FIN_WAIT2",   [6] = "TIME_WAIT",	 [7] = "CLOSE",	     [8] = "CLOSE_WAIT",
	[9] = "LAST_ACK",    [10] = "LISTEN",	 [11] = "CLOSING",   [12] = "NEW_SYN_RECV",
};

#define GROUP_SLOTS 8192 /* distinct (src, dst:port) groups counted; more land in "other" */
_Static_assert(CEN_GROUPS == GROUP_SLOTS * 3 / 4 && CEN_PORTS == OBS_MAX_PORTS &&
		       CEN_STATES == OBS_TCP_STATES,
	       "the iterator counts what the sock_diag walk counts, with the same bounds");
#define RECV_BUF (64 * 1024)

/* The files of the target's network namespace, opened in it with the sock_diag socket. */
enum census_file {
	CENSUS_RANGE,	    /* ip_local_port_range */
	CENSUS_NETSTAT,	    /* the namespace's TcpExt counters */
	CENSUS_TW_REUSE,    /* the sysctls the rules weigh */
	CENSUS_FIN_TIMEOUT,
	CENSUS_MAX_TW,
	CENSUS_NFILES
};

/* in the order of enum census_file */
static const char *const census_paths[] = {
	"/proc/sys/net/ipv4/ip_local_port_range", "/proc/self/net/netstat",
	"/proc/sys/net/ipv4/tcp_tw_reuse", "/proc/sys/net/ipv4/tcp_fin_timeout",
	"/proc/sys/net/ipv4/tcp_max_tw_buckets",
};
_Static_assert(sizeof(census_paths) / sizeof(census_paths[0]) == CENSUS_NFILES,
	       "one path per census file");

struct obs_census_ctx {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	int fd[CENSUS_NFILES]; /* -1: not readable */
	uint16_t ports[OBS_MAX_PORTS];
	uint64_t port_bits[OBS_PORT_WORDS]; /* target ports; nports == 0: all */
	size_t nports;
	uint64_t listen_bits[OBS_PORT_WORDS]; /* ports something listens on, this census */
	struct obs_port_group *groups;	      /* open addressing, GROUP_SLOTS */
	char *buf;
	const char *prog;
	struct obs_census_iter *it; /* the walk in the kernel; NULL: sock_diag's */
	struct obs_census_iter *it_off; /* loaded, set aside by obs_census_use_iter(c, false) */
	struct obs_sock_age *age; /* CLOSE_WAIT and FIN_WAIT2 across censuses */
	struct obs_sock_age_counts aged; /* what the last walk's ageing found */
	bool aged_last;			 /* the socket being counted is aged */
	/* the census being taken */
	struct obs_census *cur;
	bool listen_pass;
	size_t ngroups;
};

static bool bit(const uint64_t *bits, uint16_t p)
{
	return bits[p >> 6] & (1ULL << (p & 63));
}

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

static uint32_t hash(const struct obs_port_group *k)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < 16; i++)
		h = (h ^ k->saddr[i]) * 16777619u;
	for (i = 0; i < 16; i++)
		h = (h ^ k->daddr[i]) * 16777619u;
	h = (h ^ k->dport) * 16777619u;
	return h ^ k->family;
}

static void group_add(struct obs_census_ctx *c, const struct obs_port_group *k, int state)
{
	uint32_t i = hash(k) & (GROUP_SLOTS - 1), n;
	struct obs_port_group *g;

	for (n = 0; n < GROUP_SLOTS; n++, i = (i + 1) & (GROUP_SLOTS - 1)) {
		g = &c->groups[i];
		if (!g->in_use) {
			if (c->ngroups >= GROUP_SLOTS * 3 / 4) {
				c->cur->groups_capped = true; /* said in the summary */
				return;
			}
			*g = *k;
			c->ngroups++;
		} else if (g->family != k->family || g->dport != k->dport ||
			   memcmp(g->saddr, k->saddr, 16) || memcmp(g->daddr, k->daddr, 16)) {
			continue;
		}
		g->in_use++;
		g->time_wait += state == OBS_TCP_TIME_WAIT;
		g->fin_wait2 += state == OBS_TCP_FIN_WAIT2;
		return;
	}
}

/* A connection as its local end sees it: (local address:port, remote address:port). */
static uint64_t conn_hash(uint8_t family, const uint32_t *laddr, uint16_t lport,
			     const uint32_t *raddr, uint16_t rport)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i, n = family == AF_INET ? 1 : 4;

	for (i = 0; i < n; i++)
		h = (h ^ laddr[i]) * 1099511628211ULL;
	for (i = 0; i < n; i++)
		h = (h ^ raddr[i]) * 1099511628211ULL;
	h = (h ^ lport) * 1099511628211ULL;
	return (h ^ rport) * 1099511628211ULL;
}

/* A socket's target port, as an index into the census' ports (the local one if it is a target,
 * else the remote one); -1: none (or every port is a target). */
static int port_index(const struct obs_census_ctx *c, uint16_t sport, uint16_t dport)
{
	uint16_t port = bit(c->port_bits, sport) ? sport : dport;
	size_t i;

	for (i = 0; i < c->nports; i++)
		if (c->ports[i] == port)
			return (int)i;
	return -1;
}

/* CLOSE_WAIT, FIN_WAIT2 and TIME_WAIT per target port. */
static void port_count(struct obs_census_ctx *c, struct obs_census *cs, uint16_t sport,
			  uint16_t dport, uint8_t state)
{
	int i;

	if (state != OBS_TCP_CLOSE_WAIT && state != OBS_TCP_FIN_WAIT2 && state != OBS_TCP_TIME_WAIT)
		return;
	i = port_index(c, sport, dport);
	if (i < 0)
		return;
	if (c->aged_last)
		obs_sock_age_port(c->age, (int16_t)i);
	cs->ports[i].close_wait += state == OBS_TCP_CLOSE_WAIT;
	cs->ports[i].fin_wait2 += state == OBS_TCP_FIN_WAIT2;
	cs->ports[i].time_wait += state == OBS_TCP_TIME_WAIT;
}

/* UDP sockets bound to a target port: a UDP server is a listener too. */
static int on_udp(const struct nlmsghdr *nlh, void *data)
{
	struct obs_census_ctx *c = data;
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	uint16_t sport;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return MNL_CB_OK;
	sport = ntohs(m->id.idiag_sport);
	c->listen_bits[sport >> 6] |= 1ULL << (sport & 63);
	return MNL_CB_OK;
}

static int on_msg(const struct nlmsghdr *nlh, void *data)
{
	struct obs_census_ctx *c = data;
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct obs_census *cs = c->cur;
	uint16_t sport, dport;
	struct obs_port_group k;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return MNL_CB_OK;
	sport = ntohs(m->id.idiag_sport);
	dport = ntohs(m->id.idiag_dport);
	if (c->listen_pass) {
		if (m->idiag_state != OBS_TCP_LISTEN)
			return MNL_CB_OK;
		c->listen_bits[sport >> 6] |= 1ULL << (sport & 63);
		if (!c->nports || bit(c->port_bits, sport)) {
			if (cs->nlisten < OBS_CENSUS_LISTENERS)
				cs->listen_inodes[cs->nlisten++] = m->idiag_inode;
			else
				cs->listeners_untracked++;
			/* a listener's rqueue is its accept queue, wqueue its backlog */
			cs->listen_queued += m->idiag_rqueue;
			if (m->idiag_rqueue >= cs->listen_qlen_max) {
				cs->listen_qlen_max = m->idiag_rqueue;
				cs->listen_backlog = m->idiag_wqueue;
				cs->listen_port = sport;
			}
		}
	}
	if (c->nports && !bit(c->port_bits, sport) && !bit(c->port_bits, dport))
		return MNL_CB_OK;
	if (m->idiag_state < OBS_TCP_STATES)
		cs->state[m->idiag_state]++;
	cs->sockets++;
	c->aged_last = false;
	/* CLOSE_WAIT of an accepted socket (a child still in the accept queue has no inode: the
	 * application never had it), and FIN_WAIT2, orphans included, are aged */
	if (!c->listen_pass && ((m->idiag_state == OBS_TCP_CLOSE_WAIT && m->idiag_inode) ||
				m->idiag_state == OBS_TCP_FIN_WAIT2)) {
		c->aged_last = obs_sock_age_track(
			c->age, (uint64_t)m->id.idiag_cookie[1] << 32 | m->id.idiag_cookie[0],
			m->idiag_state == OBS_TCP_CLOSE_WAIT,
			conn_hash(m->idiag_family, m->id.idiag_dst, dport, m->id.idiag_src, sport));
		if (!c->aged_last)
			cs->close_wait_untracked++;
	} else if (!c->listen_pass && m->idiag_state == OBS_TCP_CLOSE_WAIT) {
		if (!obs_sock_age_unaccepted(c->age, conn_hash(m->idiag_family, m->id.idiag_src,
							       sport, m->id.idiag_dst, dport)))
			cs->unaccepted_untracked++;
	}
	if (!c->listen_pass)
		port_count(c, cs, sport, dport, m->idiag_state);
	if (c->listen_pass || !cs->port_lo || sport < cs->port_lo || sport > cs->port_hi ||
	    bit(c->listen_bits, sport))
		return MNL_CB_OK;
	/* a client-side socket holding an ephemeral port */
	memset(&k, 0, sizeof(k));
	k.family = m->idiag_family;
	memcpy(k.saddr, m->id.idiag_src, m->idiag_family == AF_INET ? 4 : 16);
	memcpy(k.daddr, m->id.idiag_dst, m->idiag_family == AF_INET ? 4 : 16);
	k.dport = dport;
	group_add(c, &k, m->idiag_state);
	return MNL_CB_OK;
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

static int dump_proto(struct obs_census_ctx *c, uint8_t family, uint8_t proto,
			 uint32_t states, mnl_cb_t cb)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(c->buf);
	struct inet_diag_req_v2 *req;
	unsigned int seq = ++c->seq;
	ssize_t n;
	int ret;

	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = family;
	req->sdiag_protocol = proto;
	req->idiag_states = states;
	if (mnl_socket_sendto(c->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(c->nl, c->buf, RECV_BUF);
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(c->buf, (size_t)n, seq, c->portid, cb, c);
		if (ret == MNL_CB_STOP)
			return 0;
		if (ret < 0)
			return -errno;
	}
}

static int dump(struct obs_census_ctx *c, uint8_t family, uint32_t states)
{
	return dump_proto(c, family, IPPROTO_TCP, states, on_msg);
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

/* Target ports nothing listens on: no TCP listener, and (a second look) no UDP socket. */
static int no_listener(struct obs_census_ctx *c, struct obs_census *cs)
{
	size_t i;
	int err;

	for (i = 0; i < c->nports; i++)
		if (!bit(c->listen_bits, c->ports[i]))
			break;
	if (i == c->nports)
		return 0;
	err = dump_proto(c, AF_INET, IPPROTO_UDP, ~0u, on_udp);
	if (!err)
		err = dump_proto(c, AF_INET6, IPPROTO_UDP, ~0u, on_udp);
	if (err)
		return err;
	for (i = 0; i < c->nports; i++)
		if (!bit(c->listen_bits, c->ports[i]))
			cs->no_listener[cs->nno_listener++] = c->ports[i];
	return 0;
}

/* The listening sockets only: the listen pass of a census. */
static int census_listen_pass(struct obs_census_ctx *c, struct obs_census *cs)
{
	int err;

	c->cur = cs;
	c->listen_pass = true;
	err = dump(c, AF_INET, 1u << OBS_TCP_LISTEN);
	if (!err)
		err = dump(c, AF_INET6, 1u << OBS_TCP_LISTEN);
	c->listen_pass = false;
	if (!err)
		err = no_listener(c, cs);
	return err;
}

int obs_census_listeners(struct obs_census_ctx *c, struct obs_census *cs)
{
	memset(cs, 0, sizeof(*cs));
	memset(c->listen_bits, 0, sizeof(c->listen_bits));
	return census_listen_pass(c, cs);
}

int obs_census_take(struct obs_census_ctx *c, struct obs_census *cs)
{
	const uint32_t all = ~0u & ~(1u << OBS_TCP_LISTEN);
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
	err = census_listen_pass(c, cs);
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
		err = dump(c, AF_INET, all);
	if (!err && !c->it)
		err = dump(c, AF_INET6, all);
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
	static char buf[16384];
	char *names = NULL, *vals = NULL, *line, *save = NULL, *n, *v, *sn, *sv;
	ssize_t len;

	memset(out, 0, sizeof(*out));
	if (c->fd[CENSUS_NETSTAT] < 0)
		return -ENOENT;
	len = pread(c->fd[CENSUS_NETSTAT], buf, sizeof(buf) - 1, 0);
	if (len <= 0)
		return len ? -errno : -EIO;
	buf[len] = '\0';
	/* pairs of lines: "TcpExt: Name Name ..." then "TcpExt: value value ..." */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "TcpExt:", 7))
			continue;
		if (!names) {
			names = line + 7;
			continue;
		}
		vals = line + 7;
		break;
	}
	if (!names || !vals)
		return -ENOENT;
	for (n = strtok_r(names, " ", &sn), v = strtok_r(vals, " ", &sv); n && v;
	     n = strtok_r(NULL, " ", &sn), v = strtok_r(NULL, " ", &sv)) {
		uint64_t x = strtoull(v, NULL, 10);

		if (!strcmp(n, "ListenOverflows"))
			out->listen_overflows = x;
		else if (!strcmp(n, "ListenDrops"))
			out->listen_drops = x;
		else if (!strcmp(n, "TCPReqQFullDrop"))
			out->reqq_full_drop = x;
		else if (!strcmp(n, "TCPTimeWaitOverflow"))
			out->tw_overflow = x;
	}
	out->ok = 1;
	return 0;
}

const char *obs_port_group_text(const struct obs_port_group *g, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN + 2], d[INET6_ADDRSTRLEN + 8];
	int fam = g->family == AF_INET6 ? AF_INET6 : AF_INET;

	snprintf(buf, len, "%s -> %s", ll_format_ip(fam, g->saddr, -1, s, sizeof(s)),
		 ll_format_ip(fam, g->daddr, g->dport, d, sizeof(d)));
	return buf;
}
