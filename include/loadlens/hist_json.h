/* SPDX-License-Identifier: MIT */
/*
 * JSON form of struct ll_hist (schema in docs/observer.md, "JSON summary", a histogram):
 *   {"unit":"ns","sub_bits":7,"count":N,"min":..,"max":..,"sum":..,"mean":..,"stddev":..,
 *    "p50":..,"p75":..,"p90":..,"p95":..,"p99":..,"p999":..,"buckets":[[index,count],...]}
 * Only non-empty buckets are written. Decoding reads count/min/max/sum/buckets, so a decoded
 * histogram merges exactly with others; the percentile fields are for readers.
 */
#ifndef LOADLENS_HIST_JSON_H
#define LOADLENS_HIST_JSON_H

#include <jansson.h>
#include "loadlens/ll_hist.h"

json_t *ll_hist_to_json(const struct ll_hist *h);
/* Returns 0, or -EINVAL if obj is not a histogram of this bucket layout. */
int ll_hist_from_json(struct ll_hist *h, const json_t *obj);

#endif /* LOADLENS_HIST_JSON_H */
