// SPDX-License-Identifier: MIT
/* The closed loop's blocking read (pingpong.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include "base/drv.h"
#include "config/config.h"
#include "scheduling/pingpong.h"
#include "scheduling/protocol.h"
#include "scheduling/slot.h"
#include "scheduling/worker.h"

#ifndef sigev_notify_thread_id /* (glibc before 2.35 has the field, not the name) */
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* The tick's signal (pingpong.h): a real-time signal, queued to the thread alone. */
static int tick_signo(void)
{
	return SIGRTMIN + DRV_PINGPONG_SIGNAL;
}

/* It only interrupts: a read it cuts short returns EINTR (no SA_RESTART), and the waiter looks at
 * the stop and the timers again. */
static void on_tick(int signo)
{
	(void)signo;
}

static void install_tick(void)
{
	struct sigaction sa = {.sa_handler = on_tick};

	sigemptyset(&sa.sa_mask);
	(void)sigaction(tick_signo(), &sa, NULL);
}

/* Worker thread: its tick timer, unarmed; false if any step fails (the socket's receive timeout
 * then stands in for it). */
static bool tick_create(struct drv_pingpong *p)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = tick_signo()};
	sigset_t set;

	if (pthread_once(&once, install_tick))
		return false;
	sigemptyset(&set);
	sigaddset(&set, tick_signo());
	if (pthread_sigmask(SIG_UNBLOCK, &set, NULL))
		return false;
	ev.sigev_notify_thread_id = gettid();
	return !timer_create(CLOCK_MONOTONIC, &ev, &p->timer);
}

/* Arm the tick (every DRV_PINGPONG_WAKE_NS) or disarm it. Disarmed, nothing more comes: a signal
 * the timer raised before is delivered as timer_settime() returns. */
static void tick_arm(struct drv_pingpong *p, bool on)
{
	struct timespec t = {.tv_sec = on ? DRV_PINGPONG_WAKE_NS / 1000000000ULL : 0,
			     .tv_nsec = on ? DRV_PINGPONG_WAKE_NS % 1000000000ULL : 0};

	if (p->ticking == on)
		return;
	p->ticking = on;
	(void)timer_settime(p->timer, 0, &(struct itimerspec){.it_value = t, .it_interval = t},
			    NULL);
}

/* Hand a reply read early to the protocol, from the spare buffer, now the read buffer. */
static void deliver(struct drv_pingpong *p, struct drv_slot *s)
{
	struct drv_slot_io *io = p->w->proto_data;
	char *b = io->rbuf;

	p->held = false;
	io->rbuf = io->rbuf_spare;
	io->rbuf_spare = b;
	s->ops->received(s, p->held_n, p->held_at);
}

/* The loop is about to run: the socket is non-blocking again, as libuv made it, and a reply
 * read early goes to the protocol first (libuv would read what follows it). */
static void pingpong_release(struct drv_sched_wait *own)
{
	struct drv_pingpong *p = container_of(own, struct drv_pingpong, own);
	struct drv_slot *s = p->w->slots[0];
	bool live = p->h && !uv_is_closing(p->h), held = p->held;
	uv_os_fd_t fd;

	p->held = false;
	/* a socket closed meanwhile is gone (uv_fileno fails on a closing handle), its fd
	 * perhaps someone else's by now: nothing to restore, nor a reply to hand on */
	if (live && !uv_fileno(p->h, &fd)) {
		(void)fcntl(fd, F_SETFL, p->fl);
		/* as libuv registered it (linux-core.c: events, data.fd); it applies any change
		 * asked meanwhile (a write queued: EPOLLOUT) with EPOLL_CTL_MOD when it runs */
		if (p->unwatched)
			(void)epoll_ctl(uv_backend_fd(&p->w->loop), EPOLL_CTL_ADD, fd,
					&(struct epoll_event){.events = EPOLLIN, .data.fd = fd});
	}
	p->h = NULL;
	p->unwatched = false;
	if (p->has_timer)
		tick_arm(p, false);
	/* after: a request its handling sends goes through libuv, with no early read */
	if (held && live && s)
		deliver(p, s);
}

/* Make h's socket blocking, with the send timeout, and the tick armed (or, without a tick timer,
 * the receive timeout); false (and the socket unchanged) if any step fails. */
static bool enter(struct drv_pingpong *p, uv_handle_t *h)
{
	struct timeval tv = {.tv_usec = DRV_PINGPONG_TICK_NS / 1000};
	uv_os_fd_t fd;
	int fl;

	if (uv_fileno(h, &fd) || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    (!p->has_timer && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))))
		return false;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK))
		return false;
	p->h = h;
	p->fd = fd;
	p->fl = fl | O_NONBLOCK;
	/*
	 * Out of the loop's epoll set meanwhile: else every reply also runs its epoll callback
	 * (2-3% of a same-CPU round trip here). Awaited means reading with nothing to write, so
	 * libuv watches it for EPOLLIN alone; not there yet (a new socket, registered when the loop
	 * next runs): nothing to put back.
	 */
	p->unwatched = !epoll_ctl(uv_backend_fd(&p->w->loop), EPOLL_CTL_DEL, fd, NULL);
	if (p->has_timer)
		tick_arm(p, true);
	return true;
}

/*
 * s's reply may be waited for in a blocking read from now (the send's time, or the clock's):
 * no timer due (horizon), and neither the request's --timeout deadline nor the run's end near
 * (the loop keeps those to the microsecond; the socket's timeouts are coarser).
 */
static bool may_block(const struct drv_worker *w, const struct drv_slot *s, uint64_t now,
		      uint64_t horizon)
{
	return now < horizon && !(s->deadline && s->deadline < now + DRV_PINGPONG_NEAR_NS) &&
	       !(w->end.pos && w->end.at < now + DRV_PINGPONG_NEAR_NS);
}

/* One blocking read of the held socket into buf: its result, or 0 with p->clock set when nothing
 * came (the tick passed, or a signal). */
static ssize_t read_reply(struct drv_pingpong *p, char *buf, size_t len, bool *got)
{
	/* the system call itself: glibc's recv() is a cancellation point, whose wrapping (no thread
	 * here is ever cancelled) is a third of the user-space instructions of the read */
	ssize_t n = syscall(SYS_recvfrom, p->fd, buf, len, 0, NULL, NULL);

	if (n < 0)
		n = -errno;
	p->clock = n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR;
	*got = !p->clock;
	if (*got)
		p->reads++;
	return n;
}

int drv_pingpong_write(struct drv_worker *w, uv_handle_t *h, const uv_buf_t *b, unsigned nb)
{
	const struct drv_pingpong *p = &w->pingpong;
	ssize_t n;

	_Static_assert(sizeof(uv_buf_t) == sizeof(struct iovec), "uv_buf_t is an iovec on Unix");
	/* (and, as libuv's own checks, never past a send libuv has queued: order is kept) */
	if (p->h != h || (h->type == UV_TCP && ((const uv_stream_t *)h)->write_queue_size) ||
	    (h->type == UV_UDP && ((const uv_udp_t *)h)->send_queue_count))
		return UV_ENOSYS;
	/* as uv_try_write() and uv_udp_try_send() would, less their checks and glibc's
	 * cancellation wrapper: the thread holds the socket (blocking, out of the loop's epoll set),
	 * and nothing is queued on it (a slot with a write queued awaits no reply). sendto() and
	 * sendmsg(), not libuv's write() and writev(): the socket's own calls skip the file layer
	 * (MSG_NOSIGNAL: EPIPE, as the driver's ignored SIGPIPE gives libuv's) */
	do {
		if (nb == 1) {
			n = syscall(SYS_sendto, p->fd, b[0].base, b[0].len, MSG_NOSIGNAL, NULL, 0);
		} else {
			struct msghdr m = {.msg_iov = (struct iovec *)b, .msg_iovlen = nb};

			n = syscall(SYS_sendmsg, p->fd, &m, MSG_NOSIGNAL);
		}
		/* the tick, before a byte went (a send waiting for room ends by its own timeout,
		 * shorter than the tick's period: this ends) */
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : (int)n;
}

void drv_pingpong_sent(struct drv_slot *s, uv_handle_t *h)
{
	struct drv_worker *w = s->w;
	struct drv_pingpong *p = &w->pingpong;
	struct drv_slot_io *io = w->proto_data;
	bool got;

	/* only in the blocking read already (the socket it holds), for the reply it would await */
	if (p->h != h || p->held || !io->rbuf_spare || w->stopping ||
	    __atomic_load_n(&w->stop_asked, __ATOMIC_ACQUIRE) || s->ops->awaited(s) != h ||
	    !may_block(w, s, s->t_send, drv_sched_horizon(&w->sched)))
		return;
	p->held_n = read_reply(p, io->rbuf_spare, io->rbuf_len, &got);
	p->held_at = p->held_n > 0 ? uv_hrtime() : 0;
	p->held = got;
}

static bool pingpong_wait(struct drv_sched_wait *own, uint64_t horizon)
{
	struct drv_pingpong *p = container_of(own, struct drv_pingpong, own);
	struct drv_worker *w = p->w;
	struct drv_slot *s = w->slots[0];
	struct drv_slot_io *io = w->proto_data;
	uv_handle_t *h;
	bool got;
	ssize_t n;

	if (!s || w->stopping || __atomic_load_n(&w->stop_asked, __ATOMIC_ACQUIRE))
		return false;
	h = s->ops->awaited(s);
	if (!h)
		return false;
	if (p->held && h == p->h) { /* read as the request went */
		deliver(p, s);
		return true;
	}
	/* the request just went: its stamp is the time now, to within the sending (no clock read) */
	if (!may_block(w, s, p->clock ? uv_hrtime() : s->t_send, horizon))
		return false;
	if (h != p->h) {
		pingpong_release(own);
		if (!enter(p, h))
			return false;
	}
	n = read_reply(p, io->rbuf, io->rbuf_len, &got);
	if (!got)
		return true; /* the tick passed, or a signal: look at the stop and the timers again */
	/* the reply's stamp as the read returns, not after the protocol looked at it */
	s->ops->received(s, n, n > 0 ? uv_hrtime() : 0);
	return true;
}

void drv_pingpong_setup(struct drv_pingpong *p, struct drv_worker *w)
{
	const struct drv_slot_ops *ops = w->proto->slot;
	struct drv_slot_io *io;

	p->w = w;
	p->own.wait = pingpong_wait;
	p->own.release = pingpong_release;
	if (w->cfg->rate > 0 || w->nslots != 1 || !ops || !ops->awaited || !ops->received)
		return;
	p->has_timer = tick_create(p);
	/* the early read's buffer (drv_pingpong_sent), freed with the read buffer
	 * (drv_slot_io_fini); none: replies are read at the offer only */
	io = w->proto_data;
	io->rbuf_spare = malloc(io->rbuf_len);
	drv_sched_set_wait(&w->sched, &p->own);
}

void drv_pingpong_fini(struct drv_pingpong *p)
{
	if (!p->has_timer)
		return;
	tick_arm(p, false);
	(void)timer_delete(p->timer);
	p->has_timer = false;
}
