// SPDX-License-Identifier: MIT
/*
 * --trace: per request, the worker's own moments on CLOCK_MONOTONIC (the clock of the observer's
 * trace), so a test can pair each request with the observer's and check that the observer's span
 * holds the server's. Kept in memory per worker (no I/O in the loop), written after the workers
 * have exited; RS_TRACE_MAX a worker, the rest counted in trace_dropped.
 *
 * Over TCP each record also holds the kernel's own transmit moment (tx_ns): a software transmit
 * timestamp (SO_TIMESTAMPING, taken where the device sends the packet; loopback does it inside
 * the write call), read from the socket's error queue as the write call returns. It splits the
 * write call into the part before the transmit, which an observer's span ending at the transmit
 * holds, and the delivery to the peer after it, which it does not.
 */
#include <time.h> /* before linux/errqueue.h, whose struct scm_timestamping holds timespecs */
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include "refserver.h"

struct rs_trace_rec {
	uint64_t read_ns;  /* the last read callback before the service began */
	uint64_t begin_ns; /* the service began (rs_service_begin) */
	uint64_t end_ns;   /* the service ended: the response is about to be written */
	uint64_t sent_ns;  /* the write call returned (0: not written by a call of its own) */
	uint64_t tx_ns;    /* the kernel transmitted its last byte (0: not known) */
};

struct rs_trace {
	struct rs_trace_rec *r;
	size_t n, cap;
	size_t unsent; /* records from here on wait for their write call to return */
	uint64_t read_ns;
};

int rs_trace_init(struct rs_worker *w)
{
	if (!w->cfg->trace_out)
		return 0;
	w->trace = calloc(1, sizeof(*w->trace));
	return w->trace ? 0 : UV_ENOMEM;
}

void rs_trace_free(struct rs_worker *w)
{
	if (w->trace)
		free(w->trace->r);
	free(w->trace);
	w->trace = NULL;
}

void rs_trace_read(struct rs_worker *w)
{
	if (w->trace)
		w->trace->read_ns = rs_now_ns();
}

void rs_trace_served(struct rs_worker *w, uint64_t begin_ns, uint64_t end_ns)
{
	struct rs_trace *t = w->trace;
	struct rs_trace_rec *r;
	size_t cap;

	if (!t)
		return;
	if (t->n == t->cap) {
		cap = t->cap ? t->cap * 2 : 4096;
		if (cap > RS_TRACE_MAX)
			cap = RS_TRACE_MAX;
		r = t->n < cap ? realloc(t->r, cap * sizeof(*r)) : NULL;
		if (!r) {
			w->c.trace_dropped++;
			return;
		}
		t->r = r;
		t->cap = cap;
	}
	t->r[t->n++] = (struct rs_trace_rec){t->read_ns, begin_ns, end_ns, 0, 0};
}

void rs_trace_conn(struct rs_worker *w, int fd)
{
	int v = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
		SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;

	/* Without it the records' tx_ns stay 0 (not known), which a reader must treat as such. */
	if (w->trace)
		(void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &v, sizeof(v));
}

/*
 * The transmit moment of the byte numbered key (counted from 0 since rs_trace_conn), on
 * CLOCK_MONOTONIC, from the socket's error queue, which this empties; 0 when it holds none.
 */
static uint64_t tx_stamp(int fd, uint32_t key)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct scm_timestamping)) +
			 CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6))];
		struct cmsghdr align;
	} ctl;
	struct msghdr m;
	struct cmsghdr *cm;
	const struct scm_timestamping *ts;
	const struct sock_extended_err *ee;
	struct timespec real, mono;
	uint64_t real_ns = 0;

	for (;;) {
		memset(&m, 0, sizeof(m));
		m.msg_control = ctl.buf;
		m.msg_controllen = sizeof(ctl.buf);
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		ts = NULL;
		ee = NULL;
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPING)
				ts = (const void *)CMSG_DATA(cm);
			else if ((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
				 (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR))
				ee = (const void *)CMSG_DATA(cm);
		}
		if (ts && ee && ee->ee_origin == SO_EE_ORIGIN_TIMESTAMPING &&
		    ee->ee_info == SCM_TSTAMP_SND && ee->ee_data == key)
			real_ns = (uint64_t)ts->ts[0].tv_sec * 1000000000ull +
				  (uint64_t)ts->ts[0].tv_nsec;
	}
	if (!real_ns)
		return 0;
	/* the stamp is on CLOCK_REALTIME: moved by the clocks' offset now (well under 1 us off) */
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return real_ns - ((uint64_t)real.tv_sec * 1000000000ull + (uint64_t)real.tv_nsec) +
	       ((uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec);
}

void rs_trace_sent(struct rs_worker *w, int fd, uint64_t bytes)
{
	struct rs_trace *t = w->trace;
	uint64_t now, tx;

	if (!t)
		return;
	/* the write call's return, before the error queue is read (1-2 us) */
	now = rs_now_ns();
	/* emptied at every write: a queue left holding stamps would wake the loop (EPOLLERR) */
	tx = fd >= 0 && bytes ? tx_stamp(fd, (uint32_t)(bytes - 1)) : 0;
	for (; t->unsent < t->n; t->unsent++) {
		t->r[t->unsent].sent_ns = now;
		t->r[t->unsent].tx_ns = tx;
	}
}

int rs_trace_write(FILE *f, const struct rs_worker *workers, unsigned n)
{
	const struct rs_trace *t;
	unsigned i;
	size_t k;

	fprintf(f, "# loadlens-refserver request trace: CLOCK_MONOTONIC ns (docs/refserver.md)\n"
		   "worker,read_ns,begin_ns,end_ns,sent_ns,tx_ns\n");
	for (i = 0; i < n; i++) {
		t = workers[i].trace;
		for (k = 0; t && k < t->n; k++)
			fprintf(f, "%u,%llu,%llu,%llu,%llu,%llu\n", i,
				(unsigned long long)t->r[k].read_ns,
				(unsigned long long)t->r[k].begin_ns,
				(unsigned long long)t->r[k].end_ns,
				(unsigned long long)t->r[k].sent_ns,
				(unsigned long long)t->r[k].tx_ns);
	}
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}
