// SPDX-License-Identifier: MIT
/*
 * The findings rules (observer/rules/) on synthetic snapshots: the notes on what a count means
 * (pipelining, a UDP socket several threads read, a target in another netns, a --port nothing
 * listens on, a --pid that serves nothing itself). Each must name its case with its number and
 * stay silent without it. No root, no kernel.
 */
#include "rules_harness.h"

/* An interval of pipelined redis on 6379, memcached's UDP socket (12 datagrams unpaired), pid
 * 4242 in another netns and port 8080 with no listener. */
static void counts_to_note(struct obs_snap *s, int t)
{
	rh_req_slot(s, 10e3, 2e3);
	s->slot[0].port = 6379;
	s->slot[0].pipelined_reads = 6200;
	s->slot[0].reads = 6251;
	rh_udp_shared(s, 12);
	rh_proc(s, 4242, 30, 1024);
	s->netns_outside[s->nnetns_outside++] = 4242;
	s->no_listener[s->nno_listener++] = 8080;
}

/* Pipelined redis, memcached's 4 threads on one UDP socket, a target in another netns, and a
 * --port nothing listens on: each its own note, with its number. */
RULES_TEST(test_count_notes)
{
	const struct obs_finding *f;
	struct obs_snap *s;

	rh_intervals(r, 1, 1, counts_to_note);
	/* a server may still be starting: no_listener waits for a second interval */
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "no_listener", NULL));
	rh_intervals(r, 2, 2, counts_to_note);
	assert_int_equal(rh_run(r), 0); /* notes, never alarms */
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_int_equal(f->severity, OBS_SEV_NOTE);
	assert_non_null(strstr(f->text, "requests here are reads"));
	assert_non_null(strstr(f->text, "6,200 of 6,251"));
	f = rh_expect(r, "udp_shared_socket", "udp/11211");
	assert_int_equal(rh_ev_int(f, "sockets"), 1);
	assert_int_equal(rh_ev_int(f, "unpaired"), 12);
	assert_non_null(strstr(f->text, "12 datagrams were read while 8 other threads of their "
					"socket were serving one each: not counted"));
	f = rh_expect(r, "netns_outside", "pid 4242");
	assert_int_equal(rh_ev_int(f, "pid"), 4242);
	f = rh_expect(r, "no_listener", "port 8080");
	assert_int_equal(rh_ev_int(f, "port"), 8080);
	assert_int_equal(f->severity, OBS_SEV_NOTE);
	/* one request of 30 written in two pieces (a listen-overflow run): no pipelining */
	s = rh_snap(r, 3);
	rh_req_slot(s, 10e3, 2e3);
	s->slot[0].pipelined_reads = 1;
	s->slot[0].reads = 30;
	rh_pushed(r);
	assert_null(obs_findings_find(&r->fs, "pipelining", NULL));
}

/* One interval of a TCP slot on port 6379 with payload samples. */
static struct obs_snap_slot *pl(struct run *r, double t, uint64_t reads, uint64_t samples,
				   uint64_t multi, uint64_t requests, uint64_t max)
{
	struct obs_snap *s = rh_snap(r, t);
	struct obs_snap_slot *sl;

	rh_req_slot(s, 10e3, 2e3);
	sl = &s->slot[0];
	sl->port = 6379;
	sl->reads = reads;
	sl->pl_samples = samples;
	sl->pl_multi = multi;
	sl->pl_requests = requests;
	sl->pl_max = max;
	sl->pl_scan = 1024;
	obs_snap_push(&r->h);
	return sl;
}

/* redis-benchmark -P 16: each batch of 16 in one write, one arrival and one read: no
 * multi-arrival read, but the bytes hold 16 requests; the note gives the factor. */
RULES_TEST(test_pipelining_in_one_write)
{
	const struct obs_finding *f;

	pl(r, 1, 6251, 400, 390, 6240, 16);
	assert_int_equal(rh_run(r), 0);
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_int_equal(f->severity, OBS_SEV_NOTE);
	assert_non_null(strstr(f->text, "on tcp/6379, 98% of 400 sampled reads held several "
					"requests (15.6 per read on average, up to 16)"));
	assert_non_null(strstr(f->text, "requests here are reads"));
	assert_non_null(strstr(f->text, "the server handled about 16x the 6,251 requests "
					"counted"));
	assert_null(strstr(f->text, "counted by length"));
	assert_int_equal(rh_ev_int(f, "port"), 6379);
	assert_int_equal(rh_ev_int(f, "sampled_reads"), 400);
	assert_int_equal(rh_ev_int(f, "multi_request_reads"), 390);
	assert_int_equal(rh_ev_int(f, "max_per_read"), 16);
	assert_int_equal(rh_ev_int(f, "requests_counted"), 6251);
	assert_int_equal(rh_ev_int(f, "estimated_requests"), 97516); /* 6,251 x 15.6 */
	assert_int_equal(rh_ev_int(f, "pipelined_reads"), 0);
	/* -P 4 on a longer run, with reads longer than looked at */
	obs_snap_next(&r->h)->t = 2;
	obs_snap_push(&r->h);
	pl(r, 3, 25000, 800, 800, 3200, 4)->pl_extrapolated = 3;
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_non_null(strstr(f->text, "100% of 800 sampled reads held several requests (4.0 "
					"per read on average, up to 4)"));
	assert_non_null(strstr(f->text, "about 4.0x the 25,000 requests counted; 3 reads were "
					"longer than the 1024 bytes looked at: counted by length"));
}

/* One request per read (keep-alive HTTP, memcached gets, an echo), a few reads that look like
 * two (a body line that begins like a request), a binary protocol (HTTP/2: nothing sampled as
 * text), and too few samples to tell: no note. */
RULES_TEST(test_pipelining_silent)
{
	pl(r, 1, 90000, 600, 0, 600, 1);
	rh_silent(r);
	pl(r, 2, 90000, 600, 9, 610, 2); /* 9 of 600: fewer than 10 */
	rh_silent(r);
	pl(r, 3, 90000, 600, 40, 640, 2); /* 40 of 600, 6.7%: under 10% */
	rh_silent(r);
	pl(r, 4, 90000, 0, 0, 0, 0); /* HTTP/2: every sample binary */
	rh_silent(r);
	pl(r, 5, 40, 2, 2, 32, 16); /* 2 samples, both pipelined: too few to say */
	rh_silent(r);
	pl(r, 5.5, 90000, 9, 4, 40, 16); /* a burst's 9 samples, 4 pipelined: under half */
	rh_silent(r);
	/* the same bytes on a UDP slot (datagrams are requests): never */
	pl(r, 6, 5000, 100, 100, 1600, 16)->udp = true;
	rh_silent(r);
}

/* A pipelined burst (redis-benchmark -P 16, 100,000 commands in 0.07 s): the sampler's 8 ms
 * gate takes about 9 reads; nearly all hold 16 commands: the note, as on a long run. */
RULES_TEST(test_pipelining_burst)
{
	const struct obs_finding *f;

	pl(r, 1, 6250, 9, 9, 144, 16);
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_non_null(strstr(f->text, "100% of 9 sampled reads held several requests (16.0 per "
					"read on average, up to 16)"));
	assert_int_equal(rh_ev_int(f, "estimated_requests"), 100000);
	/* the fewest a burst needs: 3 of 5 */
	pl(r, 2, 600, 5, 3, 35, 16);
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_int_equal(rh_ev_int(f, "multi_request_reads"), 3);
}

/* Both signs: the bytes' figures win, with the arrivals' count in the evidence; the arrivals
 * alone (a binary protocol, HTTP/2 streams written one by one) keep their own text. */
RULES_TEST(test_pipelining_both_signs)
{
	const struct obs_finding *f;

	pl(r, 1, 1274, 300, 280, 1300, 16)->pipelined_reads = 301;
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_non_null(strstr(f->text, "93% of 300 sampled reads held several requests (4.3 per "
					"read on average, up to 16)"));
	assert_int_equal(rh_ev_int(f, "pipelined_reads"), 301);
	assert_int_equal(rh_ev_int(f, "estimated_requests"), 5521); /* 1,274 x 1300 / 300 */
	pl(r, 2, 3794, 0, 0, 0, 0)->pipelined_reads = 3767;
	f = rh_expect(r, "pipelining", "tcp/6379");
	assert_non_null(strstr(f->text, "3,767 of 3,794 reads took several writes of the client"));
	assert_null(json_object_get(f->evidence, "sampled_reads"));
}

/* Interval t of a --pid target (a cluster's primary, children 501 and 502) that accepts 100
 * connections a second, reads no request and leaves 200 t server-side sockets to others. */
static void primary(struct obs_snap *s, int t)
{
	s->pid_targets = true;
	s->requests_on = true;
	s->accepted = 100;
	s->foreign_sockets = 200 * (uint64_t)t;
	s->nkids = 2;
	s->kid[0].pid = 501;
	snprintf(s->kid[0].comm, sizeof(s->kid[0].comm), "node");
	s->kid[1].pid = 502;
	snprintf(s->kid[1].comm, sizeof(s->kid[1].comm), "node");
}

/* Interval t under port scoping: 100 accepted, 10 sockets others read first, no request. */
static void port_scoped(struct obs_snap *s, int t)
{
	s->requests_on = true;
	s->accepted = 100;
	s->foreign_sockets = 10;
}

/* --pid of a process that accepts and serves nothing (a cluster's primary): a note naming its
 * children; silent once a request is timed, or with nothing accepted. */
RULES_TEST(test_served_elsewhere)
{
	const struct obs_finding *f;
	struct obs_snap *s;
	int t;

	for (t = 1; t <= 3; t++) {
		rh_intervals(r, t, t, primary);
		rh_run(r);
		f = obs_findings_find(&r->fs, "served_elsewhere", NULL);
		if (t == 1) { /* one interval of accepts is not enough */
			assert_null(f);
			continue;
		}
		assert_non_null(f);
		assert_int_equal(f->severity, OBS_SEV_NOTE);
	}
	assert_non_null(strstr(f->text, "accepted 300 connections in 3 s but read no request"));
	assert_non_null(strstr(f->text, "the targets' children: 501 (node), 502 (node)"));
	assert_int_equal(rh_ev_int(f, "accepted"), 300);
	/* a request timed: they serve what they accept */
	s = rh_snap(r, 4);
	primary(s, 4);
	s->nslots = 1;
	s->slot[0].port = 8080;
	s->slot[0].requests = 1;
	rh_pushed(r);
	assert_null(obs_findings_find(&r->fs, "served_elsewhere", NULL));
	/* port scoping: no note */
	rh_restart(r);
	rh_intervals(r, 1, 3, port_scoped);
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "served_elsewhere", NULL));
}

/* --pid of a process that hands its connections to another, unrelated one (fd passing): the
 * note names who read them, the most sockets first, four at most in the text. */
static void test_served_elsewhere_readers(void **state)
{
	static const char *const comm[6] = {"worker", "sshd", "a", "b", "c", "d"};
	static const uint64_t socks[6] = {300, 2, 1, 1, 1, 1};
	struct run *r = *state;
	const struct obs_finding *f = NULL;
	struct obs_snap *s;
	json_t *rd;
	int t, i;

	for (t = 1; t <= 2; t++) {
		s = rh_snap(r, t);
		s->pid_targets = true;
		s->requests_on = true;
		s->accepted = 150;
		s->foreign_sockets = 600;
		for (i = 0; i < 6; i++) {
			s->reader[i].pid = 700 + (uint32_t)i;
			snprintf(s->reader[i].comm, sizeof(s->reader[i].comm), "%s", comm[i]);
			s->reader[i].port = i == 1 ? 22 : 18977;
			s->reader[i].udp = i == 2; /* not a connection: left out */
			s->reader[i].sockets = socks[i];
		}
		s->nreaders = 6;
		obs_snap_push(&r->h);
		obs_findings_clear(&r->fs);
		obs_rules_run(&r->h, &r->fs);
		f = obs_findings_find(&r->fs, "served_elsewhere", NULL);
	}
	assert_non_null(f);
	assert_non_null(strstr(f->text, "; server-side sockets read first by others, the most "
					"first: worker (pid 700: 300 on tcp/18977), sshd (pid 701: "
					"2 on tcp/22), b (pid 703: 1 on tcp/18977), c (pid 704: 1 "
					"on tcp/18977) and 1 more; watch those"));
	assert_null(strstr(f->text, "the targets' children"));
	rd = json_object_get(f->evidence, "readers");
	assert_int_equal(json_array_size(rd), 5);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rd, 0), "sockets")), 300);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rd, 1), "port")), 22);
}

/* Interval t of memcached's UDP socket: every datagram paired, then 3 not at t = 2. */
static void udp_paired(struct obs_snap *s, int t)
{
	rh_udp_shared(s, t == 2 ? 3 : 0);
}

/* memcached's 4 threads on one UDP socket, each timed from its own read to its own reply: every
 * datagram counted, no note; 3 read while all 8 entries were serving: the note, with the 3. */
RULES_TEST(test_udp_shared_paired)
{
	const struct obs_finding *f;

	rh_intervals(r, 1, 1, udp_paired);
	rh_run(r);
	assert_null(obs_findings_find(&r->fs, "udp_shared_socket", NULL));
	rh_intervals(r, 2, 2, udp_paired);
	rh_run(r);
	f = rh_expect(r, "udp_shared_socket", "udp/11211");
	assert_int_equal(rh_ev_int(f, "unpaired"), 3);
}

LL_TEST_MAIN_EACH(rh_setup, rh_teardown, test_served_elsewhere, test_served_elsewhere_readers,
	          test_count_notes, test_udp_shared_paired, test_pipelining_in_one_write,
	          test_pipelining_silent, test_pipelining_burst, test_pipelining_both_signs)
