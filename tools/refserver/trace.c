// SPDX-License-Identifier: MIT
/*
 * --trace: per request, the worker's own moments on CLOCK_MONOTONIC (the clock of the observer's
 * trace), so a test can pair each request with the observer's and check that the observer's span
 * holds the server's. Kept in memory per worker (no I/O in the loop), written after the workers
 * have exited; RS_TRACE_MAX a worker, the rest counted in trace_dropped.
 */
#include <stdlib.h>
#include "refserver.h"

struct rs_trace_rec {
	uint64_t read_ns;  /* the last read callback before the service began */
	uint64_t begin_ns; /* the service began (rs_service_begin) */
	uint64_t end_ns;   /* the service ended: the response is about to be written */
	uint64_t sent_ns;  /* the write call returned (0: not written by a call of its own) */
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
	t->r[t->n++] = (struct rs_trace_rec){t->read_ns, begin_ns, end_ns, 0};
}

void rs_trace_sent(struct rs_worker *w)
{
	struct rs_trace *t = w->trace;
	uint64_t now;

	if (!t || t->unsent == t->n)
		return;
	now = rs_now_ns();
	for (; t->unsent < t->n; t->unsent++)
		t->r[t->unsent].sent_ns = now;
}

int rs_trace_write(FILE *f, const struct rs_worker *workers, unsigned n)
{
	const struct rs_trace *t;
	unsigned i;
	size_t k;

	fprintf(f, "# loadlens-refserver request trace: CLOCK_MONOTONIC ns (docs/refserver.md)\n"
		   "worker,read_ns,begin_ns,end_ns,sent_ns\n");
	for (i = 0; i < n; i++) {
		t = workers[i].trace;
		for (k = 0; t && k < t->n; k++)
			fprintf(f, "%u,%llu,%llu,%llu,%llu\n", i,
				(unsigned long long)t->r[k].read_ns,
				(unsigned long long)t->r[k].begin_ns,
				(unsigned long long)t->r[k].end_ns,
				(unsigned long long)t->r[k].sent_ns);
	}
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}
