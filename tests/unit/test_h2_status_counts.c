// SPDX-License-Identifier: MIT
/*
 * A slot's HTTP/2 and gRPC status counts (observer/sources/h2_status_counts.c; their lines and
 * JSON, observer/output/h2_status_report.c), apart from the decoder (test_h2_status.c): the
 * kernel's counts joined to userspace's, and an interval's difference as the rules see it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ll_test.h"
#include "loadlens/grpc_status.h"
#include "loadlens/h2.h"
#include "loadlens/reqtime.h"
#include "output/h2_status_report.h"
#include "sources/h2_status.h"

/* What obs_h2_status_fmt() writes for c (free() it). */
static char *fmt(const struct obs_h2_status_counts *c, uint64_t ends, uint64_t lost_conns,
		 uint64_t big_conns)
{
	struct ll_text t;

	obs_h2_status_fmt(ll_text_open(&t), c, ends, lost_conns, big_conns);
	return ll_text_close(&t);
}

/* The kernel's counts join userspace's: statuses, blocks, ends; the line and the key say how
 * many. */
static void test_add_kernel(void **state)
{
	struct obs_h2_status_counts c;
	struct rt_ctrs k;
	char *text;
	json_t *o;

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(&k, 0, sizeof(k));
	c.status[200 - OBS_H2_STATUS_LO] = 5;
	c.blocks = 5;
	k.h2_hb_static[0] = 1000; /* 200 */
	k.h2_hb_static[3] = 7;	  /* 304 */
	k.h2_hb_static[6] = 2;	  /* 500 */
	k.h2_hb_static_ends = 7;
	obs_h2_status_add_kernel(&c, &k);
	assert_int_equal(c.status[200 - OBS_H2_STATUS_LO], 1005);
	assert_int_equal(c.status[304 - OBS_H2_STATUS_LO], 7);
	assert_int_equal(c.status[500 - OBS_H2_STATUS_LO], 2);
	assert_int_equal(c.blocks, 1014);
	assert_int_equal(c.kernel, 1009);
	assert_int_equal(c.ends, 7);
	text = fmt(&c, 7, 0, 0);
	assert_non_null(strstr(text, ": 200 1005, 304 7, 500 2\n"));
	assert_non_null(strstr(text, "1009 of them read in the kernel"));
	assert_null(strstr(text, "not read"));
	free(text);
	o = obs_h2_status_json(&c, 7, 0, 0);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "blocks_read_in_kernel")), 1009);
	json_decref(o);
}

/* The summary's lines and the JSON: codes by name, what was not read. */
static void test_output(void **state)
{
	struct obs_h2_status_counts c;
	char *text;
	json_t *o;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.grpc[0] = 5400;
	c.grpc[8] = 600;
	c.status[200 - OBS_H2_STATUS_LO] = 6000;
	c.blocks = 12000;
	c.ends = 6000;
	text = fmt(&c, 6010, 1, 0);
	assert_non_null(strstr(text, ":status (HPACK read from the server's header blocks): "
				     "200 6000\n"));
	assert_non_null(strstr(text, "gRPC calls by grpc-status: OK 5400, "
				     "RESOURCE_EXHAUSTED 600\n"));
	assert_non_null(strstr(text, "statuses not read: 10 of 6010 stream-ending header blocks"));
	free(text);
	o = obs_h2_status_json(&c, 6010, 1, 0);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "grpc_status"),
							    "RESOURCE_EXHAUSTED")), 600);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "status"), "200")),
			 6000);
	assert_int_equal(json_integer_value(json_object_get(o, "ends_unread")), 10);
	assert_int_equal(json_integer_value(json_object_get(o, "stopped_ring_full")), 1);
	json_decref(o);
	/* nothing seen: no line */
	memset(&c, 0, sizeof(c));
	text = fmt(&c, 0, 0, 0);
	assert_string_equal(text, "");
	free(text);
}

/* An interval's statuses: the cumulative counts' difference, as the rules see it (classes, the
 * codes the most first, the 17th code and past in `more`, gRPC by status). */
static void test_interval_snap(void **state)
{
	struct obs_h2_status_counts prev, cur, d;
	struct obs_snap_status st;
	size_t i;

	(void)state;
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	prev.status[200 - OBS_H2_STATUS_LO] = 100;
	prev.grpc[LL_GRPC_OK] = 40;
	cur = prev;
	cur.status[200 - OBS_H2_STATUS_LO] += 1200;
	cur.status[404 - OBS_H2_STATUS_LO] = 30;
	cur.status[503 - OBS_H2_STATUS_LO] = 2;
	cur.status_other = 1;
	cur.grpc[8] = 12;
	cur.grpc_none = 1;
	obs_h2_status_sub(&d, &cur, &prev);
	assert_int_equal(d.status[200 - OBS_H2_STATUS_LO], 1200);
	assert_int_equal(d.grpc[LL_GRPC_OK], 0);
	assert_true(obs_h2_status_snap(&st, 8080, &d));
	assert_int_equal(st.port, 8080);
	assert_int_equal(st.cls[2], 1200);
	assert_int_equal(st.cls[4], 30);
	assert_int_equal(st.cls[5], 2);
	assert_int_equal(st.cls[0], 1);
	assert_int_equal(st.ncodes, 3);
	assert_int_equal(st.code[0].code, 200);
	assert_int_equal(st.code[1].code, 404);
	assert_int_equal(st.code[2].code, 503);
	assert_int_equal(st.grpc[8], 12);
	assert_int_equal(st.grpc_none, 1);
	/* nothing new: no statuses */
	obs_h2_status_sub(&d, &cur, &cur);
	assert_false(obs_h2_status_snap(&st, 8080, &d));
	/* 20 codes: the 16 with the most kept, the rest in more */
	memset(&d, 0, sizeof(d));
	for (i = 0; i < 20; i++)
		d.status[400 + i - OBS_H2_STATUS_LO] = i + 1;
	assert_true(obs_h2_status_snap(&st, 8080, &d));
	assert_int_equal(st.ncodes, OBS_SNAP_CODES);
	assert_int_equal(st.code[0].code, 419);
	assert_int_equal(st.code[OBS_SNAP_CODES - 1].code, 404);
	assert_int_equal(st.more, 1 + 2 + 3 + 4);
	assert_int_equal(st.cls[4], 210);
}

LL_TEST_MAIN(test_add_kernel, test_output, test_interval_snap)
