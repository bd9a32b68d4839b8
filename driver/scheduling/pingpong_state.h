/* SPDX-License-Identifier: MIT */
/*
 * The closed loop's blocking read (scheduling/pingpong.h): its state, which a worker holds. Apart
 * from pingpong.h so that worker.h needs no more than this (pingpong.c reads the worker's slots).
 */
#ifndef LOADLENS_DRV_PINGPONG_STATE_H
#define LOADLENS_DRV_PINGPONG_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <uv.h>
#include "scheduling/waker.h"

#define DRV_PINGPONG_TICK_NS 1000000ULL /* the send timeout (and the receive fallback): 1 ms */
#define DRV_PINGPONG_WAKE_NS 10000000ULL /* the tick while a read may block: 10 ms */
#define DRV_PINGPONG_SIGNAL 4		/* its signal: SIGRTMIN + 4 */
#define DRV_PINGPONG_NEAR_NS 25000000ULL /* a deadline nearer: the loop waits (25 ms) */

struct drv_worker;

struct drv_pingpong {
	struct drv_sched_wait own; /* on the worker's waker */
	struct drv_worker *w;
	uv_handle_t *h;	 /* the socket made blocking, until the loop runs; NULL: none */
	int fl;		 /* its file status flags, non-blocking */
	bool unwatched;	 /* taken out of the loop's epoll set: put back with h */
	bool clock; /* the last read got nothing: read the clock, not the send's stamp */
	int fd;		 /* h's */
	/* a reply read as its request went (drv_pingpong_sent), in the io's spare buffer */
	bool held;
	ssize_t held_n;	  /* what the read returned: bytes, 0, or a negative errno */
	uint64_t held_at; /* uv_hrtime() as it returned (0: no bytes) */
	uint64_t reads;	  /* blocking reads that returned something */
	timer_t timer;	  /* the tick, to this thread (has_timer) */
	bool has_timer;
	bool ticking; /* armed: from enter() to the release */
};

#endif /* LOADLENS_DRV_PINGPONG_STATE_H */
