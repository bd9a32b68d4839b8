/* SPDX-License-Identifier: MIT */
/*
 * Where a finding is decided. Each rule is a pure function from the run's snapshots so far
 * (observer/rules/snapshot.h) to zero or more findings (finding.h) that hold in the latest
 * interval. No kernel, no files, no clock: tests/unit/test_rules_*.c run them on synthetic
 * snapshots. The thresholds are here, with the reason for each.
 */
#ifndef LOADLENS_OBSERVER_RULES_RULES_H
#define LOADLENS_OBSERVER_RULES_RULES_H

#include "rules/finding.h"
#include "rules/snapshot.h"

/* Ephemeral ports: a group is pressed from half its range on (ports a new connect cannot reuse). */
#define OBS_RULE_PORT_PCT 50.0
/* A forecast of exhaustion further out than this (s) is not a forecast. */
#define OBS_RULE_HORIZON_S 600.0
/* TIME_WAIT costs memory: a finding from this share of net.ipv4.tcp_max_tw_buckets on. */
#define OBS_RULE_TW_BUCKETS_PCT 80.0
/* Kernel memory of one TIME_WAIT socket (the tw_sock_TCP slab object), for the memory figure. */
#define OBS_RULE_TW_BYTES 256
/* FIN_WAIT2 orphans: this many sockets of a port in FIN_WAIT2 for 0.4 s or more (the census
 * ages them by cookie: a close under way leaves FIN_WAIT2 within a round trip). */
#define OBS_RULE_FW2_MIN 10
/* CLOSE_WAIT: this many accepted sockets in it for 0.4 s or more. */
#define OBS_RULE_CW_MIN 10
/* fds: a forecast needs half the limit used (or exhaustion within 30 s), and a trend: the fds
 * rose at the latest sample, and over the latest 3 s (OBS_RULE_TREND_S) in every step of about
 * a second (OBS_RULE_TREND_STEP_S) by a quarter of the 3 s' rate at least; the rate is the slope
 * over those 3 s only. A ramp of connections that stopped is no trend (its old slope is not the
 * rate now, and a tick of churn after it is not a quarter of it), nor is a burst shorter than
 * 3 s. */
/* ... and a ramp that slows down (its newest second grew less than this share of the second
 * before it) must not level off below the limit at that pace of slowing */
#define OBS_RULE_SLOWING 0.8
#define OBS_RULE_FD_FORECAST_PCT 50.0
#define OBS_RULE_TREND_S 3.0
#define OBS_RULE_TREND_STEP_S 1.0
#define OBS_RULE_TREND_STEP_SHARE 0.25
#define OBS_RULE_FD_SOON_S 30.0
#define OBS_RULE_FD_HIGH_PCT 90.0
/* fd leak: fds rising at every sample of 5, by this many at least, while accepts hold steady
 * and ESTABLISHED (census) grows at less than half their rate (held connections are no leak) */
#define OBS_RULE_LEAK_SAMPLES 5
#define OBS_RULE_LEAK_MIN_FDS 5
/* system file handles */
#define OBS_RULE_FILES_HIGH_PCT 90.0
/* Saturation: socket-queue wait >= 10x service at p50, and at least 5 ms (below it, a queue is
 * no one's problem: a thread-per-connection python server queues 0.5 ms behind its GIL), with 10
 * requests an interval, 2 intervals in a row. Run-queue wait p50 >= 1 ms there, 2 intervals in a
 * row, is CPU saturation. */
#define OBS_RULE_SAT_RATIO 10.0
#define OBS_RULE_SAT_MIN_QUEUE_NS 5e6
#define OBS_RULE_SAT_MIN_REQUESTS 10
#define OBS_RULE_SAT_INTERVALS 2
#define OBS_RULE_RUNQ_P50_NS 1e6
/* ... unless the targets forked a process for this share of the requests, each interval: the
 * queue is then the processes' start (fork_wait, a note), not a busy pool */
#define OBS_RULE_FORK_SHARE 0.5
/* Without --runq, from the targets' schedstat: this many of their threads per CPU they may run on
 * waited for one on average over the interval (and at least half as many as ran), 2 intervals in
 * a row, is CPU saturation where requests queue: a process per connection waiting for one CPU is
 * no worker pool to enlarge. Between the cases measured on one CPU: a JVM's own threads (its
 * compiler, its collector) waited 1.1-1.2 while its requests did not wait for them; slapd's 2 pool
 * threads and its listener, all busy, 1.67 (sick_slapd_threads_2) and 1.98-2.05 at SCHED_FIFO
 * (reqtime_slapd: at a bar of 2.0 the rule named nothing when they dipped under it in one
 * interval of two). In the older interval of the 2, OBS_RULE_CPU_OLDER of the bar (the load
 * began in its middle: slapd 1.47 there). */
#define OBS_RULE_CPU_WAITING 1.5
#define OBS_RULE_CPU_OLDER 0.5
/* ... or one waiting thread a CPU where the targets' threads ran on OBS_RULE_CPU_FULL of the CPUs
 * outright (no steal or interrupts counted off: the JVM above ran 0.55 of its one CPU): a server
 * that holds its CPUs with threads to spare waits for them, whatever its pool. slapd's pool of 2
 * on a slower 2-core VM waited 1.29-1.47 running 0.89-0.99, every interval of its load; the bar
 * of 1.5 alone called that "workers", "not the CPU". */
#define OBS_RULE_CPU_FULL 0.9
#define OBS_RULE_CPU_WAITING_FULL 1.0
/* ... while running on 75% of the CPUs their affinity allows, less what no thread could have
 * there (steal, and interrupts where the kernel keeps them out of run time: cpuwait.h; a busy
 * hypervisor took 10-80% of one CPU here) */
#define OBS_RULE_CPU_BUSY 0.75
/* ... where requests waited 1 ms at least (and OBS_RULE_SAT_RATIO times their service) */
#define OBS_RULE_CPU_MIN_QUEUE_NS 1e6
/* CPUs held by other work (or a CPU quota throttling the server): the targets' threads waited
 * for a CPU at least as long as they ran, this many on average at least, in the newer interval of
 * a queue that would otherwise name the workers (in the older, longer than they ran) (100,000 connections ramped up by drivers on the
 * same 2 CPUs: 3.8 waiting, 0.6 running; a sleeping pool of 2 threads: 0.02 and 0.01) */
#define OBS_RULE_CPU_CONTENDED 0.25
/* Requests that wait inside the server (no socket queue): 3x as many in service at once as in an
 * earlier interval, and the service time 3x (and 5 ms at least), OBS_RULE_SAT_INTERVALS in a
 * row; intervals of 50 requests or more are judged */
#define OBS_RULE_INSIDE_GROWTH 3.0
#define OBS_RULE_INSIDE_MIN_REQUESTS 50
/* Pipelining: a note once this share of reads carried several requests. */
#define OBS_RULE_PIPELINE_PCT 1.0
/* ... and at least this many such reads: one request written in two pieces is not pipelining */
#define OBS_RULE_PIPELINE_MIN 20
/* Pipelining seen in the bytes (payload samples, bpf/payload.bpf.h): this share of the sampled
 * reads held several requests, with at least this many such reads (a request whose body has a
 * line that begins like a request counts twice: a few are no pipelining) */
#define OBS_RULE_PL_PCT 10.0
#define OBS_RULE_PL_MIN 10
/* ... or, for a burst too short for that many samples (the sampler takes at most one read per
 * CPU each LL_PL_PERIOD_NS, 8 ms: a 0.07 s burst gives about 9), this many reads holding several
 * requests that are at least this share of the samples. No looser on a long run: what makes a
 * few samples count twice (a body line that begins like a request) can make 3 of 5 do so only
 * if most requests have one, and then the rule above fires as well. */
#define OBS_RULE_PL_BURST_MIN 3
#define OBS_RULE_PL_BURST_PCT 50.0

/* A spike of exits (--children): in each of 2 intervals in a row, the targets' children that
 * ended with status 0 are at least 10 and more than 2x the interval's bound + 5, the bound being
 * the target sockets that left ESTABLISHED (connections closed) or, when more, the requests
 * timed. A child per connection (a forking server's backend) or per request (CGI) ends at most
 * once per connection closed or request; a load that stops closes as many connections as
 * children end, in the same interval; closes count each end on the target ports (a loopback
 * client's too), so 2x and + 5 leave room for the one end seen and for an exit whose close fell
 * in the interval before; one interval alone is a blip. */
#define OBS_RULE_EXITS_MIN 10
#define OBS_RULE_EXITS_RATIO 2
#define OBS_RULE_EXITS_MARGIN 5
#define OBS_RULE_EXITS_INTERVALS 2

/* Error responses (statuses read from HTTP/2 header blocks: HTTP/2 and gRPC only): over the
 * latest interval and those that end within OBS_RULE_ERR_WINDOW_S of it (a burst a tick splits
 * is judged whole), at least OBS_RULE_ERR_MIN responses (or gRPC calls), and 5xx at
 * OBS_RULE_ERR_5XX_PCT of them or more (a server that fails one request in a hundred fails its
 * users), 4xx at OBS_RULE_ERR_4XX_PCT or more (a few 404s are a site's normal: a missing
 * favicon; most requests refused is a wrong path, credentials or a broken client), or gRPC
 * calls not OK at OBS_RULE_ERR_GRPC_PCT or more; the latest interval must hold such errors
 * itself (the finding ends with them). */
#define OBS_RULE_ERR_WINDOW_S 3.0
#define OBS_RULE_ERR_MIN 20
#define OBS_RULE_ERR_5XX_PCT 1.0
#define OBS_RULE_ERR_4XX_PCT 50.0
#define OBS_RULE_ERR_GRPC_PCT 1.0

typedef void (*obs_rule_fn)(const struct obs_snap_hist *h, struct obs_findings *out);

/* The rules, one per topic (rules_sockets.c, rules_fds.c, rules_requests.c, rules_statuses.c,
 * rules_scope.c). */
void obs_rule_port_exhaustion(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_time_wait(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_fin_wait2(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_close_wait(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_listen_overflow(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_addrinuse(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_fds(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_fd_leak(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_system_fds(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_process_cap(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_target_exit(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_exit_spike(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_saturation(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_pipelining(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_udp_shared(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_netns_outside(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_no_listener(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_served_elsewhere(const struct obs_snap_hist *h, struct obs_findings *out);
void obs_rule_error_responses(const struct obs_snap_hist *h, struct obs_findings *out);

/* Every rule, in the order findings are listed. */
void obs_rules_run(const struct obs_snap_hist *h, struct obs_findings *out);

/* Helpers the rules share (rules.c). */
/* "28,190" */
const char *obs_rule_num(uint64_t v, char *buf, size_t len);
/* "9.4 ms", "120 us" */
const char *obs_rule_ns(double ns, char *buf, size_t len);
/* Least-squares slope of y over t. */
double obs_rule_slope(const double *t, const double *y, unsigned int n);
/*
 * The growth a ramp that is slowing down still has (t/y newest first, m samples): the newest step
 * of about a second against the one before; a ratio q below OBS_RULE_SLOWING reads as a ramp
 * decaying by q a step, with newest * q / (1 - q) to come. -1 when it is not slowing (a leak).
 */
double obs_rule_growth_left(const double *t, const double *y, unsigned int m);
/* The latest snapshot with a census, within `within` intervals back, or NULL. */
const struct obs_snap *obs_rule_census(const struct obs_snap_hist *h, unsigned int within,
				       unsigned int *back);

#endif /* LOADLENS_OBSERVER_RULES_RULES_H */
