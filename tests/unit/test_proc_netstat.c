// SPDX-License-Identifier: MIT
/*
 * The TcpExt counters of /proc/net/netstat (observer/sources/proc_netstat.c), on the file's own
 * layout: a line of names, then a line of values, among the other protocols' pairs. No root.
 */
#include <errno.h>
#include <string.h>
#include "ll_test.h"
#include "sources/proc_netstat.h"

static void test_tcpext_counters(void **state)
{
	char text[] = "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPReqQFullDrop "
		      "TCPTimeWaitOverflow TCPOrigDataSent\n"
		      "TcpExt: 1 17 23 4 5 99\n"
		      "IpExt: InNoRoutes ListenOverflows\n"
		      "IpExt: 0 1000\n";
	struct obs_netstat n;

	(void)state;
	assert_int_equal(obs_proc_netstat_parse(text, &n), 0);
	assert_int_equal(n.ok, 1);
	assert_int_equal(n.listen_overflows, 17);
	assert_int_equal(n.listen_drops, 23);
	assert_int_equal(n.reqq_full_drop, 4);
	assert_int_equal(n.tw_overflow, 5);
}

static void test_no_tcpext_pair(void **state)
{
	char names_only[] = "TcpExt: ListenOverflows ListenDrops\n";
	char none[] = "IpExt: InNoRoutes\nIpExt: 0\n";
	struct obs_netstat n;

	(void)state;
	assert_int_equal(obs_proc_netstat_parse(names_only, &n), -ENOENT);
	assert_int_equal(n.ok, 0);
	assert_int_equal(obs_proc_netstat_parse(none, &n), -ENOENT);
	assert_int_equal(n.listen_overflows, 0);
}

static void test_read_without_a_file(void **state)
{
	struct obs_netstat n;

	(void)state;
	memset(&n, 0xff, sizeof(n));
	assert_int_equal(obs_proc_netstat_read(-1, &n), -ENOENT);
	assert_int_equal(n.ok, 0);
	assert_int_equal(n.listen_drops, 0);
}

LL_TEST_MAIN(test_tcpext_counters, test_no_tcpext_pair, test_read_without_a_file)
