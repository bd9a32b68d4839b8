/* SPDX-License-Identifier: MIT */
/*
 * What one worker thread counts, and how the threads' counts merge. Latencies go into
 * struct ll_hist (no per-sample storage), so two runs, two threads or two machines merge exactly.
 */
#ifndef LOADLENS_DRV_STATS_H
#define LOADLENS_DRV_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/ll_hist.h"
#include "base/errors.h"
#include "loadlens/grpc_status.h"

#define DRV_H2_RST_CODES 15 /* RST_STREAM codes 0..13 (NO_ERROR..HTTP_1_1_REQUIRED), 14: others */
#define DRV_STATUS_MAX 1000 /* HTTP status codes 100..999 are counted one by one; 0 = none */
/* A protocol's result codes (an LDAP resultCode): 0..126 counted one by one; 127: any other */
#define DRV_APP_CODES 128

/*
 * A protocol's counts (config/app.h: --proto ldap's), named by its report (report_ext.h): its
 * requests and its greetings at connect by result code, and what its requests brought.
 */
struct drv_app_counts {
	uint64_t result[DRV_APP_CODES]; /* requests done, by result code (0 = success, ok) */
	uint64_t hello[DRV_APP_CODES];	/* greetings at connect (LDAP's binds), by result code */
	uint64_t items;			/* items of the requests done (LDAP's entries) */
	uint64_t refs;			/* references of the requests done (LDAP's) */
	uint64_t empty;			/* requests done with success and no item */
};

/* The slot a protocol's result code is counted in. */
static inline unsigned drv_stats_code_slot(int64_t code)
{
	return code >= 0 && code < DRV_APP_CODES - 1 ? (unsigned)code : DRV_APP_CODES - 1;
}

/* The HTTP version a response came in (JSON keys "1.0", "1.1", "2", "3"). */
enum drv_httpv {
	DRV_HTTPV_1_0 = 0,
	DRV_HTTPV_1_1,
	DRV_HTTPV_2,
	DRV_HTTPV_3,
	DRV_HTTPV__COUNT,
};

/* --requests-file: one record's outcomes (reqmix.h). */
struct drv_rec_stats {
	uint64_t requests; /* ok */
	uint64_t errors;   /* failed, or answered with an error */
	struct ll_hist *latency; /* intended send → complete response, every answered one */
};

struct drv_stats {
	/* live counters: written by the owning worker, read by the main thread (drv_counter_*) */
	uint64_t requests;    /* completed with a well-formed response */
	uint64_t connections; /* connections established */
	uint64_t errors_total;

	uint64_t errors[DRV_ERR__COUNT];
	uint64_t connect_attempts;
	uint64_t cancelled; /* in flight when the run was stopped; neither ok nor error */
	uint64_t not_sent;  /* open loop: scheduled before -d, never started (the server lagged) */
	uint64_t bytes_sent;
	uint64_t bytes_received;
	uint64_t late;	 /* udp: replies that came after their request was counted lost */
	uint64_t duplicate; /* udp: a second (or later) reply to one request */
	uint64_t unmatched; /* udp: replies that match no request sent (junk, or too old) */
	uint64_t rxq_ovfl;  /* udp: datagrams the driver's own sockets dropped (receive buffer full) */
	uint64_t rcvbuf;    /* udp --rcvbuf: the smallest receive buffer the kernel gave, 0 = none */
	uint64_t behind; /* open loop: sends started late because their slot was still busy */
	uint64_t cpu_ns; /* the worker thread's CPU time (user + system) */
	/* why sends ran late: the worker thread preempted (guest scheduler), or its timer */
	uint64_t nivcsw;      /* involuntary context switches of the worker thread */
	uint64_t nvcsw;       /* its voluntary ones: how often it slept (a wake-up each) */
	uint64_t runq_ns;     /* time it was runnable but waiting for a CPU (schedstat) */
	uint64_t timer_wakes; /* waker: timerfd wake-ups */
	uint64_t spin_ns;     /* waker: polling the loop and spinning on the clock near a send */
	uint64_t pacer_idle_ns; /* of it, the pacer waiting: clock spin and polls with no event */
	uint64_t status[DRV_STATUS_MAX]; /* http: responses by status code */
	uint64_t http_version[DRV_HTTPV__COUNT]; /* http: responses by negotiated version */
	uint64_t dns_rcode[16]; /* dns: responses by RCODE (0 = NOERROR, counted ok) */
	/* http/2 (h2/h2_engine.c, h2/h2_report.c) */
	uint64_t h2_rst[DRV_H2_RST_CODES]; /* RST_STREAM from the server, by error code */
	uint64_t h2_goaway;	 /* GOAWAY frames from the server (the streams refused: errors) */
	uint64_t h2_goaway_retried; /* streams a GOAWAY refused, sent again on a new connection */
	uint64_t h2_flow_stalls; /* request bodies that waited for the server's WINDOW_UPDATE */
	uint64_t h2_max_streams; /* the smallest SETTINGS_MAX_CONCURRENT_STREAMS a server sent */
	uint64_t h2_settings;	 /* connections whose server SETTINGS came (0: max_streams unset) */
	uint64_t h2_max_streams_set; /* of them, those that announced a limit */
	uint64_t h2_peak_streams; /* most streams in flight on one connection */
	uint64_t grpc_status[LL_GRPC_CODES + 1]; /* grpc: answers by grpc-status (0 = OK) */
	struct drv_app_counts app; /* a protocol's (--proto ldap's searches and binds) */
	int first_other_err; /* negative errno of the first DRV_ERR_OTHER, or 0 */
	uint64_t t_first_ns; /* uv_hrtime() when the worker started, 0 if never */
	uint64_t t_last_ns;  /* uv_hrtime() when its last slot finished or it was stopped */

	struct ll_hist *latency;	     /* intended send → complete response, ns */
	struct ll_hist *latency_uncorrected; /* actual send → complete response, ns */
	struct ll_hist *send_lag;	     /* a free slot's actual - intended start, ns */
	struct ll_hist *connect;	     /* connect() → established, ns */
	struct ll_hist *late_latency;	     /* udp: intended send → late reply, ns */
	struct drv_rec_stats *rec; /* --requests-file: per record, nrec of them (or NULL) */
	uint32_t nrec;
};

/*
 * A counter of struct drv_stats that adds up over threads and runs, with its JSON key (at the top
 * level, or in "driver"): report_json.c writes these, in this order, merge.c reads them back and
 * drv_stats_merge() adds them: one list.
 */
struct drv_stats_sum {
	const char *key;
	size_t off; /* of a uint64_t in struct drv_stats */
	bool in_driver;
};
extern const struct drv_stats_sum drv_stats_sums[];
extern const size_t drv_stats_nsums;
static inline uint64_t *drv_stats_sum_at(struct drv_stats *s, size_t i)
{
	return (uint64_t *)((char *)s + drv_stats_sums[i].off);
}

int drv_stats_init(struct drv_stats *s);
void drv_stats_fini(struct drv_stats *s);
/* Add src into dst (both initialised). Exact: counters add, histograms merge bucket by bucket. */
void drv_stats_merge(struct drv_stats *dst, const struct drv_stats *src);

/* The http/2 and grpc part: counts add, the servers' stream limit is the smallest, the peak the
 * largest. */
void drv_stats_merge_h2(struct drv_stats *dst, const struct drv_stats *src);
void drv_stats_error(struct drv_stats *s, int err);
/* A complete response: both latencies from the intended and the actual send time. */
static inline void drv_stats_response(struct drv_stats *s, uint64_t intended, uint64_t sent,
				      uint64_t now)
{
	ll_hist_record(s->latency, now - intended);
	ll_hist_record(s->latency_uncorrected, now - sent);
}
/* Per-record stats for n records (each with its histogram): 0 or -ENOMEM. */
int drv_stats_rec_init(struct drv_stats *s, uint32_t n);
/* "1.0", "1.1", "2", "3"; drv_httpv_from_name() returns -1 for anything else. */
const char *drv_httpv_name(enum drv_httpv v);
int drv_httpv_from_name(const char *s);
/* One-line advice for a class, about target (HOST:PORT); written into buf. */
/* Why closed connections hold ports, for net.ipv4.tcp_tw_reuse (-1: unread) and a loopback target
 * or not: TIME_WAIT for 60 s, or reused after 1 s. Returns buf. */
const char *drv_tw_hint(int tw_reuse, bool loopback, char *buf, size_t len);
const char *drv_err_hint(enum drv_err e, const struct drv_stats *s, const char *target,
			 char *buf, size_t len);

#endif /* LOADLENS_DRV_STATS_H */
