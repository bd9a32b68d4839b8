// SPDX-License-Identifier: MIT
/* The --metrics endpoint: HTTP/1.1 on nonblocking sockets, polled with the signals. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/signalfd.h>
#include <http_parser.h>
#include "loadlens/cli.h"
#include "loadlens/parse.h"
#include "metrics/metrics_http.h"
#include "metrics/metrics_src.h"

/* A connection's state: what its deadline is measured from (since). */
enum state {
	IDLE, /* waiting for a request: OBS_MXHTTP_IDLE_S */
	REQ,	 /* a request has begun: OBS_MXHTTP_HEADER_S */
	RESP, /* a response is being written: OBS_MXHTTP_WRITE_S */
};

struct client {
	int fd;
	enum state st;
	double since; /* monotonic s the state began; no byte moves it */
	http_parser p;
	size_t req;   /* bytes of the current request parsed so far */
	char in[OBS_MXHTTP_REQUEST_MAX]; /* read, not yet parsed (a pipelined request waits) */
	size_t inlen;
	char url[256];
	size_t url_len;
	char field[32];
	size_t field_len;
	bool in_value; /* a header value is being read */
	char accept[256];
	struct obs_mxhttp *h;
	bool close;	     /* close once the output is written */
	struct obs_mx_buf out; /* one response at most */
	size_t sent;
};

struct obs_mxhttp {
	const char *prog;
	int lfd, sfd;
	char addr[80];
	struct obs_mx_src *src;
	struct client cl[OBS_MXHTTP_CLIENTS];
	struct obs_mx_buf body;	/* the last scrape's exposition */
	bool body_ok;		/* body holds a whole one, of format body_fmt, read at body_at */
	enum obs_mx_format body_fmt;
	double body_at;
	uint64_t refused; /* connections closed early: taken over, too slow, too large, malformed */
	http_parser_settings settings;
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int obs_mxhttp_parse(const char *spec, struct sockaddr_storage *ss, socklen_t *len,
		     bool *loopback, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICSERV}, *ai = NULL;
	char host[128] = "127.0.0.1", port[8];
	const char *colon = strrchr(spec, ':'), *ps = spec;
	size_t hl;
	char *end;
	long v;
	int rc;

	if (colon) {
		hl = (size_t)(colon - spec);
		if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']') {
			spec++;
			hl -= 2;
		}
		if (hl >= sizeof(host) || !hl) {
			snprintf(err, errlen, "no address before ':' (give ADDR:PORT or PORT)");
			return -EINVAL;
		}
		memcpy(host, spec, hl);
		host[hl] = '\0';
		ps = colon + 1;
	}
	errno = 0;
	v = strtol(ps, &end, 10);
	if (errno || end == ps || *end || v < 0 || v > 65535) {
		snprintf(err, errlen, "the port is not a number from 0 to 65535");
		return -EINVAL;
	}
	snprintf(port, sizeof(port), "%ld", v);
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc || !ai) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	if (ss->ss_family == AF_INET)
		*loopback = (ntohl(((struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	else
		*loopback = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)ss)->sin6_addr);
	return 0;
}

static void addr_text(const struct sockaddr_storage *ss, char *out, size_t len)
{
	ll_format_addr((const struct sockaddr *)ss, out, len);
}

/* --- requests ------------------------------------------------------------------------------- */

static int on_url(http_parser *p, const char *at, size_t n)
{
	struct client *c = p->data;

	if (c->url_len + n >= sizeof(c->url))
		n = sizeof(c->url) - 1 - c->url_len;
	memcpy(c->url + c->url_len, at, n);
	c->url_len += n;
	c->url[c->url_len] = '\0';
	return 0;
}

static int on_field(http_parser *p, const char *at, size_t n)
{
	struct client *c = p->data;

	if (c->in_value) { /* a new field after a value */
		c->field_len = 0;
		c->in_value = false;
	}
	if (c->field_len + n < sizeof(c->field)) {
		memcpy(c->field + c->field_len, at, n);
		c->field_len += n;
	} else {
		c->field_len = sizeof(c->field) - 1; /* too long to be Accept */
		c->field[0] = '\0';
	}
	c->field[c->field_len] = '\0';
	return 0;
}

static int on_value(http_parser *p, const char *at, size_t n)
{
	struct client *c = p->data;
	size_t have = strlen(c->accept);

	c->in_value = true;
	if (!strcasecmp(c->field, "accept") && have + n < sizeof(c->accept)) {
		memcpy(c->accept + have, at, n);
		c->accept[have + n] = '\0';
	}
	return 0;
}

static int on_begin(http_parser *p)
{
	struct client *c = p->data;

	c->url_len = 0;
	c->url[0] = '\0';
	c->field_len = 0;
	c->field[0] = '\0';
	c->accept[0] = '\0';
	c->in_value = false;
	return 0;
}

static void respond(struct client *c, int status, const char *reason, const char *ctype,
		       const char *body, size_t blen, bool head)
{
	char hdr[320];
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n", status,
		     reason, ctype, blen, c->close ? "Connection: close\r\n" : "");
	obs_mx_buf_put(&c->out, hdr, (size_t)n);
	if (!head)
		obs_mx_buf_put(&c->out, body, blen);
	if (c->out.err) { /* no memory for it: nothing half-said */
		obs_mx_buf_free(&c->out);
		c->close = true;
	}
}

static const char text[] = "text/plain; charset=utf-8";

/* A request that cannot be served: its status, then a close; counted. */
static void reject(struct client *c, int status, const char *reason, const char *body)
{
	c->close = true;
	c->h->refused++;
	respond(c, status, reason, text, body, strlen(body), false);
}

static void scrape(struct client *c, bool head)
{
	struct obs_mxhttp *h = c->h;
	enum obs_mx_format f = obs_mx_negotiate(c->accept[0] ? c->accept : NULL);
	char msg[128];
	int err, n;

	double now = mono();

	/* a scrape asked for within OBS_MXHTTP_REUSE_S of the last one, in its format, gets the
	 * same exposition: a client asking faster costs a copy, not a read of the maps */
	if (h->body_ok && h->body_fmt == f && now - h->body_at < OBS_MXHTTP_REUSE_S) {
		respond(c, 200, "OK", obs_mx_content_type(f), h->body.p, h->body.len, head);
		return;
	}
	h->body_ok = false;
	obs_mx_src_refused(h->src, h->refused);
	obs_mx_buf_reset(&h->body);
	err = obs_mx_src_scrape(h->src, f, &h->body);
	if (!err && h->body.len > OBS_MXHTTP_RESPONSE_MAX)
		err = -EFBIG;
	if (err) {
		n = snprintf(msg, sizeof(msg), "cannot read the BPF maps: %s\n", strerror(-err));
		if (err == -EFBIG)
			n = snprintf(msg, sizeof(msg), "the scrape is over %u bytes\n",
				     OBS_MXHTTP_RESPONSE_MAX);
		respond(c, 500, "Internal Server Error", text, msg, (size_t)n, head);
	} else {
		respond(c, 200, "OK", obs_mx_content_type(f), h->body.p, h->body.len, head);
		h->body_ok = true;
		h->body_fmt = f;
		h->body_at = now;
	}
	if (h->body.cap > (1u << 20)) { /* an unusually large scrape: its buffer is not kept */
		obs_mx_buf_free(&h->body);
		h->body_ok = false;
	}
}

static int on_complete(http_parser *p)
{
	struct client *c = p->data;
	bool head = p->method == HTTP_HEAD;
	char *q = strchr(c->url, '?');
	static const char index[] = "loadlens-observer: metrics at /metrics\n";

	if (q)
		*q = '\0';
	c->close = !http_should_keep_alive(p);
	if (p->method != HTTP_GET && !head)
		respond(c, 405, "Method Not Allowed", text, "GET or HEAD only\n", 17, false);
	else if (!strcmp(c->url, "/"))
		respond(c, 200, "OK", text, index, sizeof(index) - 1, head);
	else if (strcmp(c->url, "/metrics"))
		respond(c, 404, "Not Found", text, "not found; try /metrics\n", 24, head);
	else if (!c->h->src)
		respond(c, 503, "Service Unavailable", text, "starting\n", 9, head);
	else
		scrape(c, head);
	http_parser_pause(p, 1); /* one response in flight: the next request waits for it */
	return 0;
}

/* --- connections ---------------------------------------------------------------------------- */

static void metrics_http_close(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	obs_mx_buf_free(&c->out);
	c->sent = 0;
	c->inlen = 0;
}

/* The connection a new one takes the place of when all are taken: the one waiting longest
 * without a response in flight, else the one whose response has waited longest. */
static struct client *victim(struct obs_mxhttp *h)
{
	struct client *v = NULL, *c;
	size_t i;

	for (i = 0; i < OBS_MXHTTP_CLIENTS; i++) {
		c = &h->cl[i];
		if (!v || (c->st != RESP && v->st == RESP) ||
		    ((c->st == RESP) == (v->st == RESP) && c->since < v->since))
			v = c;
	}
	return v;
}

/* Parse what was read, one request at a time: stops at a response to write. */
static void parse(struct client *c, double now)
{
	struct obs_mxhttp *h = c->h;
	size_t feed, done;
	enum http_errno e;

	while (c->inlen && c->st != RESP && !c->close) {
		if (c->st == IDLE) { /* a request's first byte: its deadline starts */
			c->st = REQ;
			c->since = now;
		}
		/* never more than the limit of one request: a longer one cannot complete */
		feed = OBS_MXHTTP_REQUEST_MAX - c->req;
		if (feed > c->inlen)
			feed = c->inlen;
		done = http_parser_execute(&c->p, &h->settings, c->in, feed);
		e = HTTP_PARSER_ERRNO(&c->p);
		memmove(c->in, c->in + done, c->inlen - done);
		c->inlen -= done;
		if (e == HPE_PAUSED) { /* a request complete, its response in c->out */
			http_parser_pause(&c->p, 0);
			c->req = 0;
			c->st = RESP;
			c->since = now;
		} else if (e != HPE_OK || done != feed) {
			reject(c, 400, "Bad Request", "bad request\n");
		} else if ((c->req += done) >= OBS_MXHTTP_REQUEST_MAX) {
			reject(c, 431, "Request Header Fields Too Large",
				  "the request is over 8192 bytes\n");
		}
		if (c->close && c->st != RESP) {
			c->st = RESP;
			c->since = now;
		}
	}
}

/* Write the response in flight; false when the connection is done with. */
static bool flush(struct client *c, double now)
{
	ssize_t n;

	while (c->sent < c->out.len) {
		n = send(c->fd, c->out.p + c->sent, c->out.len - c->sent, MSG_NOSIGNAL);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->sent += (size_t)n;
	}
	obs_mx_buf_free(&c->out); /* an idle connection holds no buffer */
	c->sent = 0;
	if (c->close)
		return false;
	c->st = IDLE;
	c->since = now;
	return true;
}

/* Read into the input buffer, while no response is in flight; false on EOF or an error. */
static bool metrics_http_read(struct client *c)
{
	ssize_t n;

	n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return false;
	if (n > 0)
		c->inlen += (size_t)n;
	return true;
}

/* Past its state's deadline: closed (a request or response cut short is counted). */
static bool expired(struct client *c, double now)
{
	static const double limit[] = {
		[IDLE] = OBS_MXHTTP_IDLE_S,
		[REQ] = OBS_MXHTTP_HEADER_S,
		[RESP] = OBS_MXHTTP_WRITE_S,
	};

	if (now - c->since <= limit[c->st])
		return false;
	if (c->st != IDLE)
		c->h->refused++;
	return true;
}

/* One connection's turn after poll: read, parse, write, deadlines. */
static void serve(struct client *c, short revents, double now)
{
	bool keep = true;

	if (revents & POLLERR)
		keep = false;
	else if ((revents & (POLLIN | POLLHUP)) && c->st != RESP)
		keep = metrics_http_read(c);
	if (keep)
		parse(c, now);
	if (keep && c->st == RESP) {
		keep = flush(c, now);
		/* a pipelined request, now that the one before is answered; its answer goes out on
		 * the next pass, so that each connection gets one response per pass, in turn */
		if (keep && c->st != RESP)
			parse(c, now);
	}
	if (keep && expired(c, now))
		keep = false;
	if (!keep)
		metrics_http_close(c);
}

static void metrics_http_accept(struct obs_mxhttp *h)
{
	struct client *c = NULL;
	size_t i;
	int fd;

	for (;;) {
		fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		for (i = 0, c = NULL; i < OBS_MXHTTP_CLIENTS && !c; i++)
			if (h->cl[i].fd < 0)
				c = &h->cl[i];
		if (!c) {
			c = victim(h);
			h->refused++;
			metrics_http_close(c);
		}
		c->fd = fd;
		c->st = IDLE;
		c->since = mono();
		c->req = 0;
		c->inlen = 0;
		c->close = false;
		http_parser_init(&c->p, HTTP_REQUEST);
		c->p.data = c;
		c->h = h;
		/* its request is likely in already: answered now, not a pass later (passes can be a
		 * tick apart when ticks overrun) */
		serve(c, POLLIN, c->since);
	}
}

struct obs_mxhttp *obs_mxhttp_new(const char *prog, const char *spec)
{
	struct sockaddr_storage ss;
	struct obs_mxhttp *h;
	socklen_t len;
	char why[160];
	bool loop;
	int one = 1, err;
	size_t i;

	if (obs_mxhttp_parse(spec, &ss, &len, &loop, why, sizeof(why))) {
		ll_warn(prog, "invalid --metrics '%s': %s", spec, why);
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->prog = prog;
	h->sfd = -1;
	for (i = 0; i < OBS_MXHTTP_CLIENTS; i++)
		h->cl[i].fd = -1;
	h->settings.on_message_begin = on_begin;
	h->settings.on_url = on_url;
	h->settings.on_header_field = on_field;
	h->settings.on_header_value = on_value;
	h->settings.on_message_complete = on_complete;
	h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->lfd < 0 || setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(h->lfd, (struct sockaddr *)&ss, len) || listen(h->lfd, 64)) {
		err = errno;
		ll_warn(prog, "cannot listen on --metrics %s: %s", spec, strerror(err));
		obs_mxhttp_free(h);
		errno = err;
		return NULL;
	}
	len = sizeof(ss);
	getsockname(h->lfd, (struct sockaddr *)&ss, &len);
	addr_text(&ss, h->addr, sizeof(h->addr));
	if (!loop)
		ll_warn(prog, "note: --metrics serves %s, not a loopback address: whoever reaches it "
			      "reads the metrics", h->addr);
	return h;
}

void obs_mxhttp_free(struct obs_mxhttp *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < OBS_MXHTTP_CLIENTS; i++) {
		metrics_http_close(&h->cl[i]);
		obs_mx_buf_free(&h->cl[i].out);
	}
	obs_mx_buf_free(&h->body);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->sfd >= 0)
		close(h->sfd);
	free(h);
}

void obs_mxhttp_set_src(struct obs_mxhttp *h, struct obs_mx_src *src)
{
	h->src = src;
}

const char *obs_mxhttp_addr(const struct obs_mxhttp *h)
{
	return h->addr;
}

bool obs_mxhttp_wait(struct obs_mxhttp *h, const sigset_t *set, uint64_t until)
{
	struct pollfd pf[2 + OBS_MXHTTP_CLIENTS];
	struct client *map[2 + OBS_MXHTTP_CLIENTS], *c;
	struct signalfd_siginfo si;
	struct timespec ts;
	uint64_t now;
	int timeout, n, rc;
	short ev;
	size_t i;

	if (h->sfd < 0) {
		h->sfd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);
		if (h->sfd < 0)
			ll_warn(h->prog, "cannot wait for signals with the endpoint: %s",
				strerror(errno));
	}
	/* at least one pass, even past until: a tick that overran its interval must not starve
	 * the signals or the scrapes */
	for (bool first = true;; first = false) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		if (until && now >= until && !first)
			return false;
		timeout = !until ? 250 : now >= until ? 0 : (int)((until - now + 999999) / 1000000);
		if (timeout > 250)
			timeout = 250; /* deadlines are checked four times a second */
		n = 0;
		pf[n++] = (struct pollfd){.fd = h->sfd, .events = POLLIN};
		pf[n++] = (struct pollfd){.fd = h->lfd, .events = POLLIN};
		for (i = 0; i < OBS_MXHTTP_CLIENTS; i++) {
			c = &h->cl[i];
			if (c->fd < 0)
				continue;
			/* one response in flight: a connection is read only when it has none,
			 * and written only while it has one */
			ev = c->st == RESP ? POLLOUT : c->inlen < sizeof(c->in) ? POLLIN : 0;
			map[n] = c;
			pf[n++] = (struct pollfd){.fd = c->fd, .events = ev};
		}
		rc = poll(pf, (nfds_t)n, timeout);
		if (rc < 0 && errno != EINTR)
			return false;
		if (rc > 0 && (pf[0].revents & POLLIN) &&
		    read(h->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			return true;
		if (h->sfd < 0 && sigtimedwait(set, NULL, &(struct timespec){0, 0}) > 0)
			return true;
		/* the connections first: a new one may take the place of one of them */
		for (i = 2; i < (size_t)n; i++)
			serve(map[i], rc > 0 ? pf[i].revents : 0, mono());
		if (rc > 0 && (pf[1].revents & POLLIN))
			metrics_http_accept(h);
		if (h->src)
			obs_mx_src_refused(h->src, h->refused);
	}
}
