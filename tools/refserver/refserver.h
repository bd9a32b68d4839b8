/* SPDX-License-Identifier: MIT */
/*
 * loadlens-refserver: a libuv server whose behaviour is known exactly (docs/refserver.md).
 *
 * N worker threads, each with its own loop and its own SO_REUSEPORT socket. A worker serves one
 * request at a time and spends the service time inside its loop, so requests queue in the kernel.
 * Counters are written only by their worker and merged after the workers have exited.
 */
#ifndef LOADLENS_REFSERVER_H
#define LOADLENS_REFSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <http_parser.h>
#include <jansson.h>
#include <uv.h>
#include "loadlens/ll_hist.h"
#include "loadlens/parse.h"
#include "grpc_wire.h"

#define RS_PROG "loadlens-refserver"
#define RS_MAX_FRAME (16u << 20)    /* largest TCP request payload */
#define RS_MAX_RESPONSE (16u << 20) /* largest --response-size */
#define RS_MAX_WORKERS 256
#define RS_ERRNO_MAX 256	    /* accept errors are counted by errno below this */
#define RS_READ_BUF (64u << 10)	    /* per-worker read buffer, shared by its connections */
#define RS_ACCEPT_BATCH 64	    /* accepts per wake-up, then let the loop run */
#define RS_ACCEPT_RETRY_MS 100	    /* back-off when accept fails and cannot be shed */
#define RS_DEFAULT_BODY "hello, loadlens\n"
#define RS_HTTP_STATUS_MAX 600	    /* h2, grpc: responses counted by status below this */
#define RS_H2_CODES 16		    /* h2, grpc: RST_STREAM counted by error code below this */
#define RS_TRACE_MAX (1u << 20)    /* --trace records a worker; the rest counted in trace_dropped */

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#endif

enum rs_proto { RS_PROTO_TCP, RS_PROTO_UDP, RS_PROTO_HTTP, RS_PROTO_H2, RS_PROTO_GRPC };
enum rs_dist { RS_DIST_FIXED, RS_DIST_EXP };
enum rs_mode { RS_MODE_SPIN, RS_MODE_SLEEP };

/* Settings of the misbehaviour switches (misbehave.c); 0 / false means off. */
struct rs_misbehave {
	uint64_t stall_at_ns;
	uint64_t stall_ns;
	uint64_t drop_every;
	uint64_t leak_fds;
	uint64_t rst_every;	    /* h2, grpc */
	uint64_t goaway_after;	    /* h2, grpc */
	uint64_t stall_every;	    /* h2, grpc */
	uint64_t max_streams;	    /* h2, grpc: SETTINGS_MAX_CONCURRENT_STREAMS */
	uint64_t grpc_status_every; /* grpc: every Nth call answered with grpc_status_code */
	int grpc_status_code;
	bool no_close;
};

struct rs_config {
	enum rs_proto proto;
	char host[LL_HOST_MAX];
	uint16_t port;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char listen_str[LL_HOST_MAX + 16];
	uint64_t service_ns;
	enum rs_dist dist;
	enum rs_mode mode;
	unsigned workers;
	int backlog;
	int64_t response_size; /* -1: echo (tcp, udp) or the default body (http) */
	uint64_t seed;
	const char *json_path;
	FILE *json_out; /* opened at start (loadlens/outfile.h); NULL for stdout */
	const char *trace_path;
	FILE *trace_out; /* --trace, opened at start like json_out */
	struct rs_misbehave mb;

	/* Built once before the workers start, read-only afterwards. */
	char *body; /* response payload: 'x' * response_size, or the HTTP default body */
	size_t body_len;
	uint64_t start_ns; /* CLOCK_MONOTONIC when the workers were started */
};

/* uint64_t counts only: rs_merge adds two of them as arrays */
struct rs_counters {
	uint64_t connections_accepted;
	uint64_t connections_closed;	   /* closed by us while serving */
	uint64_t connections_leaked;	   /* peer closed, we did not (--no-close) */
	uint64_t connections_rejected;	   /* closed at once to shed EMFILE/ENFILE */
	uint64_t connections_open_at_exit; /* closed by the shutdown */
	uint64_t requests;
	uint64_t responses;
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint64_t protocol_errors;
	uint64_t udp_dropped;
	uint64_t udp_send_errors;
	uint64_t fds_leaked;
	uint64_t stalls;
	uint64_t trace_dropped; /* --trace records beyond RS_TRACE_MAX a worker */
	uint64_t accept_errors[RS_ERRNO_MAX];
	/* h2 and grpc (proto_h2.c, proto_grpc.c) */
	uint64_t streams_opened;	/* request streams the peer opened */
	uint64_t streams_unserved;	/* complete requests still queued when their conn closed */
	uint64_t streams_stalled;	/* --stall-every: never answered */
	uint64_t streams_reset;		/* served, then reset instead of answered (--rst-every) */
	uint64_t rst_sent;		/* RST_STREAM frames sent, any cause */
	uint64_t rst_sent_codes[RS_H2_CODES]; /* by error code; the last, codes beyond */
	uint64_t rst_received;
	uint64_t goaway_sent;
	uint64_t http_status[RS_HTTP_STATUS_MAX];
	uint64_t grpc_status[RS_GRPC_NSTATUS];
	uint64_t grpc_bad_content_type; /* answered 415 */
	uint64_t grpc_bad_method;	/* not POST: grpc-status UNIMPLEMENTED */
	uint64_t grpc_bad_path;		/* not /Service/Method: grpc-status UNIMPLEMENTED */
	uint64_t grpc_bad_message;	/* body ends inside a message: grpc-status INTERNAL */
	uint64_t grpc_messages;		/* request messages of the calls admitted */
};

/* A growable byte buffer, reused for the life of its connection. */
struct rs_buf {
	char *data;
	size_t off; /* first unconsumed byte */
	size_t len; /* end of valid data */
	size_t cap;
};

struct rs_worker;
struct rs_h2_conn;
struct rs_trace;

/* One accepted stream connection: tcp, http, h2 or grpc. */
struct rs_conn {
	uv_tcp_t tcp;
	uv_write_t wreq;
	struct rs_worker *w;
	struct rs_conn *prev, *next;
	struct rs_buf in;  /* kept input: an incomplete frame, or data behind a pending write */
	struct rs_buf out; /* unsent tail of a response that was not stable (an echo) */
	http_parser parser;
	struct rs_h2_conn *h2; /* h2, grpc: the nghttp2 session and its streams */
	uint8_t frame_hdr[4];
	uint64_t bytes_written; /* handed to the kernel so far (--trace's transmit lookup) */
	size_t pending_len;     /* bytes of the write in flight (uv_write) */
	bool write_pending;
	bool close_after_write;
	bool eof;
	bool closing;
	bool leaked;
};

struct rs_worker {
	unsigned id;
	const struct rs_config *cfg;
	const struct rs_stream_proto *proto; /* tcp, http, h2 (grpc too): its stream protocol */
	uv_sem_t *ready;
	uv_async_t *exited; /* sent to the main loop when the thread is about to end */
	unsigned *nexited;  /* incremented atomically before that */
	int init_err; /* 0 or a libuv error, valid once ready has been posted */
	int loop_close_err;
	uv_thread_t thread;
	int listen_fd;
	int reserve_fd; /* spare fd, closed to shed a connection on EMFILE */

	uv_loop_t loop;
	uv_async_t stop;
	uv_poll_t accept_poll; /* tcp, http */
	uv_udp_t udp;	       /* udp */
	uv_timer_t accept_retry;
	uv_timer_t stall;
	bool loop_ok, stop_ok, accept_ok, udp_ok, retry_ok, stall_ok;
	bool stopping;

	struct rs_conn *conns; /* open connections, leaked ones included */
	char *rbuf;	       /* RS_READ_BUF bytes */
	uint64_t rng[4];
	struct ll_hist *hist; /* service times, ns */
	struct rs_trace *trace; /* --trace, else NULL (trace.c) */
	struct rs_counters c;
	uint64_t h2_seq;		 /* h2, grpc: streams taken into service (--*-every) */
	struct rs_grpc_methods methods; /* grpc: calls by method path */
};

/* A stream protocol: tcp framing, http, or h2 (grpc included). */
struct rs_stream_proto {
	int (*conn_init)(struct rs_conn *c); /* 0, or a negative error: the conn is closed */
	/*
	 * Consume requests from p[0..n); return how many bytes were used. Stops early while a
	 * write is pending; bytes not used are kept and offered again.
	 */
	size_t (*consume)(struct rs_conn *c, const char *p, size_t n);
	/* optional: a pending write has completed, before the kept input is offered again */
	void (*writable)(struct rs_conn *c);
	/* optional: the connection is being freed */
	void (*conn_free)(struct rs_conn *c);
};

extern const struct rs_stream_proto rs_tcp_proto;
extern const struct rs_stream_proto rs_http_proto;
extern const struct rs_stream_proto rs_h2_proto;

/* options.c */
void rs_parse_args(struct rs_config *cfg, int argc, char **argv);

/* names.c: each enum's NULL-ended table of names, and a value's index in one (-1: none) */
extern const char *const rs_proto_names[];
extern const char *const rs_dist_names[];
extern const char *const rs_mode_names[];
int rs_name_index(const char *const *names, const char *val);
const char *rs_proto_name(enum rs_proto p);
const char *rs_dist_name(enum rs_dist d);
const char *rs_mode_name(enum rs_mode m);

/* misbehave.c: the table of misbehaviour switches */
struct rs_switch {
	const char *name; /* "--stall" */
	const char *arg;  /* "AT:DUR", or NULL for a flag */
	const char *expect; /* what a bad value is told to be instead; NULL: the arg */
	const char *help;
	const char *json_key;
	int (*parse)(struct rs_misbehave *mb, const char *val); /* 0 or -EINVAL */
	json_t *(*to_json)(const struct rs_misbehave *mb);
	/* with no parse and to_json: a uint64_t count at count_off, in min..max */
	size_t count_off;
	uint64_t min, max;
	unsigned protos; /* the protocols it applies to: 1 << enum rs_proto */
};
extern const struct rs_switch rs_switches[];
extern const size_t rs_nswitches;
int rs_switch_parse(const struct rs_switch *s, struct rs_misbehave *mb, const char *val);
json_t *rs_switch_json(const struct rs_switch *s, const struct rs_misbehave *mb);
int rs_misbehave_check(const struct rs_config *cfg, char *why, size_t len);
json_t *rs_misbehave_to_json(const struct rs_misbehave *mb);

/* CLOCK_MONOTONIC in ns: the clock of every stamp here (service, --trace) */
static inline uint64_t rs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* service.c */
void rs_block_until(enum rs_mode mode, uint64_t deadline_ns);
void rs_rng_seed(struct rs_worker *w, uint64_t seed);
/* Called when a complete request has been parsed: counts it, spends the service time, and
 * returns the start time to pass to rs_service_end() just before the response is written. */
uint64_t rs_service_begin(struct rs_worker *w);
void rs_service_end(struct rs_worker *w, uint64_t t0);
/* rs_service_end without counting a response (h2: a stream reset instead of answered) */
void rs_service_record(struct rs_worker *w, uint64_t t0);

/* trace.c: --trace, each request's read, service and write moments; no-ops without it */
int rs_trace_init(struct rs_worker *w);
void rs_trace_free(struct rs_worker *w);
void rs_trace_read(struct rs_worker *w);  /* a read callback began */
void rs_trace_served(struct rs_worker *w, uint64_t begin_ns, uint64_t end_ns);
void rs_trace_conn(struct rs_worker *w, int fd); /* a TCP connection: its transmit moments */
/* a write call returned, having written bytes; over TCP (fd >= 0) the connection's count of
 * bytes written so far, whose last one's transmit moment it looks up */
void rs_trace_sent(struct rs_worker *w, int fd, uint64_t bytes);
int rs_trace_write(FILE *f, const struct rs_worker *workers, unsigned n);

/* worker.c */
int rs_listen_socket(const struct rs_config *cfg, int *fd);
int rs_probe_port_free(const struct rs_config *cfg);
int rs_worker_start(struct rs_worker *w);
void rs_worker_stop(struct rs_worker *w);
void rs_worker_join(struct rs_worker *w);

/* conn.c */
void rs_conn_accepted(struct rs_worker *w, int fd);
/* Send a response. stable: the buffers outlive the write (else an unsent tail is copied).
 * Returns 0, or a negative error after closing the connection. */
int rs_conn_send(struct rs_conn *c, const uv_buf_t *bufs, unsigned nbufs, bool stable);
void rs_conn_close(struct rs_conn *c);
void rs_conn_close_all(struct rs_worker *w);
int rs_buf_append(struct rs_buf *b, const char *p, size_t n);
void rs_buf_free(struct rs_buf *b);

/* proto_http.c: build the response headers once, before the workers start */
int rs_http_prepare(const struct rs_config *cfg);

/* proto_h2.c: the nghttp2 callbacks and the response headers, once, before the workers start */
int rs_h2_prepare(const struct rs_config *cfg);
void rs_h2_release(void);

/* proto_grpc.c: the reply message and trailers, once, before the workers start */
int rs_grpc_prepare(const struct rs_config *cfg);

/* proto_udp.c */
int rs_udp_start(struct rs_worker *w);

/* report.c */
void rs_merge(struct rs_counters *dst, const struct rs_counters *src);
int rs_write_json(const struct rs_config *cfg, const struct rs_worker *workers,
		  const struct rs_counters *total, const struct ll_hist *hist, double elapsed_s);
void rs_print_summary(const struct rs_config *cfg, const struct rs_counters *total,
		      const struct ll_hist *hist, double elapsed_s);

#endif /* LOADLENS_REFSERVER_H */
