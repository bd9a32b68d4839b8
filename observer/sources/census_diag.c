// SPDX-License-Identifier: MIT
/* The census' walk through sock_diag (libmnl): one netlink message per socket, counted into the
 * census being taken; where the TCP iterator does not load, and always for the listen pass. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include "sources/census_ctx.h"

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
int obs__census_diag_listen_pass(struct obs_census_ctx *c, struct obs_census *cs)
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

int obs__census_diag_walk(struct obs_census_ctx *c)
{
	const uint32_t all = ~0u & ~(1u << OBS_TCP_LISTEN);
	int err;

	err = dump(c, AF_INET, all);
	if (!err)
		err = dump(c, AF_INET6, all);
	return err;
}
