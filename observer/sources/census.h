/* SPDX-License-Identifier: MIT */
/*
 * The ground truth: a census of the TCP sockets of the target's network namespace, TIME_WAIT
 * included, counted in the kernel by a TCP iterator (census_tcp_iter.h) or, where that does not
 * load, from sock_diag's one message per socket (netlink, libmnl: census_diag.c), with ephemeral
 * ports in use grouped by (source address, destination address:port) against
 * net.ipv4.ip_local_port_range of that namespace, and the namespace's /proc/net/netstat listen
 * counters (parsed by proc_netstat.c). What it counts: census_types.h.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_CENSUS_H
#define LOADLENS_OBSERVER_SOURCES_CENSUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/sockets.h"
#include "sources/census_types.h"
#include "sources/proc_netstat.h"

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
/* The target listeners' accept queues into q from a listen pass into lp (c NULL, or the pass
 * failed: q->ok false), for the accepted count (kernel/sockets.h, obs_sockets_accepted). */
void obs_census_listen_queue(struct obs_census_ctx *c, struct obs_census *lp,
			     struct obs_listen_queue *q);
int obs_census_netstat(struct obs_census_ctx *c, struct obs_netstat *out);
/* How the census walks: "bpf_iter" (a TCP iterator counting in the kernel) or "sock_diag". */
const char *obs_census_mechanism(const struct obs_census_ctx *c);
/* Walk with the iterator (on, where it loaded) or sock_diag: both count the same sockets the
 * same way (bench/census_time.c --compare). -ENOTSUP: no iterator here. */
int obs_census_use_iter(struct obs_census_ctx *c, bool on);
/* Range size, hi - lo + 1, or 0. */
uint32_t obs_census_range(const struct obs_census *cs);
/* "127.0.0.1 -> 127.0.0.1:8080" */
const char *obs_census_port_group_text(const struct obs_port_group *g, char *buf, size_t len);

#endif /* LOADLENS_OBSERVER_SOURCES_CENSUS_H */
