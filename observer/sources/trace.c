// SPDX-License-Identifier: MIT
/* --trace: drain the ring buffer of sampled request records into a CSV file, in its own thread. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "loadlens/parse.h"
#include "loadlens/reqtime.h"
#include "sources/poll_thread.h"
#include "sources/trace.h"

#define POLL_MS 100

struct obs_trace {
	struct ring_buffer *rb;
	FILE *out;
	struct obs_poll_thread reader;
	atomic_uint_least64_t written;
	atomic_uint_least64_t errors;
	atomic_int first_err; /* errno of the first failed write (0: none): later records are lost */
};

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void addr(const uint8_t *a, uint16_t family, uint16_t port, char *buf, size_t len)
{
	ll_format_ip(family == 10 ? AF_INET6 : AF_INET, a, port, buf, len);
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int on_rec(void *ctx, void *data, size_t size)
{
	struct obs_trace *t = ctx;
	const struct rt_trace_rec *r = data;
	char local[64], peer[64];
	uint64_t start;
	int n;

	if (size < sizeof(*r))
		return 0;
	if (atomic_load(&t->first_err)) {
		atomic_fetch_add(&t->errors, 1);
		return 0;
	}
	addr(r->saddr, r->family, r->sport, local, sizeof(local));
	if (r->udp && !r->dport)
		strcpy(peer, "-");
	else
		addr(r->daddr, r->family, r->dport, peer, sizeof(peer));
	start = r->accept_ns > r->arrival_ns ? r->accept_ns : r->arrival_ns;
	n = fprintf(t->out, "%s,%s,%s,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
		    r->udp ? "udp" : "tcp", local, peer, r->tgid, (unsigned long long)r->arrival_ns,
		    (unsigned long long)r->accept_ns, (unsigned long long)r->read_ns,
		    (unsigned long long)r->write_ns,
		    (unsigned long long)(r->arrival_ns ? sub0(r->read_ns, start) : 0),
		    (unsigned long long)sub0(r->write_ns, r->read_ns),
		    (unsigned long long)(r->arrival_ns ? sub0(r->write_ns, r->arrival_ns) : 0));
	if (n < 0 || ferror(t->out)) {
		atomic_store(&t->first_err, errno ? errno : EIO);
		atomic_fetch_add(&t->errors, 1);
	} else
		atomic_fetch_add(&t->written, 1);
	return 0;
}

/* Records do not wake us (bpf/req_rec.bpf.h) until the ring is half full: wait up to POLL_MS
 * for that, then take whatever came. */
static void step(void *arg)
{
	struct obs_trace *t = arg;

	if (ring_buffer__poll(t->rb, POLL_MS) <= 0)
		ring_buffer__consume(t->rb);
}

struct obs_trace *obs_trace_new(int ringbuf_fd, FILE *out, uint32_t every)
{
	struct obs_trace *t = calloc(1, sizeof(*t));
	int err;

	if (!t) {
		err = -ENOMEM;
		goto cleanup;
	}
	t->out = out;
	t->rb = ring_buffer__new(ringbuf_fd, on_rec, t, NULL);
	if (!t->rb) {
		err = -errno;
		goto cleanup;
	}
	fprintf(out, "# loadlens-observer request trace: 1 request in %u per CPU\n", every);
	fprintf(out, "# clock CLOCK_MONOTONIC ns; realtime_minus_monotonic_ns=%lld\n",
		(long long)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC)));
	fprintf(out, "proto,local,peer,tgid,arrival_ns,accept_ns,read_ns,write_ns,queue_ns,"
		     "service_ns,residence_ns\n");
	err = obs_poll_thread_start(&t->reader, step, t);
	if (err)
		goto cleanup;
	return t;

cleanup:
	if (t) {
		ring_buffer__free(t->rb);
		free(t);
	}
	errno = -err;
	return NULL;
}

void obs_trace_stop(struct obs_trace *t)
{
	if (!t)
		return;
	if (obs_poll_thread_stop(&t->reader))
		ring_buffer__consume(t->rb); /* what came since the thread's last poll */
	if (t->out && fclose(t->out)) {
		if (!atomic_load(&t->first_err))
			atomic_store(&t->first_err, errno ? errno : EIO);
		atomic_fetch_add(&t->errors, 1);
	}
	t->out = NULL;
}

void obs_trace_free(struct obs_trace *t)
{
	if (!t)
		return;
	obs_trace_stop(t);
	ring_buffer__free(t->rb);
	free(t);
}

uint64_t obs_trace_written(const struct obs_trace *t)
{
	return t ? atomic_load(&((struct obs_trace *)t)->written) : 0;
}

uint64_t obs_trace_write_errors(const struct obs_trace *t)
{
	return t ? atomic_load(&((struct obs_trace *)t)->errors) : 0;
}

int obs_trace_error(const struct obs_trace *t)
{
	return t ? atomic_load(&((struct obs_trace *)t)->first_err) : 0;
}
