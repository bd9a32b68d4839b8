// SPDX-License-Identifier: MIT
/*
 * Workers: one thread, one loop and one SO_REUSEPORT socket each. TCP connections are accepted
 * with accept4() on a uv_poll_t rather than uv_listen(): libuv 1.44 sheds EMFILE internally
 * without telling the callback, and we must count every failed accept. We shed it the same way
 * (a spare fd is closed, the pending connection accepted and closed, the spare reopened), count
 * it, and back off for RS_ACCEPT_RETRY_MS when even that fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loadlens/uv_loop.h"
#include "refserver.h"

static int worker_socket(const struct rs_config *cfg, bool reuseport, int *out)
{
	int type = cfg->proto == RS_PROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
	int one = 1, fd, err;

	fd = socket(cfg->addr.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (type == SOCK_STREAM &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		goto fail;
	if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		goto fail;
	if (bind(fd, (const struct sockaddr *)&cfg->addr, cfg->addrlen) < 0)
		goto fail;
	*out = fd;
	return 0;

fail:
	err = -errno;
	close(fd);
	return err;
}

/*
 * SO_REUSEPORT would let us share a port with another server of the same user: check that no
 * one holds it before binding our group of sockets.
 */
int rs_probe_port_free(const struct rs_config *cfg)
{
	int fd = -1, err;

	err = worker_socket(cfg, false, &fd);
	if (err)
		return err;
	close(fd);
	return 0;
}

int rs_listen_socket(const struct rs_config *cfg, int *out)
{
	int fd = -1, err;

	err = worker_socket(cfg, true, &fd);
	if (err)
		return err;
	if (cfg->proto != RS_PROTO_UDP && listen(fd, cfg->backlog) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	*out = fd;
	return 0;
}

static void count_accept_error(struct rs_worker *w, int e)
{
	w->c.accept_errors[e > 0 && e < RS_ERRNO_MAX ? e : 0]++;
}

/*
 * accept4() reserves the new fd before it looks at the queue, so it fails with EMFILE even when no
 * connection is waiting. Only a waiting connection counts.
 */
static bool pending(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

/*
 * Out of fds with a connection waiting: close the spare fd, accept that connection and close it
 * at once (the client sees the connection closed), and take the spare back. Returns 0, or
 * -EMFILE when there is no spare to use.
 */
static int shed(struct rs_worker *w)
{
	int fd;

	if (w->reserve_fd < 0)
		return -EMFILE;
	close(w->reserve_fd);
	fd = accept4(w->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		w->c.connections_rejected++;
	}
	w->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return fd >= 0 || w->reserve_fd >= 0 ? 0 : -EMFILE;
}

static void accept_cb(uv_poll_t *p, int status, int events);

static void retry_cb(uv_timer_t *t)
{
	struct rs_worker *w = container_of(t, struct rs_worker, accept_retry);

	if (w->reserve_fd < 0)
		w->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	uv_poll_start(&w->accept_poll, UV_READABLE, accept_cb);
}

static void backoff(struct rs_worker *w)
{
	uv_poll_stop(&w->accept_poll);
	uv_timer_start(&w->accept_retry, retry_cb, RS_ACCEPT_RETRY_MS, 0);
}

static void accept_cb(uv_poll_t *p, int status, int events)
{
	struct rs_worker *w = container_of(p, struct rs_worker, accept_poll);
	int i, fd, e;

	if (status < 0) {
		count_accept_error(w, -status);
		backoff(w);
		return;
	}
	for (i = 0; i < RS_ACCEPT_BATCH; i++) {
		fd = accept4(w->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			rs_conn_accepted(w, fd);
			continue;
		}
		e = errno;
		if (e == EAGAIN || e == EWOULDBLOCK)
			return;
		if (e == EINTR)
			continue;
		if (e == EMFILE || e == ENFILE) {
			if (!pending(w->listen_fd))
				return;
			count_accept_error(w, e);
			if (!shed(w))
				continue;
			backoff(w);
			return;
		}
		count_accept_error(w, e);
		if (e == ECONNABORTED)
			continue;
		backoff(w);
		return;
	}
}

static int accept_start(struct rs_worker *w)
{
	int err;

	err = uv_timer_init(&w->loop, &w->accept_retry);
	if (err)
		return err;
	w->retry_ok = true;
	err = uv_poll_init_socket(&w->loop, &w->accept_poll, w->listen_fd);
	if (err)
		return err;
	w->accept_ok = true;
	return uv_poll_start(&w->accept_poll, UV_READABLE, accept_cb);
}

static void stall_cb(uv_timer_t *t)
{
	struct rs_worker *w = container_of(t, struct rs_worker, stall);

	w->c.stalls++;
	rs_block_until(w->cfg->mode, rs_now_ns() + w->cfg->mb.stall_ns);
}

static int stall_start(struct rs_worker *w)
{
	const struct rs_config *cfg = w->cfg;
	uint64_t at = cfg->start_ns + cfg->mb.stall_at_ns, now = rs_now_ns();
	int err;

	err = uv_timer_init(&w->loop, &w->stall);
	if (err)
		return err;
	w->stall_ok = true;
	uv_update_time(&w->loop);
	return uv_timer_start(&w->stall, stall_cb, at > now ? (at - now + 999999) / 1000000 : 0,
			      0);
}

static void close_handles(struct rs_worker *w)
{
	if (w->accept_ok && !uv_is_closing((uv_handle_t *)&w->accept_poll))
		uv_close((uv_handle_t *)&w->accept_poll, NULL);
	if (w->udp_ok && !uv_is_closing((uv_handle_t *)&w->udp))
		uv_close((uv_handle_t *)&w->udp, NULL);
	if (w->retry_ok && !uv_is_closing((uv_handle_t *)&w->accept_retry))
		uv_close((uv_handle_t *)&w->accept_retry, NULL);
	if (w->stall_ok && !uv_is_closing((uv_handle_t *)&w->stall))
		uv_close((uv_handle_t *)&w->stall, NULL);
	if (w->stop_ok && !uv_is_closing((uv_handle_t *)&w->stop))
		uv_close((uv_handle_t *)&w->stop, NULL);
	rs_conn_close_all(w);
}

static void stop_cb(uv_async_t *a)
{
	struct rs_worker *w = container_of(a, struct rs_worker, stop);

	w->stopping = true;
	close_handles(w);
}

/* The stream protocol of --proto (conn.c calls it; udp has none). */
static const struct rs_stream_proto *stream_proto(enum rs_proto p)
{
	switch (p) {
	case RS_PROTO_HTTP:
		return &rs_http_proto;
	case RS_PROTO_H2:
	case RS_PROTO_GRPC:
		return &rs_h2_proto;
	default:
		return &rs_tcp_proto;
	}
}

static int init(struct rs_worker *w)
{
	const struct rs_config *cfg = w->cfg;
	int err;

	w->proto = stream_proto(cfg->proto);
	w->hist = ll_hist_new();
	w->rbuf = malloc(RS_READ_BUF);
	if (!w->hist || !w->rbuf || rs_trace_init(w))
		return UV_ENOMEM;
	rs_rng_seed(w, cfg->seed);
	/* The default 50 us timer slack would lengthen every sleeping service time. */
	if (cfg->mode == RS_MODE_SLEEP)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	err = ll_uv_loop_init_with_stop(&w->loop, &w->loop_ok, &w->stop, stop_cb, &w->stop_ok);
	if (err)
		return err;
	if (cfg->mb.stall_ns) {
		err = stall_start(w);
		if (err)
			return err;
	}
	if (cfg->proto == RS_PROTO_UDP)
		return rs_udp_start(w);
	w->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return accept_start(w);
}

static void thread(void *arg)
{
	struct rs_worker *w = arg;
	int err;

	err = init(w);
	w->init_err = err;
	uv_sem_post(w->ready);
	if (!err)
		uv_run(&w->loop, UV_RUN_DEFAULT);
	if (w->loop_ok) {
		/* Whatever is still open (after a failed start), close it; run the loop empty. */
		close_handles(w);
		uv_run(&w->loop, UV_RUN_DEFAULT);
		w->loop_close_err = uv_loop_close(&w->loop);
	}
	__atomic_add_fetch(w->nexited, 1, __ATOMIC_RELEASE);
	uv_async_send(w->exited);
}

int rs_worker_start(struct rs_worker *w)
{
	return uv_thread_create(&w->thread, thread, w);
}

/* Thread-safe: may be called from any thread once the worker is ready. */
void rs_worker_stop(struct rs_worker *w)
{
	if (!w->init_err)
		uv_async_send(&w->stop);
}

void rs_worker_join(struct rs_worker *w)
{
	uv_thread_join(&w->thread);
	if (w->listen_fd >= 0)
		close(w->listen_fd);
	w->listen_fd = -1;
	if (w->reserve_fd >= 0)
		close(w->reserve_fd);
	w->reserve_fd = -1;
	free(w->rbuf);
	w->rbuf = NULL;
}
