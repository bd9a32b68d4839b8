/* SPDX-License-Identifier: MIT */
/*
 * Payload sampling's counters (bpf/payload.bpf.h, include/loadlens/payload.h), read each tick by
 * the read phase (tick_reader.h): per slot, summed over CPUs. Its plan (before load: on for
 * x86-64 unless LOADLENS_OBSERVER_PAYLOAD=off; the sampling period
 * LOADLENS_OBSERVER_PAYLOAD_PERIOD_US, 0: every new request, to measure what a sample costs) is
 * observer/kernel/reqtime_mech.c's obs_reqtime_mech_payload(); what it found is said by
 * features/payload_sampling.c.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_PAYLOAD_READ_H
#define LOADLENS_OBSERVER_SOURCES_PAYLOAD_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loadlens/payload.h"

struct obs_sockets;
struct obs_payload;

/* conn: the socket object's owner, where its counters are read. NULL and errno: no memory. */
struct obs_payload *obs_payload_new(struct obs_sockets *conn, size_t nslots);
void obs_payload_free(struct obs_payload *p);
bool obs_payload_on(const struct obs_payload *p);
/* Read the counters of slots [0, nslots) into out (cumulative; max is the max over CPUs). */
int obs_payload_read(struct obs_payload *p, struct rt_pl_ctrs *out);
size_t obs_payload_nslots(const struct obs_payload *p);
/* At most one sample per this many ns on each CPU. */
uint64_t obs_payload_period_ns(const struct obs_payload *p);

#endif /* LOADLENS_OBSERVER_SOURCES_PAYLOAD_READ_H */
