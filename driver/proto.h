/* SPDX-License-Identifier: MIT */
/*
 * A protocol drives the connection slots of one worker thread on that thread's loop. The worker
 * owns the loop, the pacer, the scheduler and the stats; the protocol owns its sockets and
 * per-slot state (w->proto_data). Each slot asks the pacer for its next request, reports every
 * outcome through drv_worker_response()/drv_worker_error(), and calls drv_worker_slot_done() once
 * when the pacer says it is done.
 */
#ifndef LOADLENS_DRV_PROTO_H
#define LOADLENS_DRV_PROTO_H

#include <stdint.h>

struct drv_worker;
struct drv_config;

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
	/* Optional, on the main thread around the whole run (libcurl's global init). */
	int (*global_init)(void);
	void (*global_fini)(void);
};

extern const struct drv_proto drv_proto_tcp;	     /* proto_tcp.c */
extern const struct drv_proto drv_proto_http_native; /* proto_tcp.c with HTTP framing */
extern const struct drv_proto drv_proto_udp;	     /* proto_udp.c */
extern const struct drv_proto drv_proto_http_curl;   /* proto_curl.c */

/* The protocol for a configuration, or NULL if not supported. */
const struct drv_proto *drv_proto_for(const struct drv_config *cfg);

#endif /* LOADLENS_DRV_PROTO_H */
