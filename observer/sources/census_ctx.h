/* SPDX-License-Identifier: MIT */
/*
 * The census context, shared by the census' two files only: the context, the walk in the kernel
 * and the result (census.c), and sock_diag's walk (census_diag.c). The rest of the observer holds
 * a struct obs_census_ctx through sources/census.h and never looks inside.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_CENSUS_CTX_H
#define LOADLENS_OBSERVER_SOURCES_CENSUS_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include "sources/census_types.h"
#include "sources/census_tcp_iter.h"

#define GROUP_SLOTS 8192 /* distinct (src, dst:port) groups counted; more land in "other" */
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

static inline bool bit(const uint64_t *bits, uint16_t p)
{
	return bits[p >> 6] & (1ULL << (p & 63));
}

static inline uint32_t hash(const struct obs_port_group *k)
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

/* A connection as its local end sees it: (local address:port, remote address:port). */
static inline uint64_t conn_hash(uint8_t family, const uint32_t *laddr, uint16_t lport,
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
static inline int port_index(const struct obs_census_ctx *c, uint16_t sport, uint16_t dport)
{
	uint16_t port = bit(c->port_bits, sport) ? sport : dport;
	size_t i;

	for (i = 0; i < c->nports; i++)
		if (c->ports[i] == port)
			return (int)i;
	return -1;
}


/* sock_diag's walk (census_diag.c) */
/* The listen pass of a census: the listeners, their accept queues, the target ports nothing
 * listens on. Returns 0 or a negative errno. */
int obs__census_diag_listen_pass(struct obs_census_ctx *c, struct obs_census *cs);
/* Every other socket of both families, counted into c->cur. Returns 0 or a negative errno. */
int obs__census_diag_walk(struct obs_census_ctx *c);

#endif /* LOADLENS_OBSERVER_SOURCES_CENSUS_CTX_H */
