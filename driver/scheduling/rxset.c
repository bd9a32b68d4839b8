// SPDX-License-Identifier: MIT
/* A thread's reply set, read at the waker's wake-ups and timed by the kernel (rxset.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "base/drv.h"
#include "scheduling/rxset.h"
#include "scheduling/worker.h"

#define RXSET_EVENTS 64 /* sockets per epoll_wait() of a drain */

#define RXSET_OFF_TRIES 4
#define RXSET_OFF_WINDOW_NS 2000 /* the realtime read between two monotonic ones this close */

/*
 * CLOCK_REALTIME minus uv_hrtime()'s clock. The realtime read sits between two monotonic ones
 * and is paired with their midpoint; if the thread lost the CPU between them (the window is then
 * long, and a stamp would come out early by that much, before its request's send), it reads
 * again, keeping the narrowest window of a few. False if none was narrow: no stamp is trusted.
 */
static bool real_off(int64_t *off)
{
	uint64_t m1, m2, best = UINT64_MAX;
	struct timespec r;
	int i;

	for (i = 0; i < RXSET_OFF_TRIES && best > RXSET_OFF_WINDOW_NS; i++) {
		m1 = uv_hrtime();
		clock_gettime(CLOCK_REALTIME, &r);
		m2 = uv_hrtime();
		if (m2 - m1 < best) {
			best = m2 - m1;
			*off = (int64_t)r.tv_sec * 1000000000LL + r.tv_nsec -
			       (int64_t)(m1 + (m2 - m1) / 2);
		}
	}
	return best <= RXSET_OFF_WINDOW_NS;
}

void drv_rxset_clock(struct drv_rxclock *clk)
{
	clk->now = uv_hrtime();
	clk->stamps = real_off(&clk->real_off);
}

/* drv_sched_rx.drain: the callback reads each readable socket, until epoll finds none more. */
static void drain(struct drv_sched_rx *rx)
{
	struct drv_rxset *set = container_of(rx, struct drv_rxset, rx);
	struct epoll_event ev[RXSET_EVENTS];
	struct drv_rxclock clk;
	int n, i;

	do {
		n = epoll_wait(set->epfd, ev, RXSET_EVENTS, 0);
		if (n <= 0)
			return;
		drv_rxset_clock(&clk);
		/* a socket closed meanwhile has left the set; the callback skips one closing */
		for (i = 0; i < n; i++)
			set->cb(set, ev[i].data.ptr, &clk);
	} while (n == RXSET_EVENTS);
}

static void on_ready(uv_poll_t *p, int status, int events)
{
	drain(&container_of(p, struct drv_rxset, poll)->rx);
}

/* drv_sched_rx.wake */
static void wake(struct drv_sched_rx *rx, bool on)
{
	struct drv_rxset *set = container_of(rx, struct drv_rxset, rx);

	if (on) /* an epoll fd on the loop: nothing here can fail but memory, at uv_poll_init */
		(void)uv_poll_start(&set->poll, UV_READABLE, on_ready);
	else
		uv_poll_stop(&set->poll);
}

int drv_rxset_init(struct drv_rxset *set, struct drv_worker *w, bool always, drv_rxset_cb cb)
{
	int err;

	memset(set, 0, sizeof(*set));
	set->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (set->epfd < 0)
		return -errno;
	err = uv_poll_init(&w->loop, &set->poll, set->epfd);
	if (err) {
		close(set->epfd);
		set->epfd = -1;
		return err;
	}
	set->cb = cb;
	set->rx.drain = drain;
	set->rx.wake = wake;
	set->rx.always = always;
	drv_sched_set_rx(&w->sched, &set->rx);
	return 0;
}

int drv_rxset_add(struct drv_rxset *set, uv_handle_t *h, void *sock)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = sock };
	uv_os_fd_t fd;
	int on = 1, err = uv_fileno(h, &fd);

	if (err)
		return err;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) ||
	    epoll_ctl(set->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	return 0;
}

ssize_t drv_rxset_recv(int fd, void *buf, size_t len, const struct drv_rxclock *clk, uint64_t *t)
{
	char ctl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	struct timespec ts;
	uint64_t now;
	ssize_t n;
	int64_t v;

	n = recvmsg(fd, &m, MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	*t = 0;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (!clk->stamps || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		v = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec - clk->real_off;
		if (v > 0)
			*t = (uint64_t)v;
	}
	/*
	 * Received after the drain began (a reply to a request this drain sent): the clock again.
	 * No stamp, or one ahead of the clock (a step of CLOCK_REALTIME): the time of the read.
	 */
	if (!*t || *t > clk->now) {
		now = uv_hrtime();
		if (!*t || *t > now)
			*t = now;
	}
	return n;
}

void drv_rxset_stop(struct drv_rxset *set)
{
	if (set->epfd >= 0 && !uv_is_closing((uv_handle_t *)&set->poll))
		uv_close((uv_handle_t *)&set->poll, NULL);
}

void drv_rxset_fini(struct drv_rxset *set)
{
	if (set->epfd >= 0)
		close(set->epfd);
	set->epfd = -1;
}

void drv_rxset_read_stream(uv_stream_t *s, uv_buf_t b, const struct drv_rxclock *clk,
			   uint64_t *t_rx, uv_read_cb cb, bool (*alive)(const uv_stream_t *s))
{
	uv_os_fd_t fd;
	ssize_t n;
	int i;

	for (i = 0; i < 4; i++) {
		if (!alive(s) || uv_fileno((const uv_handle_t *)s, &fd))
			break;
		n = drv_rxset_recv(fd, b.base, b.len, clk, t_rx);
		if (n == -EAGAIN || n == -EINTR)
			break;
		cb(s, n ? n : UV_EOF, &b);
		if (n <= 0 || (size_t)n < b.len)
			break;
	}
	*t_rx = 0;
}
