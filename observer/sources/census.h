/* SPDX-License-Identifier: MIT */
/*
 * The ground truth: a census of the TCP sockets of the target's network namespace, TIME_WAIT
 * included, counted in the kernel by a TCP iterator (census_iter.h) or, where that does not load,
 * from sock_diag's one message per socket (netlink, libmnl), with ephemeral ports in use grouped by
 * (source address, destination address:port) against net.ipv4.ip_local_port_range of that
 * namespace, and the namespace's /proc/net/netstat listen counters.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_CENSUS_H
#define LOADLENS_OBSERVER_SOURCES_CENSUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/observer.h"
#include "sources/sock_age.h"

#define OBS_CENSUS_TOP 4	 /* port groups kept, most used first */
#define OBS_CENSUS_LISTENERS 64 /* listening sockets on target ports remembered (inodes) */

#define OBS_TCP_ESTABLISHED 1
#define OBS_TCP_FIN_WAIT2 5
#define OBS_TCP_TIME_WAIT 6
#define OBS_TCP_CLOSE_WAIT 8
#define OBS_TCP_LISTEN 10

/* "ESTABLISHED", ... by TCP state (NULL: no state) */
extern const char *const obs_tcp_state_names[OBS_TCP_STATES];

struct obs_port_group {
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t saddr[16];
	uint8_t daddr[16];
	uint16_t dport;
	uint32_t in_use;    /* ephemeral ports held towards daddr:dport */
	uint32_t time_wait; /* of which in TIME_WAIT */
	uint32_t fin_wait2; /* of which in FIN_WAIT2 (orphans in the FIN_WAIT2 substate too) */
};

/* Sockets of one target port: the local port of a listener, or a client's destination port. */
struct obs_census_port {
	uint16_t port;
	bool server_side; /* something listens on it here: these are the server's sockets */
	uint32_t close_wait, fin_wait2, time_wait;
	uint32_t close_wait_old; /* accepted sockets in CLOSE_WAIT for OBS_SOCK_AGE_OLD_S or more */
	uint32_t fin_wait2_old;	 /* sockets in FIN_WAIT2 (orphans too) that long */
};


struct obs_census {
	uint64_t state[OBS_TCP_STATES]; /* target sockets per TCP state (6 = TIME_WAIT) */
	uint64_t sockets;		/* target sockets in all */
	uint32_t port_lo, port_hi;	/* ip_local_port_range; 0 if unreadable */
	struct obs_port_group top[OBS_CENSUS_TOP];
	size_t ntop;
	size_t ngroups;			/* distinct (src, dst:port) groups */
	bool groups_capped;		/* the group table filled up: later groups not counted */
	struct obs_census_port ports[OBS_MAX_PORTS]; /* per --port (none with every port) */
	size_t nports;
	uint64_t close_wait_old;	/* all ports: CLOSE_WAIT for OBS_SOCK_AGE_OLD_S or more */
	uint64_t fin_wait2_old;		/* all ports: FIN_WAIT2 that long */
	uint64_t fin_wait2_peer_queued;	/* FIN_WAIT2 whose peer is a child here never accepted */
	uint64_t aging_young;		/* CLOSE_WAIT/FIN_WAIT2 not old yet: a census soon tells */
	uint64_t close_wait_untracked;	/* past OBS_SOCK_AGE_TRACK: not aged */
	uint64_t unaccepted_untracked;	/* CLOSE_WAIT children past the census' table of them */
	uint64_t listeners_untracked;	/* target listeners past OBS_CENSUS_LISTENERS (owners) */
	uint16_t no_listener[OBS_MAX_PORTS]; /* --ports with no TCP listener and no UDP socket */
	size_t nno_listener;
	int tw_reuse, fin_timeout_s;	/* sysctls of the namespace; -1 unread */
	int64_t max_tw_buckets;
	uint64_t listen_inodes[OBS_CENSUS_LISTENERS]; /* listeners on target ports */
	size_t nlisten;
	uint64_t listen_queued;	  /* children in their accept queues, all of them */
	uint32_t listen_qlen_max; /* the fullest accept queue */
	uint32_t listen_backlog;  /* its backlog */
	uint16_t listen_port;	  /* its port */
	double took_ms; /* time the census took */
};

/* TcpExt counters of the namespace (cumulative, as the kernel keeps them). */
struct obs_netstat {
	uint64_t listen_overflows; /* accept queue full: the handshake's last ACK dropped */
	uint64_t listen_drops;	   /* every drop of a SYN or ACK on a listener */
	uint64_t reqq_full_drop;   /* SYN queue full, no syncookies */
	uint64_t tw_overflow;	   /* TIME_WAIT table full (tcp_max_tw_buckets) */
	int ok;			   /* 1 if read */
};

struct obs_census_ctx;

/*
 * Open the netlink socket and the sysctl/netstat files inside the namespace netns_fd (-1: our
 * own), so that later reads need no privilege. Needs CAP_SYS_ADMIN for another namespace.
 */
struct obs_census_ctx *obs_census_new(const char *prog, int netns_fd, const uint16_t *ports,
				      size_t nports);
void obs_census_free(struct obs_census_ctx *c);
int obs_census_take(struct obs_census_ctx *c, struct obs_census *out);
/* The listen pass alone (listeners, their accept queues): cheap, the kernel walks only the
 * listening hash. Returns 0 or a negative errno. */
int obs_census_listeners(struct obs_census_ctx *c, struct obs_census *out);
int obs_census_netstat(struct obs_census_ctx *c, struct obs_netstat *out);
/* How the census walks: "bpf_iter" (a TCP iterator counting in the kernel) or "sock_diag". */
const char *obs_census_mechanism(const struct obs_census_ctx *c);
/* Walk with the iterator (on, where it loaded) or sock_diag: both count the same sockets the
 * same way (bench/census_time.c --compare). -ENOTSUP: no iterator here. */
int obs_census_use_iter(struct obs_census_ctx *c, bool on);
/* Range size, hi - lo + 1, or 0. */
uint32_t obs_census_range(const struct obs_census *cs);
/* "127.0.0.1 -> 127.0.0.1:8080" */
const char *obs_port_group_text(const struct obs_port_group *g, char *buf, size_t len);

#endif /* LOADLENS_OBSERVER_SOURCES_CENSUS_H */
