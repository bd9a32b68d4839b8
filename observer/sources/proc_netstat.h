/* SPDX-License-Identifier: MIT */
/*
 * The TcpExt counters of /proc/net/netstat (ListenOverflows, ListenDrops, TCPReqQFullDrop,
 * TCPTimeWaitOverflow), cumulative as the kernel keeps them. The census context opens the file
 * inside the watched namespace (sources/census.c); the netstat feature (features/netstat.c)
 * turns them into deltas per interval.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_PROC_NETSTAT_H
#define LOADLENS_OBSERVER_SOURCES_PROC_NETSTAT_H

#include <stdint.h>

/* TcpExt counters of the namespace (cumulative, as the kernel keeps them). */
struct obs_netstat {
	uint64_t listen_overflows; /* accept queue full: the handshake's last ACK dropped */
	uint64_t listen_drops;	   /* every drop of a SYN or ACK on a listener */
	uint64_t reqq_full_drop;   /* SYN queue full, no syncookies */
	uint64_t tw_overflow;	   /* TIME_WAIT table full (tcp_max_tw_buckets) */
	int ok;			   /* 1 if read */
};

/* The counters from the text of /proc/net/netstat (cut in place: its pairs of "TcpExt:" lines,
 * names then values). 0, or -ENOENT where it has no TcpExt pair. */
int obs_proc_netstat_parse(char *text, struct obs_netstat *out);
/* The counters from fd, an open /proc/net/netstat (read from its start; -1: none). 0 or a
 * negative errno; out is cleared either way. */
int obs_proc_netstat_read(int fd, struct obs_netstat *out);

#endif /* LOADLENS_OBSERVER_SOURCES_PROC_NETSTAT_H */
