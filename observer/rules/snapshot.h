/* SPDX-License-Identifier: MIT */
/*
 * What the findings rules see: one snapshot per interval, plain data filled by the features
 * (observer/features/feature.h: connections, failures, sockstat, processes, netstat, requests),
 * and the run's history of them. No kernel, no files: the rules
 * (observer/rules/rules_*.c) are pure functions of these, and tests/unit/test_rules_*.c feed them
 * synthetic snapshots.
 */
#ifndef LOADLENS_OBSERVER_RULES_SNAPSHOT_H
#define LOADLENS_OBSERVER_RULES_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OBS_SNAP_TCP_STATES 16
#define OBS_SNAP_GROUPS 4    /* port groups kept, most used first */
#define OBS_SNAP_PORTS 16    /* per-port socket counts (target ports) */
#define OBS_SNAP_PROCS 256   /* processes: the most --max-procs can watch */
#define OBS_SNAP_SLOTS 34    /* request-timing slots (16 ports x tcp/udp, or the two of all) */
#define OBS_SNAP_NOTES 16    /* pids / ports named by the scoping notes */
#define OBS_SNAP_EVENTS 8    /* target exits and restarts, this interval */
#define OBS_SNAP_HIST 16     /* snapshots the rules can look back on */
#define OBS_SNAP_PORTFAIL 4  /* processes named as those whose connect() found no port */
#define OBS_SNAP_HOLDERS 4   /* processes named as those holding a pressed group's connections */
#define OBS_SNAP_STATUS_PORTS 17 /* ports with response statuses (the TCP slots: 16 ports, or all) */
#define OBS_SNAP_CODES 16    /* :status codes kept a port and interval, the most responses first */
#define OBS_SNAP_GRPC 18     /* gRPC statuses: 0 OK .. 16 UNAUTHENTICATED, 17 a larger code
			      * (LL_GRPC_OTHER, include/loadlens/grpc_status.h) */

/* TCP states, as include/net/tcp_states.h numbers them. */
enum {
	OBS_SNAP_ESTABLISHED = 1,
	OBS_SNAP_FIN_WAIT2 = 5,
	OBS_SNAP_TIME_WAIT = 6,
	OBS_SNAP_CLOSE_WAIT = 8,
};

/* Failure classes, as include/loadlens/observer.h's enum obs_fail_class. */
enum { OBS_SNAP_EMFILE, OBS_SNAP_ENFILE, OBS_SNAP_EADDRNOTAVAIL, OBS_SNAP_EADDRINUSE,
       OBS_SNAP_FAILS };

/* A connecting side's (source address -> destination address:port) group of ephemeral ports. */
struct obs_snap_group {
	char src[48];	    /* "127.0.0.1" */
	char dst[48];	    /* "127.0.0.1" ("[::1]" for IPv6) */
	uint16_t dport;
	bool loopback;	    /* both ends on loopback: tcp_tw_reuse 2 applies */
	uint32_t in_use;    /* ports held towards the destination, every state */
	uint32_t time_wait; /* of which in TIME_WAIT */
	uint32_t fin_wait2; /* of which in FIN_WAIT2 (orphans included) */
};

/* Sockets of one target port (local port of a listener, or the destination of a client). */
struct obs_snap_port {
	uint16_t port;
	uint32_t close_wait;
	uint32_t close_wait_old; /* of which accepted and in CLOSE_WAIT for 0.4 s or more: not a
				  * close under way, a socket the application forgot */
	uint32_t fin_wait2;
	uint32_t fin_wait2_old; /* of which in FIN_WAIT2 for 0.4 s or more: waiting for a peer that
				 * does not close */
	uint32_t time_wait;
	bool server_side; /* the port is a local listener's: these are the server's sockets */
};

struct obs_snap_proc {
	uint32_t pid;
	char comm[16];
	bool watched;	/* its fds are read; false: it failed syscalls past the --max-procs cap */
	bool exited;
	int64_t open;	/* open fds; -1 unknown */
	int64_t soft;	/* RLIMIT_NOFILE; -1 unlimited or unknown */
	int64_t hard;
	uint64_t emfile; /* EMFILE failures since start */
	const char *last_sys; /* the call that failed last, or NULL */
};

/* One request-timing slot (port, protocol), this interval. */
struct obs_snap_slot {
	uint16_t port; /* 0: every port */
	bool udp;
	uint64_t requests;
	double queue_p50_ns; /* socket-queue wait; < 0: none timed */
	double queue_p90_ns; /* the same at p90: a queue building up late in the interval */
	double service_p50_ns;
	double service_p90_ns; /* the same at p90: service growing late in the interval */
	/* wiring points (bpf side): filled where the kernel counts them */
	uint64_t pipelined_reads; /* reads that took the bytes of 2+ arrivals (cumulative) */
	uint64_t reads;		  /* requests (reads) since start, for the share */
	uint64_t udp_multi_reader_sockets; /* UDP sockets read by two or more threads */
	uint64_t udp_reader_switches;	   /* reads by another thread than the previous reader */
	uint64_t udp_unpaired; /* datagrams read while udp_readers other threads served one */
	unsigned int udp_readers; /* threads of a UDP socket the kernel times at once */
	/* payload sampling (bpf/payload.bpf.h), TCP, cumulative: reads sampled at the start of a
	 * request, those holding 2+ requests, requests counted in them, the most in one read, and
	 * reads longer than the bytes looked at (their count extrapolated by length) */
	uint64_t pl_samples, pl_multi, pl_requests, pl_max, pl_extrapolated;
	unsigned int pl_scan; /* bytes of a sampled read looked at */
};

/*
 * The response statuses of one port this interval, read from the server's HTTP/2 header blocks
 * (observer/sources/h2_status.h: HTTP/2 :status and gRPC grpc-status only; HTTP/1 responses are
 * not read). Counts are the interval's, from the cumulative counts.
 */
struct obs_snap_status {
	uint16_t port; /* 0: every port */
	/* header blocks by :status class: [1]..[5] 1xx..5xx; [0] a :status outside 100-599 or not
	 * a number */
	uint64_t cls[6];
	/* by code, the most first; codes past OBS_SNAP_CODES are in cls only (more: how many) */
	struct obs_snap_code {
		uint16_t code;
		uint64_t n;
	} code[OBS_SNAP_CODES];
	size_t ncodes;
	uint64_t more;
	uint64_t grpc[OBS_SNAP_GRPC]; /* gRPC calls by grpc-status */
	uint64_t grpc_none;	      /* gRPC responses ended with no grpc-status */
};

/*
 * Who holds the connections of a port group (of), from the owners of their fds
 * (sources/holders.h): resolved under port pressure only, at most once a second, and carried
 * into later snapshots (t: when). The most connections first; the processes past the list
 * summed; the process listening on the destination port, where one is here (server_pid 0: none,
 * a remote server).
 */
struct obs_snap_holders {
	bool on;		 /* resolved at least once, for the group `of` */
	struct obs_snap_group of; /* src, dst, dport; in_use: the census' count at the time */
	double t;
	struct obs_snap_holder {
		uint32_t pid;
		char comm[16];
		uint64_t conns;	       /* its connections of the group (an fd each) */
		uint64_t unread;       /* of which with bytes in the receive queue it has not read */
		uint64_t never_read;   /* of which bytes came on and it read none of them */
		uint64_t unread_bytes; /* bytes waiting in those receive queues */
		uint64_t idle;	       /* of which no byte was sent or received on */
	} holder[OBS_SNAP_HOLDERS];
	size_t n;
	uint64_t more, more_conns; /* processes past the list; their connections */
	uint64_t lost; /* connections of processes the kernel's table had no room for */
	uint32_t server_pid;
	char server_comm[16];
};

struct obs_snap {
	double t;  /* seconds since start, end of the interval */
	double dt; /* its length */
	bool final; /* the last snapshot of the run */

	/* sysctls of the watched namespace (-1: unread) */
	int tw_reuse;	     /* net.ipv4.tcp_tw_reuse: 0, 1, 2 (loopback only) */
	int fin_timeout_s;   /* net.ipv4.tcp_fin_timeout */
	int64_t max_tw_buckets; /* net.ipv4.tcp_max_tw_buckets */

	/* connections (this interval) */
	uint64_t accepted;
	uint64_t tw_entries;  /* sockets of this side that entered TIME_WAIT */
	uint64_t fw2_entries; /* closed into FIN_WAIT2 orphans (wiring point, bpf side) */

	/* connections held (ESTABLISHED + CLOSE_WAIT) from the live counts, exact, when no census
	 * was taken this interval */
	bool held_live;
	uint64_t held;
	/* census (when taken this interval) */
	bool census;
	uint64_t state[OBS_SNAP_TCP_STATES];
	uint64_t close_wait_old; /* all ports: accepted sockets in CLOSE_WAIT for 0.4 s or more */
	uint64_t fin_wait2_old;	 /* all ports: FIN_WAIT2 for 0.4 s or more */
	uint32_t range;	      /* ephemeral ports per group: ip_local_port_range size; 0 unknown */
	struct obs_snap_group group[OBS_SNAP_GROUPS];
	size_t ngroups;
	size_t groups_total;  /* distinct groups */
	bool groups_capped;   /* the census' group table was full: more groups were not counted */
	struct obs_snap_port port[OBS_SNAP_PORTS];
	size_t nports;
	uint64_t tw_overflow; /* TCPTimeWaitOverflow this interval */

	/* listen queues */
	uint64_t listen_overflows; /* ListenOverflows (or the drop reason) this interval: every
				    * listener of the namespace (host, for the drop reason) */
	uint64_t listen_target_full; /* signs it was a target's: accepts that found its queue
				      * full, SYN-ACK retransmits on it, a full queue at a census */
	uint16_t listen_port;	   /* the fullest target listener's port, 0 unknown */
	uint32_t listen_qlen_max;  /* the fullest queue seen (a count that never falls, or a census') */
	uint32_t listen_backlog;
	/* the children in the targets' accept queues now (this tick's listen pass), which no process
	 * holds yet; listen_queued_ok false: not read */
	uint64_t listen_queued;
	bool listen_queued_ok;

	/* failures: this interval, and since start, with the call that failed most */
	uint64_t fails[OBS_SNAP_FAILS];
	uint64_t fails_total[OBS_SNAP_FAILS];
	const char *fails_sys[OBS_SNAP_FAILS];

	/* the processes whose connect() found no free local port (EADDRNOTAVAIL), since start, the
	 * most failed first; portfail_more: other processes past the list */
	struct obs_snap_portfail {
		uint32_t pid;
		char comm[16];
		uint64_t total;
	} portfail[OBS_SNAP_PORTFAIL];
	size_t nportfail;
	size_t portfail_more;

	/* who holds the connections of the most used port group */
	struct obs_snap_holders holders;

	/* system file handles (have_files: read this interval; else the last read's) */
	bool have_files;
	uint64_t file_nr, file_max;

	/* processes */
	struct obs_snap_proc proc[OBS_SNAP_PROCS];
	size_t nprocs;
	unsigned int max_procs;	  /* the --max-procs cap */
	uint64_t procs_unwatched; /* processes not watched for the cap, since start */
	uint32_t first_unwatched_pid;
	char first_unwatched_comm[16];
	/* --pid without --children: the targets' children (processes that may serve what the
	 * targets accept), pid-scoped at all (pid_targets) */
	bool pid_targets;
	struct obs_snap_kid {
		uint32_t pid;
		char comm[16];
	} kid[OBS_SNAP_NOTES];
	size_t nkids;
	uint64_t targets_full; /* --children: new children the kernel's "targets" map had no room
				* for, since start (wiring point: obs-bpf's OBS_FAILURES_CTR_TARGETS_FULL) */
	unsigned int targets_max; /* its size, OBS_MAX_TARGETS */

	/* --children, this interval: the targets' children that ended with status 0 (a child
	 * killed or exiting non-zero is an event below), the target sockets that left ESTABLISHED
	 * (connections closed: each end on the target ports counts, so a loopback client's too),
	 * and the target that forked the most children (pid 0: none forked; then the first
	 * --pid target, forks 0) */
	bool children_on;
	uint64_t child_exits;
	uint64_t closed;
	struct obs_snap_forker {
		uint32_t pid;
		char comm[16];
		uint64_t forks;
	} forker;

	/* request timing (this interval) */
	bool requests_on;
	struct obs_snap_slot slot[OBS_SNAP_SLOTS];
	size_t nslots;
	uint64_t foreign_sockets; /* --pid/--cgroup, since start: sockets a non-target read first */
	/* who read them first, server-side sockets only, the most sockets first (bpf "foreign") */
	struct obs_snap_reader {
		uint32_t pid;
		char comm[16];
		uint16_t port;
		bool udp;
		uint64_t sockets;
	} reader[OBS_SNAP_NOTES];
	size_t nreaders;
	/* the targets' threads on and waiting for a CPU this interval, from the scheduler's
	 * accounting (sources/cpuwait.h), --runq or not */
	bool cpu_on;		/* read for at least one target */
	double cpu_running;	/* their CPU time / the interval: CPUs busy with them */
	double cpu_waiting;	/* their run-queue wait / the interval: threads waiting, on average */
	unsigned int cpu_cpus;	/* the CPUs they may run on (the widest affinity among them) */
	double cpu_lost;	/* CPUs' worth no thread could run on them (interrupts, softirqs,
				 * steal): the targets' CPUs, from /proc/stat */
	unsigned int cpu_procs; /* target processes read */
	double cpu_busy;	/* CPUs' worth not idle on their CPUs (/proc/stat), any work's;
				 * < 0: unread */
	uint64_t cpu_unread;	/* target processes alive and not read: past --max-procs */
	bool runq_on;	     /* --runq */
	uint64_t runq_count; /* wake-ups of serving threads timed */
	double runq_p50_ns, runq_p99_ns;
	/* response statuses (statuses_on: read this run), the ports with any this interval */
	bool statuses_on;
	struct obs_snap_status status[OBS_SNAP_STATUS_PORTS];
	size_t nstatus;

	/* scoping: what makes a count mean something else */
	uint32_t netns_outside[OBS_SNAP_NOTES]; /* watched pids in another netns than the watched */
	size_t nnetns_outside;
	uint16_t no_listener[OBS_SNAP_NOTES]; /* --port with no TCP listener or UDP socket */
	size_t nno_listener;
	char netns_name[96]; /* the watched namespace, for the text: "net:[4026531840]" */

	/* target lifecycle this interval: "target pid 42 (nginx) exited at 3.0s (exit code 0)" */
	struct obs_snap_event {
		uint32_t pid;
		char text[160];
	} event[OBS_SNAP_EVENTS];
	size_t nevents;
};

/* The run so far: the latest OBS_SNAP_HIST snapshots, oldest first, in a ring. */
struct obs_snap_hist {
	struct obs_snap s[OBS_SNAP_HIST];
	unsigned int n; /* snapshots pushed since start */
};

/* The snapshot `back` intervals ago (0: the latest), or NULL. */
const struct obs_snap *obs_snap_at(const struct obs_snap_hist *h, unsigned int back);
/* The slot to fill next (cleared); call obs_snap_push() once it is filled. */
struct obs_snap *obs_snap_next(struct obs_snap_hist *h);
void obs_snap_push(struct obs_snap_hist *h);
/* Snapshots held. */
unsigned int obs_snap_count(const struct obs_snap_hist *h);

#endif /* LOADLENS_OBSERVER_RULES_SNAPSHOT_H */
