/* SPDX-License-Identifier: MIT */
/*
 * BPF iterators over another network namespace's sockets. An iterator walks the namespace of the
 * thread that creates it: for a target in another namespace, a thread enters that namespace at
 * start (while privileged) and stays there, creating each pass's iterator from the links it was
 * given. Without a namespace (netns_fd < 0) the iterators are created in the caller's.
 * Users: the census' TCP walk (sources/census_tcp_iter.c), the lean hooks' passes
 * (sources/reqtime_stats.c).
 */
#ifndef LOADLENS_OBSERVER_KERNEL_ITER_NS_H
#define LOADLENS_OBSERVER_KERNEL_ITER_NS_H

#include <stddef.h>

#define OBS_ITER_NS_LINKS 4

struct obs_iter_ns;

/* nlinks link fds (at most OBS_ITER_NS_LINKS, kept open by the caller while this lives); netns_fd
 * >= 0: enter it (CAP_SYS_ADMIN now). NULL and errno set if it cannot. */
struct obs_iter_ns *obs_iter_ns_new(int netns_fd, const int *link_fds, size_t nlinks);
void obs_iter_ns_free(struct obs_iter_ns *t);
/* A new iterator of link i (its fd, to read and close), or a negative errno. */
int obs_iter_ns_create(struct obs_iter_ns *t, size_t i);

#endif /* LOADLENS_OBSERVER_KERNEL_ITER_NS_H */
