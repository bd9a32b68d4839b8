// SPDX-License-Identifier: MIT
/*
 * http:// and https:// through libcurl's multi_socket API on the worker's libuv loop
 * (--http-engine curl, https://, --http2). HTTP/1.1 unless --http2: h2 via ALPN over TLS, or
 * prior-knowledge h2c over http://. One CURLM per thread, one reused easy handle per slot (so
 * keep-alive connections stay in the multi's cache), a uv_poll_t per socket curl asks us to
 * watch, and one uv_timer_t for curl's timeout. Rules: a poll error goes to curl as
 * CURL_CSELECT_ERR, curl_multi_info_read is drained after every socket_action, CURLOPT_NOSIGNAL
 * is set, and every return is checked.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <openssl/x509.h>
#include <uv.h>
#include "config/config.h"
#include "loadlens/dlist.h"
#include "base/drv.h"
#include "http/http_curl_codes.h"
#include "http/http_engine.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"
#include "scheduling/worker.h"

struct curl_thread;

struct curl_slot {
	struct drv_slot base;
	CURL *easy;
	struct curl_thread *ct;
	bool added;
	uint64_t on_conn;
	char errbuf[CURL_ERROR_SIZE]; /* CURLOPT_ERRORBUFFER: a failed transfer's words */
};

/* A socket curl asked us to watch. */
struct curl_sock {
	uv_poll_t poll;
	curl_socket_t fd;
	struct curl_thread *ct;
	struct curl_sock *next, *prev;
};

struct curl_thread {
	struct drv_worker *w;
	CURLM *multi;
	uv_timer_t timeout;
	bool has_timeout;
	struct curl_sock *socks;
	struct curl_slist *headers;
	struct curl_slist *resolve; /* HOST:PORT:ADDR, the address config resolved, or NULL */
	char url[LL_HOST_MAX + LL_PATH_MAX + 32];
};

static inline struct drv_stats *proto_curl_st(struct curl_slot *s)
{
	return drv_worker_stats(s->base.w, &s->base.ticket);
}

/*
 * Connections this transfer opened: counted as established once usable (for https: the TLS
 * handshake done), with their connect latency from the transfer's start: to the TCP connect for
 * http://, to the end of the TLS handshake for https://.
 */
static void connects(struct curl_thread *ct, struct curl_slot *s, CURL *easy, CURLcode rc,
			struct drv_stats *st)
{
	bool tls = ct->w->cfg->url.scheme == LL_SCHEME_HTTPS;
	curl_off_t conn_us = 0;
	long nconn = 0;

	if (curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &nconn) != CURLE_OK)
		nconn = 0;
	if (nconn <= 0 && rc == CURLE_COULDNT_CONNECT)
		st->connect_attempts++; /* refused or unreachable: curl counts no connection */
	if (nconn <= 0)
		return;
	st->connect_attempts += (uint64_t)nconn;
	s->on_conn = 0;
	if (rc != CURLE_OK && (rc <= CURLE_COULDNT_CONNECT || rc == CURLE_SSL_CONNECT_ERROR ||
			       drv_curl_error(easy, rc) == DRV_E_TLS))
		return; /* never usable */
	if (curl_easy_getinfo(easy, tls ? CURLINFO_APPCONNECT_TIME_T : CURLINFO_CONNECT_TIME_T,
			      &conn_us) != CURLE_OK)
		conn_us = 0;
	if (rc != CURLE_OK && conn_us <= 0)
		return; /* failed before the connection was ready (a timeout mid-handshake) */
	drv_counter_add(&st->connections, (uint64_t)nconn);
	ll_hist_record(st->connect, (uint64_t)conn_us * 1000);
}

/*
 * Why a transfer's TLS negotiation failed: the certificate's verification in OpenSSL's words (as
 * the native engine says it), else libcurl's error buffer (a host name mismatch, OpenSSL's
 * "wrong version number"), else rc's text. A result of 1 (X509_V_ERR_UNSPECIFIED) is what
 * libcurl leaves when no certificate was verified.
 */
static const char *negotiation_why(struct curl_slot *s, CURLcode rc)
{
	long v = 0;

	if (curl_easy_getinfo(s->easy, CURLINFO_SSL_VERIFYRESULT, &v) == CURLE_OK &&
	    v != X509_V_OK && v != X509_V_ERR_UNSPECIFIED)
		return X509_verify_cert_error_string(v);
	return s->errbuf[0] ? s->errbuf : curl_easy_strerror(rc);
}

static void done(struct curl_thread *ct, CURL *easy, CURLcode rc)
{
	struct drv_worker *w = ct->w;
	struct curl_slot *s = NULL;
	struct drv_stats *st;
	curl_off_t up = 0, down = 0;
	long code = 0, hdr = 0, ver = 0;
	struct drv_timing_reply r;

	if (curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&s) != CURLE_OK || !s)
		return;
	if (curl_multi_remove_handle(ct->multi, easy) == CURLM_OK)
		s->added = false;
	st = proto_curl_st(s);
	connects(ct, s, easy, rc, st);
	if (curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &hdr) == CURLE_OK)
		st->bytes_sent += (uint64_t)hdr;
	if (curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &up) == CURLE_OK)
		st->bytes_sent += (uint64_t)up;
	if (curl_easy_getinfo(easy, CURLINFO_HEADER_SIZE, &hdr) == CURLE_OK)
		st->bytes_received += (uint64_t)hdr;
	if (curl_easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &down) == CURLE_OK)
		st->bytes_received += (uint64_t)down;
	if (rc != CURLE_OK) { /* the next attempt from the loop, not from inside curl's callbacks */
		int err = drv_curl_error(easy, rc);

		if (drv_failfast_err(err))
			drv_worker_why(w, negotiation_why(s, rc));
		drv_slot_fail(&s->base, err,
			      rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST);
		drv_slot_retry(&s->base);
		return;
	}
	drv_slot_connected(&s->base);
	s->on_conn++;
	/* sent with CURLOPT_FORBID_REUSE: its connection is closed, the next request opens one */
	if (w->cfg->reconnect_every && s->on_conn >= w->cfg->reconnect_every)
		s->on_conn = 0;
	r = drv_timing_reply_init(s->base.t_send, drv_timing_reply_at(s->base.t_send, 0));
	drv_slot_resolved(&s->base);
	if (curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK)
		code = 0;
	r.status = code >= 0 && code < DRV_STATUS_MAX ? (int)code : 0;
	if (curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &ver) == CURLE_OK)
		r.httpv = drv_curl_httpv(ver);
	r.err = code < 200 || code > 299 ? DRV_E_HTTP_STATUS : 0;
	drv_timing_record(w, &s->base.ticket, &r);
	drv_slot_retry(&s->base);
}

/* Drain finished transfers: after every curl_multi_socket_action. */
static void drain(struct curl_thread *ct)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(ct->multi, &left)))
		if (m->msg == CURLMSG_DONE)
			done(ct, m->easy_handle, m->data.result);
}

static void action(struct curl_thread *ct, curl_socket_t fd, int flags)
{
	int running = 0;
	CURLMcode rc = curl_multi_socket_action(ct->multi, fd, flags, &running);

	if (rc != CURLM_OK && rc != CURLM_BAD_SOCKET)
		drv_stats_error(&ct->w->stats, -EIO);
	drain(ct);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
	struct curl_sock *cs = container_of(p, struct curl_sock, poll);
	int flags = 0;

	if (status < 0)
		flags = CURL_CSELECT_ERR;
	else {
		if (events & UV_READABLE)
			flags |= CURL_CSELECT_IN;
		if (events & UV_WRITABLE)
			flags |= CURL_CSELECT_OUT;
	}
	action(cs->ct, cs->fd, flags);
}

static void on_timeout(uv_timer_t *t)
{
	action(container_of(t, struct curl_thread, timeout), CURL_SOCKET_TIMEOUT, 0);
}

static int timer_cb(CURLM *multi, long ms, void *userp)
{
	struct curl_thread *ct = userp;

	if (ms < 0)
		uv_timer_stop(&ct->timeout);
	else
		uv_timer_start(&ct->timeout, on_timeout, (uint64_t)ms, 0);
	return 0;
}

static void sock_closed(uv_handle_t *h)
{
	free(container_of((uv_poll_t *)h, struct curl_sock, poll));
}

static void sock_close(struct curl_thread *ct, struct curl_sock *cs)
{
	LL_DLIST_UNLINK(&ct->socks, cs, prev, next);
	uv_close((uv_handle_t *)&cs->poll, sock_closed);
}

static int socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct curl_thread *ct = userp;
	struct curl_sock *cs = socketp;
	int events = 0;

	if (what == CURL_POLL_REMOVE) {
		if (cs) {
			(void)curl_multi_assign(ct->multi, fd, NULL);
			sock_close(ct, cs);
		}
		return 0;
	}
	if (!cs) {
		cs = calloc(1, sizeof(*cs));
		if (!cs)
			return -1;
		cs->fd = fd;
		cs->ct = ct;
		if (uv_poll_init_socket(&ct->w->loop, &cs->poll, fd)) {
			free(cs);
			return -1;
		}
		cs->next = ct->socks;
		if (ct->socks)
			ct->socks->prev = cs;
		ct->socks = cs;
		if (curl_multi_assign(ct->multi, fd, cs) != CURLM_OK) {
			sock_close(ct, cs);
			return -1;
		}
	}
	if (what & CURL_POLL_IN)
		events |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		events |= UV_WRITABLE;
	return uv_poll_start(&cs->poll, events, on_poll) ? -1 : 0;
}

static void slot_go(struct drv_slot *b)
{
	struct curl_slot *s = container_of(b, struct curl_slot, base);
	struct curl_thread *ct = s->ct;
	const struct drv_config *cfg = b->w->cfg;
	long last;

	/* the last request on its connection: curl closes it after the response */
	last = cfg->reconnect_every && s->on_conn + 1 >= cfg->reconnect_every;
	if (curl_easy_setopt(s->easy, CURLOPT_FORBID_REUSE, last) != CURLE_OK ||
	    curl_multi_add_handle(ct->multi, s->easy) != CURLM_OK) {
		drv_slot_fail(b, -EIO, false);
		b->delay_ms = DRV_SLOT_RESOURCE_MS;
		drv_slot_retry(b);
		return;
	}
	s->added = true;
	drv_timing_send(b, 0); /* libcurl keeps the --timeout (CURLOPT_TIMEOUT_MS) */
	/* curl's timer callback kicks the transfer off from the loop */
}

static size_t sink(char *p, size_t size, size_t n, void *userp)
{
	return size * n;
}

/*
 * The HTTP version asked for. Without --http2 it is HTTP/1.1 even over TLS (libcurl's default
 * there is to offer h2).
 */
static long version(const struct drv_config *cfg)
{
	if (!cfg->http2)
		return CURL_HTTP_VERSION_1_1;
	return cfg->url.scheme == LL_SCHEME_HTTPS ? CURL_HTTP_VERSION_2TLS
						  : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
}

static int easy_setup(struct curl_thread *ct, struct curl_slot *s)
{
	const struct drv_config *cfg = ct->w->cfg;
	CURL *e = s->easy;
	int bad = 0;

	bad |= curl_easy_setopt(e, CURLOPT_URL, ct->url) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)s) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->errbuf) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(cfg->timeout_ns / 1000000)) !=
	       CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
				(long)(cfg->timeout_ns / 1000000)) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, cfg->method) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, ct->headers) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTP_VERSION, version(cfg)) != CURLE_OK;
	if (ct->resolve)
		bad |= curl_easy_setopt(e, CURLOPT_RESOLVE, ct->resolve) != CURLE_OK;
	if (cfg->url.scheme == LL_SCHEME_HTTPS) {
		/* the TLS session cache (per easy handle) stays on: a reconnect resumes */
		bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, cfg->insecure ? 0L : 1L) !=
		       CURLE_OK;
		bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, cfg->insecure ? 0L : 2L) !=
		       CURLE_OK;
		if (cfg->cacert) { /* from memory: the file may be out of reach after the drop */
			struct curl_blob ca = {.data = cfg->cacert_pem, .len = cfg->cacert_len,
					       .flags = CURL_BLOB_NOCOPY};

			bad |= curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca) != CURLE_OK;
		}
	}
	if (!strcmp(cfg->method, "HEAD"))
		bad |= curl_easy_setopt(e, CURLOPT_NOBODY, 1L) != CURLE_OK;
	if (cfg->body_len) {
		bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)cfg->body_len) !=
		       CURLE_OK;
		bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDS, cfg->body) != CURLE_OK;
	}
	/* the body is counted by curl (CURLINFO_SIZE_DOWNLOAD_T) and dropped */
	bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, sink) != CURLE_OK;
	return bad ? -EINVAL : 0;
}

static int proto_curl_headers(struct curl_thread *ct, const struct drv_config *cfg)
{
	struct curl_slist *l;
	unsigned i;

	/* no "Expect: 100-continue" round trip for bodies */
	ct->headers = curl_slist_append(NULL, "Expect:");
	if (!ct->headers)
		return -ENOMEM;
	if (cfg->http_close) {
		l = curl_slist_append(ct->headers, "Connection: close");
		if (!l)
			return -ENOMEM;
		ct->headers = l;
	}
	for (i = 0; i < cfg->nheaders; i++) {
		l = curl_slist_append(ct->headers, cfg->headers[i]);
		if (!l)
			return -ENOMEM;
		ct->headers = l;
	}
	return 0;
}

/*
 * --http2: requests are h2 streams, but a slot keeps one in flight and a connection carries one
 * stream at a time (MAX_CONCURRENT_STREAMS 1), so a new transfer takes an idle connection and
 * -c slots use -c connections, as with HTTP/1.1 keep-alive.
 */
static int multiplex(struct curl_thread *ct, const struct drv_config *cfg)
{
	long pipe = cfg->http2 ? CURLPIPE_MULTIPLEX : CURLPIPE_NOTHING;

	if (curl_multi_setopt(ct->multi, CURLMOPT_PIPELINING, pipe) != CURLM_OK)
		return -EINVAL;
	if (cfg->http2 &&
	    curl_multi_setopt(ct->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1L) != CURLM_OK)
		return -EINVAL;
	return 0;
}

/*
 * A host name goes to the address the configuration resolved (as the native engines connect),
 * while TLS still sends and verifies the name: no lookup per connection.
 */
static int proto_curl_resolve(struct curl_thread *ct, const struct drv_config *cfg)
{
	const struct sockaddr *sa = (const struct sockaddr *)&cfg->addr;
	char ip[INET6_ADDRSTRLEN], buf[LL_HOST_MAX + INET6_ADDRSTRLEN + 16];
	unsigned char tmp[sizeof(struct in6_addr)];
	const void *a;

	if (inet_pton(AF_INET, cfg->url.host, tmp) == 1 ||
	    inet_pton(AF_INET6, cfg->url.host, tmp) == 1)
		return 0; /* numeric: nothing to resolve */
	if (sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	else
		return -EINVAL;
	if (!inet_ntop(sa->sa_family, a, ip, sizeof(ip)))
		return -EINVAL;
	snprintf(buf, sizeof(buf), sa->sa_family == AF_INET6 ? "%s:%u:[%s]" : "%s:%u:%s",
		 cfg->url.host, cfg->url.port, ip);
	ct->resolve = curl_slist_append(NULL, buf);
	return ct->resolve ? 0 : -ENOMEM;
}

/* The slot operations (slot.h): one reused easy handle per slot. */

static int slot_init(struct drv_slot *b)
{
	struct curl_slot *s = container_of(b, struct curl_slot, base);

	s->ct = b->w->proto_data;
	s->easy = curl_easy_init();
	if (!s->easy)
		return -ENOMEM;
	return easy_setup(s->ct, s);
}

static void slot_stop(struct drv_slot *b)
{
	struct curl_slot *s = container_of(b, struct curl_slot, base);

	if (s->added && curl_multi_remove_handle(s->ct->multi, s->easy) == CURLM_OK)
		s->added = false;
}

static void slot_release(struct drv_slot *b)
{
	curl_easy_cleanup(container_of(b, struct curl_slot, base)->easy);
}

/* no expire: curl enforces CURLOPT_TIMEOUT_MS itself */
static const struct drv_slot_ops slot_ops = {
	.size = sizeof(struct curl_slot), .init = slot_init, .go = slot_go,
	.finish = drv_slot_done, .stop = slot_stop, .release = slot_release,
};

/* The thread's part: the multi handle, its sockets and timer, headers, the pinned address. */

static int init(struct drv_worker *w)
{
	const struct drv_config *cfg = w->cfg;
	bool v6 = strchr(cfg->url.host, ':') != NULL;
	struct curl_thread *ct;
	int err;

	ct = calloc(1, sizeof(*ct));
	if (!ct)
		return -ENOMEM;
	ct->w = w;
	w->proto_data = ct; /* from here on, stop() and fini() undo what was done */
	snprintf(ct->url, sizeof(ct->url), "%s://%s%s%s:%u%s", ll_scheme_name(cfg->url.scheme),
		 v6 ? "[" : "", cfg->url.host, v6 ? "]" : "", cfg->url.port, cfg->url.path);
	ct->multi = curl_multi_init();
	if (!ct->multi)
		return -ENOMEM;
	err = proto_curl_headers(ct, cfg);
	if (!err)
		err = proto_curl_resolve(ct, cfg);
	if (err)
		return err;
	if (curl_multi_setopt(ct->multi, CURLMOPT_SOCKETFUNCTION, socket_cb) != CURLM_OK ||
	    curl_multi_setopt(ct->multi, CURLMOPT_SOCKETDATA, ct) != CURLM_OK ||
	    curl_multi_setopt(ct->multi, CURLMOPT_TIMERFUNCTION, timer_cb) != CURLM_OK ||
	    curl_multi_setopt(ct->multi, CURLMOPT_TIMERDATA, ct) != CURLM_OK ||
	    curl_multi_setopt(ct->multi, CURLMOPT_MAXCONNECTS, (long)w->nslots + 1) != CURLM_OK ||
	    multiplex(ct, cfg))
		return -EINVAL;
	err = uv_timer_init(&w->loop, &ct->timeout);
	if (err)
		return err;
	ct->has_timeout = true;
	return 0;
}

/* After every slot's stop (their handles removed from the multi). */
static void stop(struct drv_worker *w)
{
	struct curl_thread *ct = w->proto_data;

	/* closes the cached connections; curl reports each socket removed first */
	if (ct->multi)
		curl_multi_cleanup(ct->multi);
	ct->multi = NULL;
	while (ct->socks)
		sock_close(ct, ct->socks);
	if (ct->has_timeout)
		uv_close((uv_handle_t *)&ct->timeout, NULL);
	ct->has_timeout = false;
}

static void fini(struct drv_worker *w)
{
	struct curl_thread *ct = w->proto_data;

	w->proto_data = NULL;
	if (!ct)
		return;
	if (ct->multi)
		curl_multi_cleanup(ct->multi);
	curl_slist_free_all(ct->resolve);
	curl_slist_free_all(ct->headers);
	free(ct);
}

static int global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -EIO;
}

static void global_fini(void)
{
	curl_global_cleanup();
}

const struct drv_proto drv_proto_http_curl = {
	.name = "http", .init = init, .slot = &slot_ops, .stop = stop, .fini = fini,
	.global_init = global_init, .global_fini = global_fini,
};
