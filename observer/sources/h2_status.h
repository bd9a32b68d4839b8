/* SPDX-License-Identifier: MIT */
/*
 * The statuses of HTTP/2 responses and gRPC calls, from the header blocks the server writes
 * (bpf/req_h2.bpf.h sends them to the "h2_hb" ring buffer; include/loadlens/h2.h says how).
 * HPACK keeps a table per connection, so each connection gets libnghttp2's inflater, fed every
 * block in order; each response's :status and each gRPC call's grpc-status (in its trailers, or
 * a Trailers-Only response) is counted per request-timing slot. A connection whose records
 * stopped or began before its decoder (a gap) is never decoded after the gap: its statuses are
 * not read, never read wrong, and the summary says how many.
 *
 * Two layers: the decoder (obs_h2_dec_*), pure, fed records (tests/unit/test_h2_status.c feeds
 * it frames made by libnghttp2's own deflater), and the reader (obs_h2_status_*), a thread that
 * drains the ring buffer into a decoder every OBS_H2_STATUS_POLL_MS, and sleeps until woken while
 * there is nothing to drain.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_H2_STATUS_H
#define LOADLENS_OBSERVER_SOURCES_H2_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/grpc_status.h"
#include "loadlens/reqtime.h"
#include "rules/snapshot.h"

/* Connections decoded at once; past it the longest idle one is forgotten (counted). */
#define OBS_H2_DECODERS 16384
/* :status codes counted one by one: 100-599 (others: status_other) */
#define OBS_H2_STATUS_LO 100
#define OBS_H2_STATUS_N 500
#define OBS_H2_STATUS_POLL_MS 10
/* Empty drains in a row before the reader sleeps until a record wakes it (h2_status.c, step()),
 * and its longest sleep then */
#define OBS_H2_STATUS_IDLE_POLLS 10
#define OBS_H2_STATUS_IDLE_MS 100

/* One slot's counts (the slot of the connection's port). */
struct obs_h2_status_counts {
	uint64_t grpc[LL_GRPC_OTHER + 1]; /* gRPC calls by grpc-status; [LL_GRPC_OTHER]: past 16 */
	uint64_t grpc_none;		  /* gRPC responses ended with no grpc-status */
	uint64_t status[OBS_H2_STATUS_N]; /* header blocks by :status, 100-599 */
	uint64_t status_other;		  /* a :status outside them, or not a number */
	uint64_t blocks;		  /* header blocks decoded */
	uint64_t ends;			  /* of which ended their stream (END_STREAM) */
	uint64_t undecoded;		  /* header blocks not decoded: an HPACK error, a gap */
	uint64_t partial;		  /* header blocks decoded alone after a gap, cut by a
					   * reference to the blocks not seen: :status read */
	uint64_t evicted;		  /* decoders forgotten for room (OBS_H2_DECODERS) */
	uint64_t kernel;		  /* of blocks, read in the kernel (its counts, added by
					   * obs_h2_status_add_kernel()) */
	uint64_t refer;			  /* whole one-frame blocks that refer to the HPACK table */
	uint64_t plain;			  /* ... that refer to none (hpack_refs.h) */
};

/* A slot's blocks read in the kernel (include/loadlens/h2.h): whether they may be, from its
 * counts. OBS_H2_LEARN: not yet (fewer than LL_H2_HB_QUIET_AFTER plain blocks); OBS_H2_QUIET:
 * they are; OBS_H2_NEVER: a block referred to the table. Pure. */
enum obs_h2_quiet { OBS_H2_LEARN, OBS_H2_QUIET, OBS_H2_NEVER };
enum obs_h2_quiet obs_h2_quiet_next(enum obs_h2_quiet now, const struct obs_h2_status_counts *c);
/* The kernel's counts of a slot's blocks read there (k's h2_hb_static, h2_hb_static_ends) into
 * its counts c. Pure. */
void obs_h2_status_add_kernel(struct obs_h2_status_counts *c, const struct rt_ctrs *k);

/* An interval's counts: cur - prev, field by field (cumulative counts; never below 0). Pure. */
void obs_h2_status_sub(struct obs_h2_status_counts *d, const struct obs_h2_status_counts *cur,
		       const struct obs_h2_status_counts *prev);
/* An interval's counts d of port as the rules see them (*out, cleared first): by class, the codes
 * the most first, gRPC by status. Returns whether there was any status. Pure. */
bool obs_h2_status_snap(struct obs_snap_status *out, uint16_t port,
			const struct obs_h2_status_counts *d);

struct obs_h2_dec;

/* A decoder for nslots slots; NULL with errno set. obs_h2_dec_free(NULL) is a no-op. */
struct obs_h2_dec *obs_h2_dec_new(size_t nslots);
void obs_h2_dec_free(struct obs_h2_dec *d);
/* One record of the ring buffer (struct rt_h2_hb and its bytes). A record that is not one (too
 * short, a slot or length out of range) is dropped and counted (obs_h2_dec_bad). */
void obs_h2_dec_feed(struct obs_h2_dec *d, const void *rec, size_t size);
/* Slot i's counts (zeros past the slots). */
const struct obs_h2_status_counts *obs_h2_dec_counts(const struct obs_h2_dec *d, size_t i);
uint64_t obs_h2_dec_bad(const struct obs_h2_dec *d);
size_t obs_h2_dec_live(const struct obs_h2_dec *d); /* connections with a decoder now */
size_t obs_h2_dec_nslots(const struct obs_h2_dec *d);

struct obs_h2_status;

/* The reader of the ring buffer at ring_fd, nslots slots: its thread starts here (after the
 * privilege drop). idle: the BPF side's flag that makes a record wake the reader (NULL: the
 * reader polls without rest); quiet: the BPF side's h2_hb_quiet[nslots] (NULL: every block is
 * sent), which it sets per obs_h2_quiet_next(). NULL with errno set. */
struct obs_h2_status *obs_h2_status_new(int ring_fd, volatile uint32_t *idle,
					volatile uint8_t *quiet, size_t nslots);
/* Stops the thread and drains what the ring still holds. */
void obs_h2_status_stop(struct obs_h2_status *s);
void obs_h2_status_free(struct obs_h2_status *s);
/* Slot i's counts as of now, copied into *out. */
void obs_h2_status_read(struct obs_h2_status *s, size_t i, struct obs_h2_status_counts *out);

#endif /* LOADLENS_OBSERVER_SOURCES_H2_STATUS_H */
