/* SPDX-License-Identifier: MIT */
/*
 * What a census counts (sources/census.h takes it): the target sockets per TCP state and per
 * target port, the ephemeral port groups, the listeners and the namespace's sysctls. Plain data,
 * shared by the census' API and its walks.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_CENSUS_TYPES_H
#define LOADLENS_OBSERVER_SOURCES_CENSUS_TYPES_H

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
extern const char *const obs_census_tcp_state_names[OBS_TCP_STATES];

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

#endif /* LOADLENS_OBSERVER_SOURCES_CENSUS_TYPES_H */
