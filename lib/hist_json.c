// SPDX-License-Identifier: MIT
/* Encode and decode struct ll_hist as JSON (jansson). */
#include <errno.h>
#include "loadlens/hist_json.h"

json_t *ll_hist_to_json(const struct ll_hist *h)
{
	json_t *o = json_object(), *b = json_array();
	uint32_t i;

	if (!o || !b) {
		json_decref(o);
		json_decref(b);
		return NULL;
	}
	for (i = 0; i < LL_HIST_BUCKETS; i++) {
		if (h->counts[i])
			json_array_append_new(b, json_pack("[iI]", (int)i, (json_int_t)h->counts[i]));
	}
	json_object_set_new(o, "unit", json_string("ns"));
	json_object_set_new(o, "sub_bits", json_integer(LL_HIST_SUB_BITS));
	json_object_set_new(o, "count", json_integer((json_int_t)h->total));
	json_object_set_new(o, "min", json_integer((json_int_t)ll_hist_min(h)));
	json_object_set_new(o, "max", json_integer((json_int_t)h->max));
	json_object_set_new(o, "sum", json_integer((json_int_t)h->sum));
	json_object_set_new(o, "mean", json_real(ll_hist_mean(h)));
	json_object_set_new(o, "stddev", json_real(ll_hist_stddev(h)));
	json_object_set_new(o, "p50", json_integer((json_int_t)ll_hist_percentile(h, 50)));
	json_object_set_new(o, "p75", json_integer((json_int_t)ll_hist_percentile(h, 75)));
	json_object_set_new(o, "p90", json_integer((json_int_t)ll_hist_percentile(h, 90)));
	json_object_set_new(o, "p95", json_integer((json_int_t)ll_hist_percentile(h, 95)));
	json_object_set_new(o, "p99", json_integer((json_int_t)ll_hist_percentile(h, 99)));
	json_object_set_new(o, "p999", json_integer((json_int_t)ll_hist_percentile(h, 99.9)));
	json_object_set_new(o, "buckets", b);
	return o;
}

int ll_hist_from_json(struct ll_hist *h, const json_t *obj)
{
	json_t *b, *pair;
	json_int_t sub_bits = -1, count = -1, min = 0, max = 0, sum = 0;
	uint64_t total = 0;
	size_t i;

	ll_hist_reset(h);
	if (!json_is_object(obj))
		return -EINVAL;
	if (json_unpack((json_t *)obj, "{s:I,s:I,s:I,s:I,s:I,s:o}", "sub_bits", &sub_bits,
			"count", &count, "min", &min, "max", &max, "sum", &sum, "buckets", &b))
		return -EINVAL;
	if (sub_bits != LL_HIST_SUB_BITS || count < 0 || !json_is_array(b))
		return -EINVAL;
	json_array_foreach(b, i, pair)
	{
		json_int_t idx, n;

		if (json_unpack(pair, "[II]", &idx, &n) || idx < 0 || idx >= LL_HIST_BUCKETS ||
		    n < 0)
			return -EINVAL;
		h->counts[idx] += (uint64_t)n;
		total += (uint64_t)n;
	}
	if (total != (uint64_t)count)
		return -EINVAL;
	h->total = total;
	if (total) {
		h->min = (uint64_t)min;
		h->max = (uint64_t)max;
		h->sum = (uint64_t)sum;
	}
	return 0;
}
