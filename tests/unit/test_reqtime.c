// SPDX-License-Identifier: MIT
/*
 * What counts as a read of several client writes (include/loadlens/reqtime.h,
 * rt_client_writes(): the kernel's count behind the arrivals' pipelining note): a request read
 * with the peer's FIN is one write; TLS records are never several requests. And the lean hooks'
 * arrival (rt_lean_mark(), rt_lean_arrival()): TCP's clock at a read's first copy is taken only
 * when the last write's mark tells it was the receipt of the request's one segment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/reqtime.h"

static void test_client_writes(void **state)
{
	(void)state;
	assert_int_equal(rt_client_writes(1, 0, 0), 1);
	/* two requests written apart, read at once: pipelining */
	assert_int_equal(rt_client_writes(2, 0, 0), 2);
	/* a request and the FIN (pgbench -C's Terminate, an HTTP/1.0 half-close): one */
	assert_int_equal(rt_client_writes(2, 1, 0), 1);
	/* two requests and the FIN: still two */
	assert_int_equal(rt_client_writes(3, 1, 0), 2);
	/* a FIN alone never makes a read of 0 writes */
	assert_int_equal(rt_client_writes(1, 1, 0), 1);
	/* TLS: ChangeCipherSpec, Finished and a request, each its own write: one */
	assert_int_equal(rt_client_writes(3, 0, 1), 1);
	assert_int_equal(rt_client_writes(2, 1, 1), 1);
}

/* A keep-alive turn: the response left at 1000 (copied_seq 500, nothing unread, 7 data segments
 * in so far); the next request is one segment received at 1500, 40 bytes. */
static struct rt_lean_in turn(void)
{
	struct rt_lean_in in = {
		.mark = rt_lean_mark(500, 500, 7),
		.clock = 1500,
		.after = 1000,
		.copied_seq = 540,
		.data_segs_in = 8,
		.data_segs_out = 9,
	};
	return in;
}

static void test_lean_arrival(void **state)
{
	struct rt_lean_in in;
	__u32 kind, bytes, multi;

	(void)state;
	in = turn();
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 1500);
	assert_int_equal(kind, RT_LEAN_EXACT);
	assert_int_equal(bytes, 40);
	assert_int_equal(multi, 0);
	/* the request came before the response went (bytes unread at the write): pipelined */
	in = turn();
	in.mark = rt_lean_mark(500, 540, 8);
	in.clock = 1700; /* the peer's ACK of the response, later */
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 0);
	assert_int_equal(kind, RT_LEAN_UNKNOWN);
	assert_int_equal(bytes, 40);
	/* two segments since the response: the clock is the second's; the first arrival is not
	 * known, and the read takes two client writes */
	in = turn();
	in.data_segs_in = 9;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 0);
	assert_int_equal(kind, RT_LEAN_UNKNOWN);
	assert_int_equal(multi, 1);
	/* the segment counter wraps in the mark (16 bits) */
	in = turn();
	in.mark = rt_lean_mark(500, 500, 0x1ffff);
	in.data_segs_in = 0x20000;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 1500);
	/* so does copied_seq */
	in = turn();
	in.mark = rt_lean_mark(0xfffffff0u, 0xfffffff0u, 7);
	in.copied_seq = 0x18;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 1500);
	assert_int_equal(bytes, 40);
	/* a clock not newer than the write: a refresh of ours, not the request's receipt */
	in = turn();
	in.clock = 1000;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 0);
	assert_int_equal(kind, RT_LEAN_UNKNOWN);
	/* the peer's FIN came after the request and refreshed the clock */
	in = turn();
	in.peer_fin = 1;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 0);
	/* no mark: the last write was before the marks (or a timestamp is there) */
	in = turn();
	in.mark = 1000;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 0);
	assert_int_equal(kind, RT_LEAN_BEFORE);
	assert_int_equal(bytes, 0);
}

/* A connection's first read: no mark; its one segment's receipt, unless anything else came. */
static void test_lean_first(void **state)
{
	struct rt_lean_in in = {.clock = 900, .consumed = 78, .copied_seq = 79, .data_segs_in = 1,
				.first = 1};
	__u32 kind, bytes, multi;

	(void)state;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 900);
	assert_int_equal(kind, RT_LEAN_EXACT);
	assert_int_equal(bytes, 78);
	/* a greeting went first: its transmit may be the clock */
	in.data_segs_out = 1;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 0);
	assert_int_equal(kind, RT_LEAN_UNKNOWN);
	/* the request in two writes */
	in.data_segs_out = 0;
	in.data_segs_in = 2;
	assert_int_equal(rt_lean_arrival(&in, &kind, &bytes, &multi), 0);
	assert_int_equal(multi, 1);
	assert_int_equal(bytes, 78);
}

/*
 * The copy hook alone's write time (rt_solo_write()): TCP's stamp of its last transmit, where only
 * the response can be that. Read at 1000; the response's one segment stamped 1400.
 */
static void test_solo_write(void **state)
{
	(void)state;
	/* nothing received since (a sweep of an idle connection, or the server's close): the stamp,
	 * even though it is TCP's last clock too */
	assert_int_equal(rt_solo_write(1, 0, 0, 1400, 1400, 1000), 1400);
	/* the client's ACK of it came (no data): the same */
	assert_int_equal(rt_solo_write(1, 0, 0, 1400, 1600, 1000), 1400);
	/* the next request's one segment came at 2000, acknowledged by the next response: the
	 * stamp is older than its receipt */
	assert_int_equal(rt_solo_write(1, 1, 0, 1400, 2000, 1000), 1400);
	/* a quick-ack of that segment carries its receipt's clock: not the response's */
	assert_int_equal(rt_solo_write(1, 1, 0, 2000, 2000, 1000), 0);
	/* the request came first, the response was stamped after it (pipelined): not known */
	assert_int_equal(rt_solo_write(1, 1, 0, 2100, 2000, 1000), 0);
	/* the client's FIN came, and the server acknowledged it: not known; not acknowledged yet:
	 * the stamp is older than the FIN's receipt */
	assert_int_equal(rt_solo_write(1, 0, 1, 1900, 1900, 1000), 0);
	assert_int_equal(rt_solo_write(1, 0, 1, 1400, 1900, 1000), 1400);
	/* two segments out (a response in pieces, a retransmit), two in: not known */
	assert_int_equal(rt_solo_write(2, 0, 0, 1400, 1400, 1000), 0);
	assert_int_equal(rt_solo_write(1, 2, 0, 1400, 2000, 1000), 0);
	/* a stamp not after the read is no response of this request */
	assert_int_equal(rt_solo_write(1, 0, 0, 1000, 1600, 1000), 0);
}

LL_TEST_MAIN(test_client_writes, test_lean_arrival, test_lean_first, test_solo_write)
