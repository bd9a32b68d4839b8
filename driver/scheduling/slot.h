/* SPDX-License-Identifier: MIT */
/*
 * A connection slot: what every protocol's slot shares, embedded first in the protocol's own slot
 * (as libuv handles embed their common fields) and recovered with container_of.
 *
 * The base drives the slot's life with the pacer: take the next request (drv_slot_next), wait for
 * its intended time on the worker's waker, refuse to start it once -d has passed, hand it to the
 * protocol (ops->go), count failures and back off after a failed connect, sweep timeouts, count
 * what is in flight as cancelled at the stop, and free the slot at the end. The protocol keeps only
 * its sockets and how a request goes out and a response comes back.
 *
 * Slots are allocated as they take their first request, so -c 1000000 -n 1 allocates one, and
 * freed when done.
 */
#ifndef LOADLENS_DRV_SLOT_H
#define LOADLENS_DRV_SLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>
#include "scheduling/pacer.h"
#include "config/request.h"
#include "scheduling/rxset.h"
#include "scheduling/waker.h"

#define DRV_SLOT_BACKOFF_MAX_MS 1000 /* a failed connect waits 1, 2, 4 ... ms, up to this */
#define DRV_SLOT_RESOURCE_MS 10	     /* after EMFILE / EADDRNOTAVAIL on a live connection */

struct drv_worker;
struct drv_slot;

struct drv_slot_ops {
	size_t size; /* bytes of the protocol's slot, which embeds struct drv_slot first */
	/* Optional: a new slot, before its first request; nonzero fails it (counted). */
	int (*init)(struct drv_slot *s);
	/* Send the request taken (s->ticket): connect first if need be. */
	void (*go)(struct drv_slot *s);
	/* The pacer has no more for this slot: close its handles, then drv_slot_done(). */
	void (*finish)(struct drv_slot *s);
	/* The request in flight passed s->deadline (the worker's sweep). */
	void (*expire)(struct drv_slot *s);
	/* The run stops: close every handle (the base cancels s->wait). */
	void (*stop)(struct drv_slot *s);
	/* Optional, after the loop has drained: free what init made. */
	void (*release)(struct drv_slot *s);
	/*
	 * Optional, both or neither, for a protocol whose thread state leads with struct
	 * drv_slot_io: the closed loop's blocking read (pingpong.h). awaited: the open socket the
	 * reply to the request in flight comes on, once all of the request is out and nothing but
	 * that reply is awaited; else NULL. received: what one read of that socket gave, into the
	 * thread's read buffer: n bytes (0 on a stream: the peer closed), or a negative errno, and
	 * at, uv_hrtime() as the read returned (the reply's stamp, if it ends the reply); handled by
	 * the protocol's own read path, as if libuv had read it.
	 */
	uv_handle_t *(*awaited)(struct drv_slot *s);
	void (*received)(struct drv_slot *s, ssize_t n, uint64_t at);
};

struct drv_slot {
	struct drv_worker *w;
	const struct drv_slot_ops *ops;
	struct drv_sched_ent ent; /* waiting for the ticket's intended time */
	struct drv_sched_ent wait; /* the next attempt after a failure, after delay_ms: on the
				    * worker's timer heap (a uv_timer_t was 152 bytes a slot) */
	struct drv_slot *retired;  /* drv_slot_done(): freed at the next sweep or at the end */
	struct drv_ticket ticket;
	uint64_t t_send;	  /* the request's actual send */
	uint64_t deadline;	  /* in flight until then; 0 = nothing to time out */
	uint32_t idx;		  /* local slot index */
	uint32_t backoff_ms;	  /* the last connect backoff; 0 after a connect succeeds */
	uint32_t delay_ms;	  /* before the next attempt, set by drv_slot_fail() */
	bool pending;		  /* a request is taken and not yet resolved */
	bool negfailed;		  /* a negotiation of its failed (counted once: failfast.h) */
	bool done;		  /* the pacer said no more */
};

/* Worker thread: every slot takes its first request (allocating the slots that get one). */
void drv_slots_start(struct drv_worker *w);
/*
 * Worker thread, the timeout sweep: ops->expire for each slot in flight past its deadline.
 * Returns the earliest deadline still ahead (UINT64_MAX: none).
 */
uint64_t drv_slots_sweep(struct drv_worker *w, uint64_t now);
/* Worker thread, at the stop: count what is in flight as cancelled; ops->stop; close timers. */
void drv_slots_stop(struct drv_worker *w);
/* After the loop has drained: ops->release and free every slot. */
void drv_slots_free(struct drv_worker *w);

/* The slot is ready for its next attempt. */
void drv_slot_next(struct drv_slot *s);
/*
 * Count a failure of the request taken (it is resolved). connecting: it failed before the
 * connection was up, so the next attempt backs off exponentially (1 ms doubling to 1 s); else it
 * waits only after EMFILE / EADDRNOTAVAIL. The protocol then calls drv_slot_retry() once its
 * handles are ready for another attempt.
 */
void drv_slot_fail(struct drv_slot *s, int err, bool connecting);
/*
 * A connection of the slot failed its TLS or HTTP/2 negotiation with err (any other err: nothing
 * happens): counted for the run's stop once per slot (failfast.h). drv_slot_fail() calls it; a
 * protocol that counts its failure itself calls it too.
 */
void drv_slot_negotiation(struct drv_slot *s, int err);
/*
 * The next attempt backs off as after a failed connect, with nothing counted here: a connection
 * that came up but could not be used (a server that does not speak the protocol) whose requests
 * the protocol counted itself.
 */
void drv_slot_backoff(struct drv_slot *s);
/* The next attempt, after s->delay_ms, from the loop (never recursing). */
void drv_slot_retry(struct drv_slot *s);
/* A connection came up: the next failed connect starts its backoff from 1 ms again. */
static inline void drv_slot_connected(struct drv_slot *s)
{
	s->backoff_ms = 0;
}
/* The request taken is resolved (answered or failed, counted by the caller). */
static inline void drv_slot_resolved(struct drv_slot *s)
{
	s->pending = false;
	s->deadline = 0;
}
/*
 * From ops->finish, once the protocol's handles are closed: the slot is done for good and freed
 * (ops->release first) once its timer has closed, so memory follows the live slots.
 */
void drv_slot_done(struct drv_slot *s);

/*
 * Per thread, what the stream and datagram protocols share: the request bytes, built once, one
 * read buffer that serves every socket of the thread, and in the open loop the reply set read at
 * the waker's wake-ups (rxset.h). It leads the protocol's thread state.
 */
struct drv_slot_io {
	struct drv_worker *w;
	struct drv_request rq;
	char *rbuf;
	size_t rbuf_len;
	char *rbuf_spare; /* the blocking read's, for a reply read early (pingpong.h); or NULL */
	struct drv_rxset rxset; /* epfd -1: the closed loop, libuv reads as replies come */
};

/*
 * w->proto_data = a zeroed state of `size` bytes that starts with an initialised drv_slot_io; in
 * the open loop its reply set calls rx for each readable socket (a thread with one slot: replies
 * wake it).
 */
int drv_slot_io_new(struct drv_worker *w, size_t size, size_t rbuf_len, drv_rxset_cb rx);
/* drv_proto.stop for such a state. */
void drv_slot_io_stop(struct drv_worker *w);
/* drv_proto.fini for such a state. */
void drv_slot_io_fini(struct drv_worker *w);

#endif /* LOADLENS_DRV_SLOT_H */
