/* SPDX-License-Identifier: MIT */
/*
 * The stream-connection base: what the connection-oriented engines (proto_tcp.c with its -P and
 * TLS layers, h2/h2_engine.c) share about a uv_tcp_t, embedded first in their slot as the slot base
 * is embedded first in it. It connects (--source-addr, the connect's deadline and counts), starts
 * the reads (libuv's, or the open loop's reply set with the kernel's receive stamp), writes (the
 * rest of a partial uv_try_write through one uv_write_t; bytes the engine makes itself through two
 * swapping buffers) and closes, keeping the open / closing / connecting / writing flags. An engine
 * keeps only its protocol: its read callback, what it does once connected, after a close, after a
 * write, and how it counts a failure (struct drv_stream_ops).
 *
 * Nothing here is called per byte: the engine's read callback is handed to libuv as it is.
 */
#ifndef LOADLENS_DRV_STREAM_CONN_H
#define LOADLENS_DRV_STREAM_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include "base/buf.h"
#include "scheduling/slot.h"
#include "scheduling/worker.h"

struct drv_stream;

/* An engine's hooks, one table per engine. */
struct drv_stream_ops {
	/* Its read callback (container_of on tcp): bytes, or an end (UV_EOF, an error). */
	uv_read_cb read;
	/* The TCP connection is up (TCP_NODELAY set, reads started). */
	void (*connected)(struct drv_stream *s);
	/* The connection closes (before uv_close): what the engine keeps per connection goes.
	 * Optional. */
	void (*closing)(struct drv_stream *s);
	/* Its close callback ran (open and closing are false), the run not stopping. */
	void (*closed)(struct drv_stream *s);
	/* A write through write_req is done (writing is false again). Optional. */
	void (*written)(struct drv_stream *s);
	/* A connect, read start or write failed with err: count it, drop the connection. */
	void (*fail)(struct drv_stream *s, int err);
};

/* Per thread: leads the engine's thread state (w->proto_data). */
struct drv_stream_thread {
	struct drv_slot_io io; /* request bytes, the read buffer, the open loop's reply set */
	const struct drv_stream_ops *ops;
	uint64_t timeout_ns;
	unsigned src_next; /* --source-addr: the next local address */
};

/* Per slot: embedded first in the engine's slot. */
struct drv_stream {
	struct drv_slot base;
	uv_tcp_t tcp;
	/* never both in use: libuv lets go of the connect before its callback writes (1M idle
	 * connections: 96 bytes each) */
	union {
		uv_connect_t connect_req;
		uv_write_t write_req;
	};
	uint64_t t_op;	 /* connect start */
	uint64_t t_rx;	 /* open loop: the kernel's receive time of the bytes being read */
	bool open;	 /* tcp is initialised and not yet closed */
	bool closing;	 /* uv_close() called, close callback pending */
	bool connecting; /* connect started, not yet usable (the engine says when it is) */
	bool writing;	 /* write_req in use */
};

/* Bytes an engine makes for the socket (HTTP/2 frames, TLS records): pend fills while out is in
 * write_req's uv_write. Both outlive the slot's connections, as an in-flight write needs. */
struct drv_stream_out {
	struct drv_buf out, pend;
};

/*
 * w->proto_data = a zeroed thread state of size bytes that leads with struct drv_stream_thread,
 * reading into a buffer of rbuf_len bytes, with the engine's hooks. 0 or -errno. Its stop and
 * fini are drv_slot_io_stop() and drv_slot_io_fini().
 */
int drv_stream_thread_new(struct drv_worker *w, size_t size, size_t rbuf_len,
			  const struct drv_stream_ops *ops);
/* Its thread's state. */
static inline struct drv_stream_thread *drv_stream_th(const struct drv_stream *s)
{
	return s->base.w->proto_data;
}

static inline struct drv_stats *drv_stream_stats(struct drv_stream *s)
{
	return drv_worker_stats(s->base.w, &s->base.ticket);
}

/* Connect (connecting until the engine says otherwise); a failure goes to ops->fail. */
void drv_stream_connect(struct drv_stream *s);
/* The connection is usable: counted, with its connect time (the engine tells the slot base,
 * drv_slot_connected(), once its own handshake is over). */
void drv_stream_up(struct drv_stream *s);
/* Close, once (nothing in flight any more): ops->closing now, ops->closed after. */
void drv_stream_close(struct drv_stream *s);
/* ops->finish's end, nothing left in flight: close (ops->closed then ends the slot), or if the
 * connection is not open, the slot is done now. */
void drv_stream_finish(struct drv_stream *s);
static inline bool drv_stream_alive(const struct drv_stream *s)
{
	return s->open && !s->closing;
}
/*
 * Open loop: what came in on the open connection since the last drain, read now, as libuv would
 * have read it on arrival (before a send: an end of stream then reconnects quietly).
 */
void drv_stream_drain(struct drv_stream *s);
/* The rest of a request, b[0..nb) from stable memory, through write_req: 0 or -errno. */
int drv_stream_write_rest(struct drv_stream *s, const uv_buf_t *b, unsigned int nb);
/* o->pend to the socket, unless a write is out (its end comes back through ops->written): at once
 * if it takes it all, else the rest from o->out (the two swap). 0 or -errno. */
int drv_stream_write_pend(struct drv_stream *s, struct drv_stream_out *o);
/* The slot is freed: the buffers' memory. */
void drv_stream_out_free(struct drv_stream_out *o);

#endif /* LOADLENS_DRV_STREAM_CONN_H */
