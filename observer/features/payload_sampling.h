/* SPDX-License-Identifier: MIT */
/*
 * Payload sampling (bpf/payload.bpf.h, include/loadlens/payload.h) from userspace: switch it on
 * before load, read its per-slot counters back (summed over CPUs), and say what it found. The
 * request-timing feature (requests.c) owns one and feeds the rules' snapshot from it.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_PAYLOAD_SAMPLING_H
#define LOADLENS_OBSERVER_FEATURES_PAYLOAD_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "loadlens/payload.h"

struct obs_sockets;
struct obs_reqtime;
struct obs_payload;

/* Its plan (before load: on for x86-64 unless LOADLENS_OBSERVER_PAYLOAD=off; the sampling period
 * LOADLENS_OBSERVER_PAYLOAD_PERIOD_US, 0: every new request, to measure what a sample costs) is
 * observer/kernel/reqtime_mech.c's obs_reqtime_mech_payload(). conn: the socket object's owner,
 * where its counters are read. */
struct obs_payload *obs_payload_new(struct obs_sockets *conn, size_t nslots);
void obs_payload_free(struct obs_payload *p);
bool obs_payload_on(const struct obs_payload *p);
/* Read the counters of slots [0, nslots) into out (cumulative; max is the max over CPUs). */
int obs_payload_read(struct obs_payload *p, struct rt_pl_ctrs *out);
/* Requests per sampled read; 0 with no sample. */
double obs_payload_per_read(const struct rt_pl_ctrs *c);
/* The text summary's lines, for the TCP slots with samples. */
void obs_payload_fmt_summary(FILE *out, const struct obs_reqtime *rt, const struct obs_payload *p,
			     const struct rt_pl_ctrs *c);
/* "payload" in each TCP slot of the JSON's request_timing.slots, and
 * request_timing.features.payload_sampling. */
int obs_payload_json_add(json_t *root, const struct obs_reqtime *rt, const struct obs_payload *p,
			 const struct rt_pl_ctrs *c);

#endif /* LOADLENS_OBSERVER_FEATURES_PAYLOAD_SAMPLING_H */
