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
#include "metrics_http.h"
#include "metrics_src.h"

struct x__client {
	int fd;
	http_parser p;
	double last; /* monotonic s of the last byte in or out */
	size_t in;   /* request bytes parsed since the last complete request */
	char url[256];
	size_t url_len;
	char field[32];
	size_t field_len;
	bool in_value; /* a header value is being read */
	char accept[256];
	struct obs_mxhttp *h;
	bool done, close; /* close once the output is written */
	struct obs_mx_buf out;
	size_t sent;
};

struct obs_mxhttp {
	const char *prog;
	int lfd, sfd;
	char addr[80];
	struct obs_mx_src *src;
	struct x__client cl[OBS_MXHTTP_CLIENTS];
	struct obs_mx_buf body;
	uint64_t refused;
	http_parser_settings settings;
};

static double x__mono(void)
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

static void x__addr_text(const struct sockaddr_storage *ss, char *out, size_t len)
{
	ll_format_addr((const struct sockaddr *)ss, out, len);
}

/* --- requests ------------------------------------------------------------------------------- */

static int x__on_url(http_parser *p, const char *at, size_t n)
{
	struct x__client *c = p->data;

	if (c->url_len + n >= sizeof(c->url))
		n = sizeof(c->url) - 1 - c->url_len;
	memcpy(c->url + c->url_len, at, n);
	c->url_len += n;
	c->url[c->url_len] = '\0';
	return 0;
}

static int x__on_field(http_parser *p, const char *at, size_t n)
{
	struct x__client *c = p->data;

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

static int x__on_value(http_parser *p, const char *at, size_t n)
{
	struct x__client *c = p->data;
	size_t have = strlen(c->accept);

	c->in_value = true;
	if (!strcasecmp(c->field, "accept") && have + n < sizeof(c->accept)) {
		memcpy(c->accept + have, at, n);
		c->accept[have + n] = '\0';
	}
	return 0;
}

static int x__on_begin(http_parser *p)
{
	struct x__client *c = p->data;

	c->url_len = 0;
	c->url[0] = '\0';
	c->field_len = 0;
	c->field[0] = '\0';
	c->accept[0] = '\0';
	c->in_value = false;
	return 0;
}

static void x__respond(struct x__client *c, int status, const char *reason, const char *ctype,
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
}

static int x__on_complete(http_parser *p)
{
	struct x__client *c = p->data;
	struct obs_mxhttp *h = c->h;
	bool head = p->method == HTTP_HEAD;
	enum obs_mx_format f;
	char *q = strchr(c->url, '?');
	static const char text[] = "text/plain; charset=utf-8";
	static const char index[] = "loadlens-observer: metrics at /metrics\n";
	int err;

	if (q)
		*q = '\0';
	c->in = 0;
	c->close = !http_should_keep_alive(p);
	if (p->method != HTTP_GET && !head) {
		x__respond(c, 405, "Method Not Allowed", text, "GET or HEAD only\n", 17, false);
	} else if (!strcmp(c->url, "/")) {
		x__respond(c, 200, "OK", text, index, sizeof(index) - 1, head);
	} else if (strcmp(c->url, "/metrics")) {
		x__respond(c, 404, "Not Found", text, "not found; try /metrics\n", 24, head);
	} else if (!h->src) {
		x__respond(c, 503, "Service Unavailable", text, "starting\n", 9, head);
	} else {
		f = obs_mx_negotiate(c->accept[0] ? c->accept : NULL);
		err = obs_mx_src_scrape(h->src, f, &h->body);
		if (err) {
			char msg[128];
			int n = snprintf(msg, sizeof(msg), "cannot read the BPF maps: %s\n",
					 strerror(-err));

			x__respond(c, 500, "Internal Server Error", text, msg, (size_t)n, head);
		} else {
			x__respond(c, 200, "OK", obs_mx_content_type(f), h->body.p, h->body.len,
				   head);
		}
	}
	if (c->close)
		http_parser_pause(p, 1); /* nothing after a request that closes */
	return 0;
}

/* --- connections ---------------------------------------------------------------------------- */

static void x__close(struct x__client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	obs_mx_buf_reset(&c->out);
	c->sent = 0;
}

static void x__accept(struct obs_mxhttp *h)
{
	struct x__client *c = NULL;
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
			h->refused++;
			close(fd);
			continue;
		}
		c->fd = fd;
		c->last = x__mono();
		c->in = 0;
		c->close = false;
		http_parser_init(&c->p, HTTP_REQUEST);
		c->p.data = c;
		c->h = h;
	}
}

/* Write what is pending; false when the connection is done with. */
static bool x__flush(struct x__client *c)
{
	ssize_t n;

	while (c->sent < c->out.len) {
		n = write(c->fd, c->out.p + c->sent, c->out.len - c->sent);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->sent += (size_t)n;
		c->last = x__mono();
	}
	obs_mx_buf_reset(&c->out);
	c->sent = 0;
	return !c->close;
}

static bool x__read(struct obs_mxhttp *h, struct x__client *c)
{
	char buf[4096];
	size_t done;
	ssize_t n;

	n = read(c->fd, buf, sizeof(buf));
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return false;
	if (n < 0)
		return true;
	c->last = x__mono();
	if (c->close)
		return true; /* past a request that closes: ignored */
	done = http_parser_execute(&c->p, &h->settings, buf, (size_t)n);
	c->in += (size_t)n;
	if (HTTP_PARSER_ERRNO(&c->p) == HPE_PAUSED)
		return true;
	if (done != (size_t)n || HTTP_PARSER_ERRNO(&c->p) != HPE_OK ||
	    c->in > OBS_MXHTTP_REQUEST_MAX) {
		c->close = true;
		x__respond(c, 400, "Bad Request", "text/plain; charset=utf-8", "bad request\n", 12,
			   false);
	}
	return true;
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
	h->settings.on_message_begin = x__on_begin;
	h->settings.on_url = x__on_url;
	h->settings.on_header_field = x__on_field;
	h->settings.on_header_value = x__on_value;
	h->settings.on_message_complete = x__on_complete;
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
	x__addr_text(&ss, h->addr, sizeof(h->addr));
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
		x__close(&h->cl[i]);
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
	struct x__client *map[2 + OBS_MXHTTP_CLIENTS];
	struct signalfd_siginfo si;
	struct timespec ts;
	uint64_t now;
	int timeout, n, rc;
	size_t i;
	double t;

	if (h->sfd < 0) {
		h->sfd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);
		if (h->sfd < 0)
			ll_warn(h->prog, "cannot wait for signals with the endpoint: %s",
				strerror(errno));
	}
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		if (until && now >= until)
			return false;
		timeout = until ? (int)((until - now + 999999) / 1000000) : 1000;
		if (timeout > 1000)
			timeout = 1000; /* idle connections are checked once a second */
		n = 0;
		pf[n++] = (struct pollfd){.fd = h->sfd, .events = POLLIN};
		pf[n++] = (struct pollfd){.fd = h->lfd, .events = POLLIN};
		for (i = 0; i < OBS_MXHTTP_CLIENTS; i++) {
			if (h->cl[i].fd < 0)
				continue;
			map[n] = &h->cl[i];
			pf[n++] = (struct pollfd){.fd = h->cl[i].fd,
						  .events = (short)(POLLIN | (h->cl[i].out.len ?
									      POLLOUT : 0))};
		}
		rc = poll(pf, (nfds_t)n, timeout);
		if (rc < 0 && errno != EINTR)
			return false;
		if (rc > 0 && (pf[0].revents & POLLIN) &&
		    read(h->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			return true;
		if (h->sfd < 0 && sigtimedwait(set, NULL, &(struct timespec){0, 0}) > 0)
			return true;
		if (rc > 0 && (pf[1].revents & POLLIN))
			x__accept(h);
		t = x__mono();
		for (i = 2; i < (size_t)n; i++) {
			struct x__client *c = map[i];
			bool keep = true;

			if (rc > 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				keep = x__read(h, c);
			if (keep && c->out.len)
				keep = x__flush(c);
			if (keep && !c->out.len && t - c->last > OBS_MXHTTP_IDLE_S)
				keep = false;
			if (!keep)
				x__close(c);
		}
		if (h->src)
			obs_mx_src_refused(h->src, h->refused);
	}
}
