/* SPDX-License-Identifier: MIT */
/*
 * How long sockets have sat in a state that should end soon: CLOSE_WAIT of an accepted socket
 * (the application has not closed it) and FIN_WAIT2 (the peer has not closed), from one census
 * to the next by socket cookie. The census (census.c) feeds each socket of a walk in; the end of
 * the walk counts the old ones. No kernel access: unit-tested in
 * tests/unit/test_sock_age.c.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_SOCK_AGE_H
#define LOADLENS_OBSERVER_SOURCES_SOCK_AGE_H

#include <stdbool.h>
#include <stdint.h>
#include "loadlens/observer.h"

/* A socket in CLOSE_WAIT (accepted) or FIN_WAIT2 is old, stuck rather than closing, after this
 * long (s): a close under way takes a round trip and the application's next turn. */
#define OBS_SOCK_AGE_OLD_S 0.4
/* Sockets whose age is tracked (by cookie); more are counted, not aged. */
#define OBS_SOCK_AGE_TRACK 65536
/* Never-accepted CLOSE_WAIT children remembered in one walk. */
#define OBS_SOCK_AGE_UNACC 16384

/* What a walk's end found, in all and per target port (the index the census gave). */
struct obs_sock_age_counts {
	uint64_t young;		 /* not old yet: the next walk tells */
	uint64_t peer_queued;	 /* FIN_WAIT2 whose peer is a child never accepted */
	uint64_t close_wait_old; /* accepted sockets in CLOSE_WAIT OBS_SOCK_AGE_OLD_S or more */
	uint64_t fin_wait2_old;	 /* sockets in FIN_WAIT2 (orphans too) that long */
	uint32_t port_close_wait_old[OBS_MAX_PORTS], port_fin_wait2_old[OBS_MAX_PORTS];
};

struct obs_sock_age;

struct obs_sock_age *obs_sock_age_new(void);
void obs_sock_age_free(struct obs_sock_age *a);
/* A census walk begins at now_s (CLOCK_MONOTONIC seconds). */
void obs_sock_age_begin(struct obs_sock_age *a, double now_s);
/*
 * A socket of this walk to age: an accepted one in CLOSE_WAIT (close_wait true), or one in
 * FIN_WAIT2 (orphans included) with peer = its peer's connection as the peer sees it. false:
 * the table (OBS_SOCK_AGE_TRACK) is full and it is not aged.
 */
bool obs_sock_age_track(struct obs_sock_age *a, uint64_t cookie, bool close_wait, uint64_t peer);
/* The socket tracked last belongs to the target port at index port (< OBS_MAX_PORTS). */
void obs_sock_age_port(struct obs_sock_age *a, int16_t port);
/* A connection in CLOSE_WAIT still in an accept queue (never accepted), as its local end sees
 * it. false: the table (OBS_SOCK_AGE_UNACC) is full. */
bool obs_sock_age_unaccepted(struct obs_sock_age *a, uint64_t conn);
/*
 * The walk ended: each tracked socket keeps the time it was first seen in its state (from the
 * walk before, if it was in the same state there), and those there OBS_SOCK_AGE_OLD_S or more
 * are counted old, the others young; a FIN_WAIT2 whose peer was never accepted is the accept
 * queue's problem (peer_queued), not a leak. out is zeroed first.
 */
void obs_sock_age_end(struct obs_sock_age *a, struct obs_sock_age_counts *out);

#endif /* LOADLENS_OBSERVER_SOURCES_SOCK_AGE_H */
