/* SPDX-License-Identifier: MIT */
/*
 * The census' walk on a TCP iterator (bpf/census.bpf.c): the kernel counts the target sockets
 * per state and per target port and the ephemeral port groups, and hands out one record per
 * CLOSE_WAIT/FIN_WAIT2 socket; no netlink message per socket. census.c owns it and falls back
 * to sock_diag where it does not load (no iter/tcp, no BTF).
 *
 * An iterator walks the namespace of the thread that creates it: for a target in another
 * namespace, each pass's iterator is made there (kernel/iter_ns.h).
 */
#ifndef LOADLENS_OBSERVER_SOURCES_CENSUS_TCP_ITER_H
#define LOADLENS_OBSERVER_SOURCES_CENSUS_TCP_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/census_iter.h"

struct obs_census_iter;

/* What one pass counted in the kernel. */
struct obs_census_iter_counts {
	uint64_t state[CEN_STATES];
	uint64_t sockets;
	uint32_t close_wait[CEN_PORTS], fin_wait2[CEN_PORTS], time_wait[CEN_PORTS];
	bool capped; /* a port group did not fit */
};

/* Where a pass's sockets to age and port groups go. */
struct obs_census_iter_sink {
	void (*rec)(void *arg, const struct cen_rec *r);
	void (*group)(void *arg, const struct cen_group_key *k, const struct cen_group_val *v);
	void *arg;
};

/* Load and attach the iterator; netns_fd >= 0: walk that namespace (needs CAP_SYS_ADMIN now).
 * NULL with errno set where it cannot (ENOTSUP: no iter/tcp here). */
struct obs_census_iter *obs_census_iter_new(int netns_fd, const uint16_t *ports, size_t nports);
void obs_census_iter_free(struct obs_census_iter *it);
/* One walk: listen_bits (65536 bits) and the port range [lo, hi] (0: unread) say which sockets
 * hold ephemeral ports. Returns 0 or a negative errno. */
int obs_census_iter_walk(struct obs_census_iter *it, const uint64_t *listen_bits, uint32_t lo,
			 uint32_t hi, struct obs_census_iter_counts *out,
			 const struct obs_census_iter_sink *sink);

#endif /* LOADLENS_OBSERVER_SOURCES_CENSUS_TCP_ITER_H */
