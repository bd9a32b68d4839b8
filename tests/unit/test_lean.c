// SPDX-License-Identifier: MIT
/*
 * When the lean hooks run (observer/kernel/lean.c, obs_lean_decide()): --lean auto starts with
 * every hook and the copy hook, and the first interval with requests decides (test_start); from
 * every hook, after OBS_LEAN_AFTER intervals of plain TCP requests only, through one interval with both sets of hooks; back to
 * every hook for good when the copy hook meets what it cannot time; never with TLS, HTTP/2 or
 * UDP about. Then the copy hook alone (targets by port, no UDP socket on them), through one
 * interval where the reads leave their own marks. No root, no kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "kernel/lean.h"

static const struct obs_lean_interval plain = {.tcp_requests = 1000};

/* Plain intervals until the switch: the state after each. */
static void go_lean(struct obs_lean_rule *r)
{
	unsigned int i;

	for (i = 1; i < OBS_LEAN_AFTER; i++)
		assert_int_equal(obs_lean_decide(r, OBS_LEAN_AUTO, &plain), OBS_LEAN_FULL);
	assert_int_equal(obs_lean_decide(r, OBS_LEAN_AUTO, &plain), OBS_LEAN_GOING);
	assert_non_null(strstr(r->why, "plain TCP"));
	assert_int_equal(obs_lean_decide(r, OBS_LEAN_AUTO, &plain), OBS_LEAN_LEAN);
}

static void test_plain_goes_lean(void **state)
{
	struct obs_lean_rule r = {0};
	struct obs_lean_interval lean = {.tcp_requests = 1000, .lean_unknown = 3};

	(void)state;
	go_lean(&r);
	/* 3 of 1000 reads without their arrival: under 1 in 100, it stays */
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &lean), OBS_LEAN_LEAN);
	/* 11 of 1000: back to every hook, through both sets, for good */
	lean.lean_unknown = 11;
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &lean), OBS_LEAN_LEAVING);
	assert_non_null(strstr(r.why, "11 of 1000"));
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_DONE);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_DONE);
	assert_int_equal(obs_lean_progs(OBS_LEAN_DONE),
			 OBS_LEAN_PROG_ARRIVAL | OBS_LEAN_PROG_RECV | OBS_LEAN_PROG_SEND);
	assert_false(obs_lean_marks(OBS_LEAN_DONE));
}

/* Idle intervals, or reads of several client writes, start the count again. */
static void test_count_restarts(void **state)
{
	struct obs_lean_rule r = {0};
	struct obs_lean_interval idle = {0}, piped = {.tcp_requests = 500, .multi_arrival = 3};
	unsigned int i;

	(void)state;
	for (i = 0; i < 10; i++) {
		assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, i % 2 ? &idle : &plain),
				 OBS_LEAN_FULL);
		assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &piped), OBS_LEAN_FULL);
	}
	go_lean(&r);
}

/* TLS, HTTP/2 or UDP: every hook, for good, from the start or from lean. */
static void test_never_with_tls_h2_udp(void **state)
{
	struct obs_lean_rule r = {0};
	struct obs_lean_interval h2 = {.tcp_requests = 10, .tls_h2 = 2};
	struct obs_lean_interval udp = {.tcp_requests = 10, .udp = 1};
	struct obs_lean_interval missed = {.tcp_requests = 10, .lean_missed = 1};

	(void)state;
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &h2), OBS_LEAN_DONE);
	assert_non_null(strstr(r.why, "2 TLS or HTTP/2 connections"));
	memset(&r, 0, sizeof(r));
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &udp), OBS_LEAN_DONE);
	assert_non_null(strstr(r.why, "UDP"));
	memset(&r, 0, sizeof(r));
	go_lean(&r);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &missed), OBS_LEAN_LEAVING);
	assert_non_null(strstr(r.why, "1 TLS or HTTP/2 connection "));
	/* from the overlap, straight back: the full hooks are still attached */
	memset(&r, 0, sizeof(r));
	for (unsigned int i = 0; i < OBS_LEAN_AFTER; i++)
		obs_lean_decide(&r, OBS_LEAN_AUTO, &plain);
	assert_int_equal(r.state, OBS_LEAN_GOING);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &udp), OBS_LEAN_DONE);
}

/* --lean on and off hold whatever comes. */
static void test_forced(void **state)
{
	struct obs_lean_rule r = {0};
	struct obs_lean_interval h2 = {.tcp_requests = 10, .tls_h2 = 2, .lean_missed = 3};

	(void)state;
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_ON, &h2), OBS_LEAN_LEAN);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_OFF, &plain), OBS_LEAN_FULL);
	assert_int_equal(obs_lean_progs(OBS_LEAN_LEAN), OBS_LEAN_PROG_COPY | OBS_LEAN_PROG_SEND);
	assert_int_equal(obs_lean_progs(OBS_LEAN_GOING), OBS_LEAN_PROG_ARRIVAL | OBS_LEAN_PROG_RECV |
								 OBS_LEAN_PROG_COPY | OBS_LEAN_PROG_SEND);
	/* --lean on never detaches the send hook */
	r.solo = true;
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_ON, &plain), OBS_LEAN_LEAN);
	assert_true(obs_lean_marks(OBS_LEAN_GOING) && obs_lean_marks(OBS_LEAN_LEAN));
	assert_int_equal(obs_lean_mode_parse("auto"), OBS_LEAN_AUTO);
	assert_int_equal(obs_lean_mode_parse("lean"), -1);
}

/* The copy hook alone: one lean interval with requests, then one where the reads leave their own
 * marks with the send hook still there, then without it; the lean_solo byte stays on after. */
static void test_solo(void **state)
{
	struct obs_lean_rule r = {.solo = true};
	struct obs_lean_interval udp_sock = {.tcp_requests = 1000, .udp_socks = 1};
	struct obs_lean_interval untimed = {.tcp_requests = 1000, .untimed = 3};
	struct obs_lean_interval idle = {0};

	(void)state;
	go_lean(&r);
	/* a UDP socket on a target port: lean, not alone; an idle interval: not yet */
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &udp_sock), OBS_LEAN_LEAN);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &idle), OBS_LEAN_LEAN);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_SOLO_GOING);
	assert_non_null(strstr(r.why, "no UDP socket"));
	assert_int_equal(obs_lean_progs(OBS_LEAN_SOLO_GOING), OBS_LEAN_PROG_COPY | OBS_LEAN_PROG_SEND);
	assert_int_equal(obs_lean_solo(OBS_LEAN_SOLO_GOING, 0), 1);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_SOLO);
	assert_int_equal(obs_lean_progs(OBS_LEAN_SOLO), OBS_LEAN_PROG_COPY);
	assert_int_equal(obs_lean_solo(OBS_LEAN_SOLO, 1), 2);
	assert_true(obs_lean_marks(OBS_LEAN_SOLO));
	/* 3 of 1000 untimed stays; idle stays */
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &untimed), OBS_LEAN_SOLO);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &idle), OBS_LEAN_SOLO);
	/* 11 of 1000 (their next arrivals unknown too): the send hook again, lean for the rest of
	 * the run; the byte stays on (reads answer what went unseen) */
	untimed.untimed = 11;
	untimed.lean_unknown = 11;
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &untimed), OBS_LEAN_LEAN);
	assert_non_null(strstr(r.why, "11 of 1000 responses"));
	assert_int_equal(obs_lean_solo(OBS_LEAN_LEAN, 2), 1);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_LEAN);
	struct obs_lean_interval missed = {.tcp_requests = 10, .lean_missed = 1};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &missed), OBS_LEAN_LEAVING);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_DONE);
	assert_int_equal(obs_lean_solo(OBS_LEAN_DONE, 1), 1);
	assert_int_equal(obs_lean_solo(OBS_LEAN_DONE, 0), 0);
	/* a UDP socket comes: the send hook again */
	memset(&r, 0, sizeof(r));
	r.solo = true;
	go_lean(&r);
	obs_lean_decide(&r, OBS_LEAN_AUTO, &plain);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &udp_sock), OBS_LEAN_LEAN);
	assert_non_null(strstr(r.why, "1 UDP socket on a target port"));
	/* TLS or HTTP/2 while alone: every hook */
	memset(&r, 0, sizeof(r));
	r.solo = true;
	go_lean(&r);
	obs_lean_decide(&r, OBS_LEAN_AUTO, &plain);
	obs_lean_decide(&r, OBS_LEAN_AUTO, &plain);
	assert_int_equal(r.state, OBS_LEAN_SOLO);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &missed), OBS_LEAN_LEAVING);
	/* targets not by port: lean stays lean */
	memset(&r, 0, sizeof(r));
	go_lean(&r);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_LEAN);
}

/* --lean auto's start: every hook and the copy hook; the first interval with requests decides,
 * straight to the copy hook alone (by port) or the lean hooks; TLS, HTTP/2, UDP or reads without
 * their arrival: every hook for good; reads of several client writes: every hook until
 * OBS_LEAN_AFTER plain intervals (the old way, through the overlap). */
static void test_start(void **state)
{
	struct obs_lean_rule r = {.state = OBS_LEAN_START, .solo = true};
	struct obs_lean_interval idle = {0}, udp_sock = {.tcp_requests = 1000, .udp_socks = 2};
	struct obs_lean_interval piped = {.tcp_requests = 500, .multi_arrival = 3};
	struct obs_lean_interval h2 = {.tcp_requests = 10, .tls_h2 = 1};
	struct obs_lean_interval unknown = {.tcp_requests = 1000, .lean_unknown = 11};

	(void)state;
	assert_int_equal(obs_lean_progs(OBS_LEAN_START), OBS_LEAN_PROG_ARRIVAL | OBS_LEAN_PROG_RECV |
								 OBS_LEAN_PROG_COPY | OBS_LEAN_PROG_SEND);
	/* the full hooks there before the copy hook: TLS and HTTP/2 left to them (2) */
	assert_int_equal(obs_lean_marks(OBS_LEAN_START), 2);
	assert_int_equal(obs_lean_marks(OBS_LEAN_GOING), 2);
	assert_int_equal(obs_lean_marks(OBS_LEAN_LEAVING), 1);
	assert_int_equal(obs_lean_marks(OBS_LEAN_SOLO), 1);
	assert_int_equal(obs_lean_marks(OBS_LEAN_DONE), 0);
	/* no request yet: it waits */
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &idle), OBS_LEAN_START);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_SOLO);
	assert_non_null(strstr(r.why, "by port"));
	assert_int_equal(obs_lean_solo(OBS_LEAN_SOLO, 1), 2);
	/* responses in several writes (slapd's entries and Done): the lean hooks, never the copy
	 * hook alone, for the run; 1 in 100 is still fit */
	struct obs_lean_interval pieces = {.tcp_requests = 1000, .multi_write = 11};
	r = (struct obs_lean_rule){.state = OBS_LEAN_START, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &pieces), OBS_LEAN_LEAN);
	assert_non_null(strstr(r.why, "11 of 1000 responses written in several writes"));
	assert_false(r.solo);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_LEAN);
	pieces.multi_write = 10;
	r = (struct obs_lean_rule){.state = OBS_LEAN_START, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &pieces), OBS_LEAN_SOLO);
	/* found while lean (the start was idle of them): lean stays */
	pieces.multi_write = 500;
	r = (struct obs_lean_rule){.state = OBS_LEAN_LEAN, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &pieces), OBS_LEAN_LEAN);
	assert_false(r.solo);
	/* not by port, or a UDP socket on a target port: the lean hooks */
	r = (struct obs_lean_rule){.state = OBS_LEAN_START};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_LEAN);
	r = (struct obs_lean_rule){.state = OBS_LEAN_START, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &udp_sock), OBS_LEAN_LEAN);
	/* what the copy hook cannot do: every hook, for good */
	r = (struct obs_lean_rule){.state = OBS_LEAN_START, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &h2), OBS_LEAN_DONE);
	assert_non_null(strstr(r.why, "1 TLS or HTTP/2 connection "));
	r = (struct obs_lean_rule){.state = OBS_LEAN_START, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &unknown), OBS_LEAN_DONE);
	assert_non_null(strstr(r.why, "11 of 1000"));
	/* pipelined reads: every hook for now, lean after OBS_LEAN_AFTER plain intervals */
	r = (struct obs_lean_rule){.state = OBS_LEAN_START, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &piped), OBS_LEAN_FULL);
	assert_non_null(strstr(r.why, "3 reads of several client writes"));
	go_lean(&r);
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &plain), OBS_LEAN_SOLO_GOING);
	/* a socket queue forming (p99 past OBS_LEAN_QUEUE_NS): every hook for now, the older way;
	 * just under it: the copy hook alone */
	struct obs_lean_interval queued = {.tcp_requests = 1000,
					   .queue_p99_ns = OBS_LEAN_QUEUE_NS + 1};
	r = (struct obs_lean_rule){.state = OBS_LEAN_START, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &queued), OBS_LEAN_FULL);
	assert_non_null(strstr(r.why, "socket-queue wait p99 10.0 ms"));
	go_lean(&r);
	queued.queue_p99_ns = OBS_LEAN_QUEUE_NS;
	r = (struct obs_lean_rule){.state = OBS_LEAN_START, .solo = true};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_AUTO, &queued), OBS_LEAN_SOLO);
	/* --lean on and off never start there */
	r = (struct obs_lean_rule){.state = OBS_LEAN_START};
	assert_int_equal(obs_lean_decide(&r, OBS_LEAN_OFF, &plain), OBS_LEAN_FULL);
}

LL_TEST_MAIN(test_plain_goes_lean, test_count_restarts, test_never_with_tls_h2_udp, test_forced,
	     test_solo, test_start)
