/* SPDX-License-Identifier: MIT */
/*
 * A protocol drives the connection slots of one worker thread on that thread's loop. The worker
 * owns the loop, the pacer and the stats; the protocol owns its sockets and per-slot state
 * (w->proto_data). Each slot asks the pacer for its next request, reports every outcome to
 * w->stats, and calls drv_worker_slot_done() once when the pacer says it is done.
 *
 * tcp:// is proto_tcp.c. udp:// (proto_udp.c) and http:// (proto_http.c, libcurl multi_socket on
 * the same loop) plug in here later.
 */
#ifndef LOADLENS_DRV_PROTO_H
#define LOADLENS_DRV_PROTO_H

#include <stdint.h>
#include "loadlens/parse.h"

struct drv_worker;

struct drv_proto {
	const char *name;
	/* Allocate per-thread state and create handles on w->loop. Runs before the thread does. */
	int (*init)(struct drv_worker *w);
	/* On the worker thread: every slot takes its first request. */
	void (*start)(struct drv_worker *w);
	/* On the worker thread, periodically: fail what has waited past cfg->timeout_ns. */
	void (*sweep)(struct drv_worker *w, uint64_t now_ns);
	/* Stop: count what is in flight as cancelled and uv_close every handle; no new work. */
	void (*stop)(struct drv_worker *w);
	/* After the loop has drained and closed: free what init allocated. */
	void (*fini)(struct drv_worker *w);
};

extern const struct drv_proto drv_proto_tcp;

/* The protocol for a URL scheme, or NULL if not supported yet. */
const struct drv_proto *drv_proto_for(enum ll_scheme scheme);

#endif /* LOADLENS_DRV_PROTO_H */
