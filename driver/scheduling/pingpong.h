/* SPDX-License-Identifier: MIT */
/*
 * The closed loop's blocking read. A thread with one slot, no --rate, has nothing to do between
 * sending a request and reading its reply: an event loop blocks in epoll_wait() and then reads,
 * where a plain client blocks in recv() itself. On this VM every syscall costs about 0.4 us, and
 * the two differ by 7-10% of a same-CPU round trip against sockperf's server
 * (bench/pingpong_floor.c). So here, once a request is all out, the thread waits in the socket's
 * own recv() and hands what it read to the protocol's read path (struct drv_slot_ops awaited and
 * received), as libuv would have: one send and one recv a round trip, nothing else.
 *
 * libuv's sockets are non-blocking. While the thread waits in its reads the socket is made
 * blocking, with a send timeout of DRV_PINGPONG_TICK_NS (SO_SNDTIMEO), and taken out of the loop's
 * epoll set (whose callback would run on every reply); before the loop runs again it is made
 * non-blocking and put back, as libuv left it. The protocol's sends made from the read path then
 * find a blocking socket: a request larger than the socket's free send buffer waits up to a tick
 * for room before libuv queues the rest (counts unchanged).
 *
 * The read itself has no timeout: a socket's receive timeout arms and cancels a kernel timer in
 * every read that waits (+1.3% of a cross-CPU tcp round trip on the 16-core machine, a plain
 * recv() against one with the timeout). A silent server is cut short by a tick instead: a POSIX
 * timer of the thread's own, armed while it holds a socket, raises SIGRTMIN + DRV_PINGPONG_SIGNAL
 * at this thread alone every DRV_PINGPONG_WAKE_NS; the handler does nothing and the read returns
 * EINTR (no SA_RESTART). A thread that cannot have the timer reads with the receive timeout, as
 * before. Then the loop takes over again for a stop asked by the main thread (checked before
 * every read), a worker timer or send due, a request not all sent, a connect, a close, or anything
 * but one reply awaited. Going in and out costs a few syscalls, a few times a second (each
 * timer). What must be kept to the microsecond, the request's --timeout deadline and the run's
 * end, is left to the loop's timerfd once it is nearer than DRV_PINGPONG_NEAR_NS (so a --timeout
 * under that never reads this way); a timer without a deadline of its own (the periodic timeout
 * sweep, the interval line) runs late by up to one tick, and only while nothing comes (else it
 * runs at the next reply).
 */
#ifndef LOADLENS_DRV_PINGPONG_H
#define LOADLENS_DRV_PINGPONG_H

#include "scheduling/pingpong_state.h"
#include "scheduling/slot.h"

/*
 * Worker thread, before the run: register p on the worker's waker if the blocking read applies
 * (the closed loop, one slot, a protocol with awaited and received); else nothing.
 */
void drv_pingpong_setup(struct drv_pingpong *p, struct drv_worker *w);

/* Worker thread, after the run: the tick timer deleted. */
void drv_pingpong_fini(struct drv_pingpong *p);

/*
 * The protocol's send path, once s's request is all out on h (its last write done). While the
 * thread is in the blocking read of h, and that read may block now (the same conditions as the
 * waker's offer: no stop, no timer due, no deadline near), the reply is read here, before the
 * send path returns up its stack, into the thread's spare buffer (struct drv_slot_io
 * rbuf_spare); the waker's next offer hands it to the protocol, or the release does, before
 * libuv reads on. On one CPU the server answers while the thread is still in its write, so
 * whatever the thread does between that write and its read is part of the round trip; across
 * CPUs it overlaps the server's work (bench/pingpong.py, BENCHMARKS.md).
 */
void drv_pingpong_sent(struct drv_slot *s, uv_handle_t *h);

/*
 * The protocol's send of a request on h, a TCP stream or a connected UDP socket: while the thread
 * holds h in its blocking read, the write system call itself on h's socket (what it returns, or a
 * negative errno as libuv's errors are); else UV_ENOSYS, and the protocol sends through libuv.
 */
int drv_pingpong_write(struct drv_worker *w, uv_handle_t *h, const uv_buf_t *b, unsigned nb);

#endif /* LOADLENS_DRV_PINGPONG_H */
