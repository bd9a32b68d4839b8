/* SPDX-License-Identifier: MIT */
/*
 * Payload sampling, said: what its counters (sources/payload_read.h) found, in the text summary
 * and the JSON. The request-timing feature (requests.c) owns one and feeds the rules' snapshot
 * from it.
 */
#ifndef LOADLENS_OBSERVER_FEATURES_PAYLOAD_SAMPLING_H
#define LOADLENS_OBSERVER_FEATURES_PAYLOAD_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "loadlens/payload.h"
#include "sources/payload_read.h"

struct obs_reqtime;

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
