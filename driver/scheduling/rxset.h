/* SPDX-License-Identifier: MIT */
/*
 * A thread's reply set: sockets whose replies the waker reads at its wake-ups instead of waking
 * for them (struct drv_sched_rx, waker.h). Each socket sits in one epoll set of the thread's,
 * with the kernel's receive stamps on (SO_TIMESTAMPNS); a drain reads one datagram of every
 * readable socket and hands it over with the time it reached the host, turned from
 * CLOCK_REALTIME to uv_hrtime()'s clock, so reading late does not make a reply late. While the
 * waker says replies must wake the loop (no send queued), the epoll set is watched by a
 * uv_poll_t on the loop.
 *
 * Owned by the slot base's per-thread io (drv_slot_io, slot.h): drv_rxset_init() with the
 * worker, drv_rxset_add() per socket (a closed socket leaves the set by itself), drv_rxset_stop() at the stop,
 * drv_rxset_fini() after the loop has closed.
 */
#ifndef LOADLENS_DRV_RXSET_H
#define LOADLENS_DRV_RXSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>
#include "scheduling/waker.h"

struct drv_rxset;
struct drv_worker;

/*
 * The drain's clocks: now, and CLOCK_REALTIME minus uv_hrtime()'s clock; stamps false if that
 * offset could not be read without the thread losing the CPU in between (replies are then timed
 * at their read).
 */
struct drv_rxclock {
	uint64_t now;
	int64_t real_off;
	bool stamps;
};

/* A socket of the set is readable: read it with drv_rxset_recv(); clk is the drain's clock. */
typedef void (*drv_rxset_cb)(struct drv_rxset *set, void *sock, const struct drv_rxclock *clk);

struct drv_rxset {
	int epfd; /* -1 = not in use */
	uv_poll_t poll;
	struct drv_sched_rx rx;
	drv_rxset_cb cb;
};

/*
 * Register with w's waker: replies are read at its wake-ups; always: replies wake the loop
 * whatever is queued (a thread with one slot). Before the worker runs.
 */
int drv_rxset_init(struct drv_rxset *set, struct drv_worker *w, bool always, drv_rxset_cb cb);
/* The clocks for a read outside a drain (drv_rxset_recv). */
void drv_rxset_clock(struct drv_rxclock *clk);
/* Add the socket of handle h (a connected uv_udp_t or uv_tcp_t), handed back to cb as sock;
 * receive stamps on. */
int drv_rxset_add(struct drv_rxset *set, uv_handle_t *h, void *sock);
/*
 * One datagram of fd into buf, without blocking: its length, or -errno (-EAGAIN: none). *t is
 * when it reached the host, on uv_hrtime()'s clock (the time of the read if the kernel gave no
 * stamp, or one ahead of the clock).
 */
ssize_t drv_rxset_recv(int fd, void *buf, size_t len, const struct drv_rxclock *clk, uint64_t *t);
/*
 * A readable stream connection of the set (tcp, http, http/2): what it holds into b, handed to
 * cb as libuv would (0 bytes: UV_EOF), each read stamped in *t_rx by the kernel (the stamp of its
 * last segment; 0 again after). A read that does not fill b emptied the socket; a fuller one is
 * read again, up to 4 times, or at the next drain. alive(s) is asked before each read: a response
 * may have closed the connection (an error, Connection: close, --reconnect-every).
 */
void drv_rxset_read_stream(uv_stream_t *s, uv_buf_t b, const struct drv_rxclock *clk,
			   uint64_t *t_rx, uv_read_cb cb, bool (*alive)(const uv_stream_t *s));
/* At the stop: close the poll handle. */
void drv_rxset_stop(struct drv_rxset *set);
/* After the loop has closed: close the epoll set. */
void drv_rxset_fini(struct drv_rxset *set);

#endif /* LOADLENS_DRV_RXSET_H */
