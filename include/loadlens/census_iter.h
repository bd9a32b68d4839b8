/* SPDX-License-Identifier: MIT */
/* What bpf/census.bpf.c (the socket census on a TCP iterator) and observer/sources/census.c
 * share: the limits and the one record written per socket to age. */
#ifndef LOADLENS_CENSUS_ITER_H
#define LOADLENS_CENSUS_ITER_H

#include <linux/types.h>

#define CEN_STATES 16	   /* TCP states counted (OBS_TCP_STATES) */
#define CEN_PORTS 16	   /* target ports (OBS_MAX_PORTS) */
#define CEN_PORT_WORDS 1024 /* 65536 ports, one bit each */
#define CEN_GROUPS 6144	   /* distinct (src, dst:port) groups: the sock_diag census' 3/4 of 8192 */

/* A port group's key and counts (struct obs_port_group without the key's padding). */
struct cen_group_key {
	__u8 saddr[16];
	__u8 daddr[16];
	__u16 dport;
	__u8 family;
	__u8 pad;
};
_Static_assert(sizeof(struct cen_group_key) == 36, "struct cen_group_key is shared with BPF");

struct cen_group_val {
	__u32 in_use;
	__u32 time_wait;
	__u32 fin_wait2;
};

/* A socket to age: CLOSE_WAIT (accepted, or a child never accepted) or FIN_WAIT2. */
struct cen_rec {
	__u64 cookie;	/* the socket's cookie (the one sock_diag reports) */
	__u8 saddr[16]; /* local address (IPv4: the first 4 bytes) */
	__u8 daddr[16];
	__u16 sport, dport; /* host order */
	__u8 family;
	__u8 state;    /* CLOSE_WAIT or FIN_WAIT2 (a TIME_WAIT socket's substate too) */
	__u8 accepted; /* a CLOSE_WAIT socket the application holds (sock_diag: an inode) */
	__u8 pad;
};
_Static_assert(sizeof(struct cen_rec) == 48, "struct cen_rec is shared with BPF");

#endif /* LOADLENS_CENSUS_ITER_H */
