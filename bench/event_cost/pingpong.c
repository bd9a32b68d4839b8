// SPDX-License-Identifier: MIT
/*
 * A deterministic loopback TCP ping-pong, for measuring what a tracepoint costs per event.
 *
 *   pingpong PORT N REPS [WARMUP]
 *
 * Listens on 127.0.0.1:PORT, connects to itself and accepts, runs WARMUP round trips (default
 * 20000, ~0.2 s: on a VM the first reps after an idle spell were seen up to 15% slow), then
 * REPS times runs N round trips and prints the mean ns per round trip of that rep, one line per
 * rep. A round trip is: client writes a 27-byte HTTP-like request, server reads it, server
 * writes a 50-byte response, client reads it. Both ends live in this one thread (run it under
 * taskset -c CPU), so there is no wake-up or scheduling in the loop: on loopback a write
 * delivers to the peer's receive queue before it returns, and the read then finds the data
 * there. Each round trip therefore fires a fixed set of socket tracepoints, once per end:
 * sock_send_length, sk_data_ready and sock_recv_length, i.e. 6 events.
 *
 * PINGPONG_H2=1 in the environment: the same round trips in HTTP/2 frames of the same sizes
 * (the client preface and a SETTINGS frame once, first; then a request is a HEADERS frame with
 * END_STREAM on a new stream, 27 bytes, and a response a HEADERS frame and a DATA frame with
 * END_STREAM in one write, 50 bytes), for the observer's frame walk (bpf/req_h2.bpf.h).
 *
 * PINGPONG_TLS=DIR in the environment: the same HTTP/1.1 round trips over TLS (OpenSSL's libssl,
 * DIR/cert.pem and DIR/key.pem; the handshake once, first, both ends stepped in turn on
 * non-blocking sockets), each message one SSL_write and one SSL_read: for the observer's uprobes
 * on libssl (bpf/req_ssl.bpf.h), 4 SSL calls per round trip.
 *
 * Exit status: 0 ok, 1 runtime failure, 64 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

/* bounds, so a run never takes more than ~1000 s even at 10 us per round trip */
#define PP_MAX_N 10000000ul
#define PP_MAX_REPS 1000ul
#define PP_MAX_TOTAL 100000000ul
#define PP_WARMUP 20000ul
#define PP_MAX_WARMUP 1000000ul
#define PP_IO_TIMEOUT_S 5

static const char req[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world";

_Static_assert(sizeof(req) - 1 == 27, "request is 27 bytes");
_Static_assert(sizeof(resp) - 1 == 50, "response is 50 bytes");

/* HTTP/2 (PINGPONG_H2=1): the preface and an empty SETTINGS frame; a request, HEADERS with
 * END_STREAM and END_HEADERS (the stream id is set per round) and 18 bytes of header block; a
 * response, HEADERS (END_HEADERS, :status 200) then DATA with END_STREAM, 31 bytes */
static const char h2_hello[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0";
static char h2_req[27] = "\0\0\x12\x01\x05\0\0\0\x01\x82\x86\x84\x41\x0dwww.x.example";
static char h2_resp[50] = "\0\0\x01\x01\x04\0\0\0\x01\x88\0\0\x1f\0\x01\0\0\0\x01"
			  "hello world, hello world, hello";
_Static_assert(sizeof(h2_hello) - 1 == 33, "preface and SETTINGS are 33 bytes");
static int h2;
static SSL *tc, *ts; /* PINGPONG_TLS: the client's and the server's ends */

static void usage(const char *msg)
{
	fprintf(stderr, "pingpong: %s\n", msg);
	fprintf(stderr,
		"usage: pingpong PORT N REPS [WARMUP]  (PORT 1..65535, N 1..%lu, REPS 1..%lu, "
		"N*REPS <= %lu, WARMUP 0..%lu, default %lu)\n",
		PP_MAX_N, PP_MAX_REPS, PP_MAX_TOTAL, PP_MAX_WARMUP, PP_WARMUP);
	exit(64);
}

static unsigned long parse_arg(const char *s, const char *what, unsigned long min,
			       unsigned long max)
{
	unsigned long v;
	char *end;
	char msg[128];

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || v < min || v > max) {
		snprintf(msg, sizeof(msg), "bad %s '%s'", what, s);
		usage(msg);
	}
	return v;
}

static void die(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * Timeouts on both ends: a read never waits for ever if a segment was not delivered in the
 * writer's context (it then comes from ksoftirqd), and a lost one ends the run instead of
 * hanging it.
 */
static void tune(int fd)
{
	struct timeval tv = { .tv_sec = PP_IO_TIMEOUT_S };
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		die("setsockopt");
}

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = write(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("write");
		p += r;
		n -= (size_t)r;
	}
}

/* one read per message in practice; the loop only guards against a short read */
static void read_all(int fd, char *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("read");
		if (r == 0) {
			fprintf(stderr, "pingpong: read: unexpected EOF\n");
			exit(1);
		}
		p += r;
		n -= (size_t)r;
	}
}

static void tls_die(const char *what)
{
	fprintf(stderr, "pingpong: %s failed\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

/* one SSL_write of all n bytes (no partial writes: OpenSSL's default) */
static void tls_write(SSL *t, const char *p, size_t n)
{
	if (SSL_write(t, p, (int)n) != (int)n)
		tls_die("SSL_write");
}

/* one SSL_read per message in practice (one record each) */
static void tls_read(SSL *t, char *p, size_t n)
{
	int r;

	while (n) {
		r = SSL_read(t, p, (int)n);
		if (r <= 0)
			tls_die("SSL_read");
		p += r;
		n -= (size_t)r;
	}
}

static void set_blocking(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, on ? fl & ~O_NONBLOCK : fl | O_NONBLOCK) < 0)
		die("fcntl");
}

/* Both ends of the handshake in this one thread: each steps until it waits for the other. */
static void tls_setup(const char *dir, int c, int s)
{
	SSL_CTX *cx = SSL_CTX_new(TLS_client_method()), *sx = SSL_CTX_new(TLS_server_method());
	char cert[512], key[512];
	int i, cd = 0, sd = 0, r;

	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	if (!cx || !sx || SSL_CTX_use_certificate_file(sx, cert, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_use_PrivateKey_file(sx, key, SSL_FILETYPE_PEM) != 1)
		tls_die("loading PINGPONG_TLS's cert.pem and key.pem");
	tc = SSL_new(cx);
	ts = SSL_new(sx);
	if (!tc || !ts || !SSL_set_fd(tc, c) || !SSL_set_fd(ts, s))
		tls_die("SSL_new");
	set_blocking(c, 0);
	set_blocking(s, 0);
	for (i = 0; i < 1000 && !(cd && sd); i++) {
		if (!cd) {
			r = SSL_connect(tc);
			cd = r == 1;
			if (r <= 0 && SSL_get_error(tc, r) != SSL_ERROR_WANT_READ)
				tls_die("SSL_connect");
		}
		if (!sd) {
			r = SSL_accept(ts);
			sd = r == 1;
			if (r <= 0 && SSL_get_error(ts, r) != SSL_ERROR_WANT_READ)
				tls_die("SSL_accept");
		}
	}
	if (!(cd && sd))
		tls_die("the handshake");
	set_blocking(c, 1);
	set_blocking(s, 1);
}

static void round_trips(int c, int s, unsigned long n)
{
	char buf[64];
	unsigned long i;

	static uint32_t sid = 1;

	for (i = 0; i < n && h2; i++, sid += 2) {
		h2_req[5] = (char)(sid >> 24);
		h2_req[6] = (char)(sid >> 16);
		h2_req[7] = (char)(sid >> 8);
		h2_req[8] = (char)sid;
		memcpy(h2_resp + 5, h2_req + 5, 4);
		memcpy(h2_resp + 10 + 5, h2_req + 5, 4);
		write_all(c, h2_req, sizeof(h2_req));
		read_all(s, buf, sizeof(h2_req));
		write_all(s, h2_resp, sizeof(h2_resp));
		read_all(c, buf, sizeof(h2_resp));
	}
	for (i = 0; i < n && tc; i++) {
		tls_write(tc, req, sizeof(req) - 1);
		tls_read(ts, buf, sizeof(req) - 1);
		tls_write(ts, resp, sizeof(resp) - 1);
		tls_read(tc, buf, sizeof(resp) - 1);
	}
	for (i = 0; i < n && !h2 && !tc; i++) {
		write_all(c, req, sizeof(req) - 1);
		read_all(s, buf, sizeof(req) - 1);
		write_all(s, resp, sizeof(resp) - 1);
		read_all(c, buf, sizeof(resp) - 1);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned long port, n, reps, warmup = PP_WARMUP, r;
	int one = 1, l, c, s;
	uint64_t t0, t1;

	if (argc != 4 && argc != 5)
		usage("expected 3 or 4 arguments");
	port = parse_arg(argv[1], "PORT", 1, 65535);
	n = parse_arg(argv[2], "N", 1, PP_MAX_N);
	reps = parse_arg(argv[3], "REPS", 1, PP_MAX_REPS);
	if (argc == 5)
		warmup = parse_arg(argv[4], "WARMUP", 0, PP_MAX_WARMUP);
	if (n * reps > PP_MAX_TOTAL)
		usage("N*REPS too large");

	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		die("socket");
	/* the previous run's connection may still be in TIME_WAIT on this port */
	if (setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		die("setsockopt SO_REUSEADDR");
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind");
	if (listen(l, 1) < 0)
		die("listen");
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0)
		die("socket");
	tune(c);
	/* a blocking connect completes from the backlog: the handshake is done in softirq */
	if (connect(c, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect");
	s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	tune(s);
	close(l);
	h2 = getenv("PINGPONG_H2") && !strcmp(getenv("PINGPONG_H2"), "1");
	if (getenv("PINGPONG_TLS") && *getenv("PINGPONG_TLS") && !h2)
		tls_setup(getenv("PINGPONG_TLS"), c, s);
	if (h2) {
		char hello[sizeof(h2_hello) - 1];

		write_all(c, h2_hello, sizeof(hello));
		read_all(s, hello, sizeof(hello));
	}

	/* caches, socket buffers, TCP's quick-ack state and the vCPU's clock out of the measurement */
	round_trips(c, s, warmup);
	for (r = 0; r < reps; r++) {
		t0 = now_ns();
		round_trips(c, s, n);
		t1 = now_ns();
		printf("%.1f\n", (double)(t1 - t0) / (double)n);
		fflush(stdout);
	}
	/* client first: TIME_WAIT lands on the ephemeral port, not on PORT */
	if (tc) {
		SSL_free(tc);
		SSL_free(ts);
	}
	close(c);
	close(s);
	return 0;
}
