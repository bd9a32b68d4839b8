// SPDX-License-Identifier: MIT
/* The metrics exposition (observer/output/metrics*.c): bucket derivation from our histogram,
 * escaping, values, and the Prometheus text and OpenMetrics formats of a synthetic snapshot. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/hist.h"
#include "metrics/metrics.h"

static void test_edges_are_bucket_edges(void **state)
{
	uint64_t n, e, w;
	size_t i;

	(void)state;
	for (i = 0; i < OBS_MX_BOUNDS; i++) {
		n = (uint64_t)llround(obs_mx_bounds_s[i] * 1e9);
		e = obs_mx_edge_ns(obs_mx_bounds_s[i]);
		/* an edge: the lowest value of its bucket */
		assert_int_equal(ll_hist_bucket_low(ll_hist_bucket(e)), e);
		/* the nearest one to le + 1 ns: within half a bucket, 0.39% of le */
		w = ll_hist_bucket_width(ll_hist_bucket(n + 1));
		assert_true(e >= n + 1 ? e - (n + 1) <= w / 2 : (n + 1) - e <= w / 2);
		assert_true(fabs((double)e - (double)(n + 1)) <= 0.0039 * (double)n);
	}
	/* figures the docs quote */
	assert_int_equal(obs_mx_edge_ns(1e-6), 1000);	       /* 1000..1003 counted above */
	assert_int_equal(obs_mx_edge_ns(1e-3), 999424);	       /* 244 x 4096 */
	assert_int_equal(obs_mx_edge_ns(1.0), 998244352);      /* 238 x 2^22 */
	assert_int_equal(obs_mx_edge_ns(100e-9), 101);	       /* below 128 ns: exact */
}

static void test_buckets_cumulate_ours(void **state)
{
	uint64_t *counts = calloc(LL_HIST_BUCKETS, sizeof(*counts)), cum[OBS_MX_BOUNDS], total;
	size_t i;

	(void)state;
	assert_non_null(counts);
	/* one sample in every bucket: a boundary counts the buckets below its edge */
	for (i = 0; i < LL_HIST_BUCKETS; i++)
		counts[i] = 1;
	total = obs_mx_buckets(counts, cum);
	assert_int_equal(total, LL_HIST_BUCKETS);
	for (i = 0; i < OBS_MX_BOUNDS; i++)
		assert_int_equal(cum[i], ll_hist_bucket(obs_mx_edge_ns(obs_mx_bounds_s[i])));
	/* samples by value: 999 ns is <= 1 us; 1.5 ms is in (1 ms, 2 ms]; 3 s in (2 s, 5 s] */
	memset(counts, 0, LL_HIST_BUCKETS * sizeof(*counts));
	counts[ll_hist_bucket(999)] += 2;
	counts[ll_hist_bucket(1500000)] += 3;
	counts[ll_hist_bucket(3000000000ULL)] += 1;
	counts[ll_hist_bucket(1ULL << 40)] += 1; /* past 274 s: the last bucket, only +Inf */
	total = obs_mx_buckets(counts, cum);
	assert_int_equal(total, 7);
	assert_int_equal(cum[0], 2);  /* 1 us */
	assert_int_equal(cum[8], 2);  /* 500 us */
	assert_int_equal(cum[9], 2);  /* 1 ms */
	assert_int_equal(cum[10], 5); /* 2 ms */
	assert_int_equal(cum[19], 5); /* 2 s */
	assert_int_equal(cum[20], 6); /* 5 s */
	assert_int_equal(cum[24], 6); /* 100 s */
	/* none at all */
	total = obs_mx_buckets(NULL, cum);
	assert_int_equal(total, 0);
	assert_int_equal(cum[24], 0);
	free(counts);
}

static void test_escape(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(obs_mx_escape("a\"b\\c\nd", out, sizeof(out)), "a\\\"b\\\\c\\nd");
	assert_string_equal(obs_mx_escape("nginx: worker", out, sizeof(out)), "nginx: worker");
	/* cut at a whole escape, never half of one */
	assert_string_equal(obs_mx_escape("ab\"", out, 4), "ab");
	assert_string_equal(obs_mx_escape("", out, sizeof(out)), "");
}

static void test_values(void **state)
{
	char v[40];

	(void)state;
	obs_mx_value(0.0025, v, sizeof(v));
	assert_string_equal(v, "0.0025");
	obs_mx_value(1e-6, v, sizeof(v));
	assert_string_equal(v, "1e-06");
	obs_mx_value(100, v, sizeof(v));
	assert_string_equal(v, "100");
	obs_mx_value(18446744073709551615.0, v, sizeof(v));
	assert_float_equal(strtod(v, NULL), 18446744073709551615.0, 0);
	obs_mx_value(INFINITY, v, sizeof(v));
	assert_string_equal(v, "+Inf");
	obs_mx_value(NAN, v, sizeof(v));
	assert_string_equal(v, "NaN");
	obs_mx_value(0.1 + 0.2, v, sizeof(v));
	assert_true(strtod(v, NULL) == 0.1 + 0.2);
}

static void test_negotiate(void **state)
{
	(void)state;
	/* what Prometheus 2.42 sends */
	assert_int_equal(obs_mx_negotiate("application/openmetrics-text;version=1.0.0,application/"
					  "openmetrics-text;version=0.0.1;q=0.75,text/plain;"
					  "version=0.0.4;q=0.5,*/*;q=0.1"),
			 OBS_MX_OPENMETRICS);
	assert_int_equal(obs_mx_negotiate("text/plain"), OBS_MX_PROMETHEUS);
	assert_int_equal(obs_mx_negotiate(NULL), OBS_MX_PROMETHEUS);
	assert_non_null(strstr(obs_mx_content_type(OBS_MX_PROMETHEUS), "version=0.0.4"));
	assert_non_null(strstr(obs_mx_content_type(OBS_MX_OPENMETRICS), "openmetrics-text"));
}

/* A snapshot with one of everything. */
static struct obs_mx_snap *snap(uint64_t *counts)
{
	struct obs_mx_snap *s = calloc(1, sizeof(*s));
	size_t i;

	assert_non_null(s);
	strcpy(s->port, "8080");
	s->accepted = 42;
	s->handshakes = 43;
	s->naccept_err = 1;
	strcpy(s->accept_err[0].err, "EMFILE");
	s->accept_err[0].n = 3;
	s->census = true;
	s->tcp_state[1] = 7;
	s->tcp_state[6] = 100;
	s->port_range = 28232;
	s->ngroups = 1;
	strcpy(s->group[0].name, "127.0.0.1->127.0.0.1:8080");
	s->group[0].in_use = 120;
	s->groups_total = 3;
	s->nprocs = OBS_MX_PROCS;
	s->procs_total = OBS_MX_PROCS + 5;
	for (i = 0; i < OBS_MX_PROCS; i++) {
		s->proc[i].pid = (uint32_t)(100 + i);
		strcpy(s->proc[i].comm, "srv");
		s->proc[i].open = 10;
		s->proc[i].soft = i ? 1024 : -1;
	}
	strcpy(s->proc[0].comm, "a\"b\\c");
	s->files_known = true;
	s->file_nr = 2000;
	s->file_max = 100000;
	s->nfails = 1;
	s->fail[0] = (struct obs_mx_fail){"connect", "EADDRNOTAVAIL", 9};
	s->requests_on = true;
	s->nslots = 1;
	strcpy(s->slot[0].port, "8080");
	s->slot[0].requests = 5;
	counts[ll_hist_bucket(1500000)] = 5;
	for (i = 0; i < 3; i++) {
		s->slot[0].hist[i] = counts;
		s->slot[0].sum_ns[i] = 7500000;
	}
	s->nkinds = 2;
	s->kind[0] = (struct obs_mx_kind){"port_exhaustion", 2};
	s->kind[1] = (struct obs_mx_kind){"brand_new_kind", 1};
	s->bpf_stats = 1;
	s->nprogs = 1;
	strcpy(s->prog[0].name, "handle_inet_soc");
	s->prog[0].run_ns = 1500000000;
	s->prog[0].run_cnt = 10;
	s->lost_requests = 4;
	return s;
}

/* Every sample line is "name{labels} value" with a number for value. */
static void lines_parse(const char *text)
{
	const char *line = text, *nl, *sp;
	char val[64];

	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		if (*line == '#')
			continue;
		sp = nl;
		while (sp > line && sp[-1] != ' ')
			sp--;
		assert_true(sp > line);
		assert_true((size_t)(nl - sp) < sizeof(val));
		memcpy(val, sp, (size_t)(nl - sp));
		val[nl - sp] = '\0';
		if (strcmp(val, "+Inf") && strcmp(val, "NaN")) {
			char *end;

			strtod(val, &end);
			assert_true(*end == '\0');
		}
	}
}

/* Every string of the NULL-ended list is in text; else the test fails naming the first missing. */
static void contains(const char *text, const char *const *list)
{
	for (; *list; list++)
		if (!strstr(text, *list))
			fail_msg("missing: %s", *list);
}

/* No string of the NULL-ended list is in text. */
static void lacks(const char *text, const char *const *list)
{
	for (; *list; list++)
		if (strstr(text, *list))
			fail_msg("should not be there: %s", *list);
}

/* The test snapshot (snap) rendered in one format: its text, each line checked by
 * lines_parse. */
struct page {
	uint64_t *counts;
	struct obs_mx_snap *s;
	struct obs_mx_buf b;
};

static const char *render(struct page *pg, enum obs_mx_format format)
{
	pg->counts = calloc(LL_HIST_BUCKETS, sizeof(*pg->counts));
	pg->s = snap(pg->counts);
	pg->b = (struct obs_mx_buf){0};
	assert_int_equal(obs_mx_render(&pg->b, format, pg->s), 0);
	lines_parse(pg->b.p);
	return pg->b.p;
}

static void page_free(struct page *pg)
{
	obs_mx_buf_free(&pg->b);
	free(pg->s);
	free(pg->counts);
}

static void test_prometheus_text(void **state)
{
	struct page pg;
	const char *t = render(&pg, OBS_MX_PROMETHEUS);

	(void)state;
	contains(t, (const char *const[]){
		"# TYPE loadlens_accepted_connections_total counter\n",
		"\nloadlens_accepted_connections_total{port=\"8080\"} 42\n",
		"loadlens_accept_errors_total{port=\"8080\",errno=\"EMFILE\"} 3\n",
		"loadlens_tcp_sockets{state=\"time_wait\"} 100\n",
		"loadlens_ephemeral_ports_in_use{group=\"127.0.0.1->127.0.0.1:8080\"}"
		" 120\n",
		"loadlens_ephemeral_ports_available{group=\"127.0.0.1->127.0.0.1:"
		"8080\"} 28232\n",
		/* label values escaped; an unlimited process has no max_fds sample */
		"loadlens_process_open_fds{pid=\"100\",comm=\"a\\\"b\\\\c\"} 10\n",
		"loadlens_process_max_fds{pid=\"101\",comm=\"srv\"} 1024\n",
		"loadlens_metrics_series_capped{family=\"process\"} 5\n",
		"loadlens_metrics_series_capped{family=\"ephemeral_ports\"} 2\n",
		"loadlens_syscall_failures_total{syscall=\"connect\","
		"errno=\"EADDRNOTAVAIL\"} 9\n",
		/* a histogram: buckets, +Inf, sum in seconds, count */
		"# TYPE loadlens_request_service_seconds histogram\n",
		"loadlens_request_service_seconds_bucket{port=\"8080\",proto=\"tcp\","
		"le=\"0.001\"} 0\n",
		"loadlens_request_service_seconds_bucket{port=\"8080\",proto=\"tcp\","
		"le=\"0.002\"} 5\n",
		"loadlens_request_service_seconds_bucket{port=\"8080\",proto=\"tcp\","
		"le=\"+Inf\"} 5\n",
		"loadlens_request_service_seconds_sum{port=\"8080\",proto=\"tcp\"} "
		"0.0075\n",
		"loadlens_request_service_seconds_count{port=\"8080\",proto=\"tcp\"} "
		"5\n",
		"loadlens_request_socket_queue_seconds_count{",
		"loadlens_request_residence_seconds_count{",
		/* every kind of the contract, 0 when idle; an unknown kind still shows */
		"loadlens_findings{kind=\"port_exhaustion\"} 2\n",
		"loadlens_findings{kind=\"fd_exhaustion\"} 0\n",
		"loadlens_findings{kind=\"brand_new_kind\"} 1\n",
		"loadlens_bpf_program_run_seconds_total{program=\"handle_inet_soc\"}"
		" 1.5\n",
		"loadlens_lost_events_total{source=\"requests\"} 4\n",
		NULL});
	lacks(t, (const char *const[]){
		"loadlens_process_max_fds{pid=\"100\"",
		/* no OpenMetrics-only lines */
		"# EOF",
		"# UNIT",
		NULL});
	page_free(&pg);
}

static void test_openmetrics(void **state)
{
	struct page pg;
	const char *t = render(&pg, OBS_MX_OPENMETRICS), *eof;

	(void)state;
	/* the family is named without _total; its samples with it */
	contains(t, (const char *const[]){
		"# TYPE loadlens_accepted_connections counter\n",
		"\nloadlens_accepted_connections_total{port=\"8080\"} 42\n",
		"# UNIT loadlens_request_service_seconds seconds\n",
		"# UNIT loadlens_bpf_program_run_seconds seconds\n",
		NULL});
	lacks(t, (const char *const[]){"# TYPE loadlens_accepted_connections_total", NULL});
	/* "# EOF" once, the last line */
	eof = strstr(t, "# EOF\n");
	assert_non_null(eof);
	assert_int_equal(eof + 6 - t, (long)pg.b.len);
	page_free(&pg);
}

static void test_quiet_snapshot(void **state)
{
	struct obs_mx_snap *s = calloc(1, sizeof(*s));
	struct obs_mx_buf b = {};

	(void)state;
	strcpy(s->port, "all");
	s->bpf_stats = 0;
	assert_int_equal(obs_mx_render(&b, OBS_MX_PROMETHEUS, s), 0);
	/* no census yet: no socket gauges rather than zeros; no stats: no run time */
	assert_null(strstr(b.p, "loadlens_tcp_sockets"));
	assert_null(strstr(b.p, "loadlens_bpf_program_run_seconds"));
	assert_null(strstr(b.p, "loadlens_request_service_seconds"));
	assert_non_null(strstr(b.p, "loadlens_accepted_connections_total{port=\"all\"} 0\n"));
	assert_non_null(strstr(b.p, "loadlens_bpf_stats_enabled 0\n"));
	obs_mx_buf_free(&b);
	free(s);
}

LL_TEST_MAIN(test_edges_are_bucket_edges, test_buckets_cumulate_ours, test_escape, test_values,
	     test_negotiate, test_prometheus_text, test_openmetrics, test_quiet_snapshot)
