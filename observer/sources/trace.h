/* SPDX-License-Identifier: MIT */
/*
 * --trace FILE: a thread that drains the request-timing ring buffer into a CSV file, one sampled
 * request per line, on CLOCK_MONOTONIC (format in docs/observer/request-timing.md, "--trace").
 */
#ifndef LOADLENS_OBSERVER_SOURCES_TRACE_H
#define LOADLENS_OBSERVER_SOURCES_TRACE_H

#include <stdint.h>
#include <stdio.h>

struct obs_trace;

/* Takes ownership of out (closed by obs_trace_free). Returns NULL and sets errno. */
struct obs_trace *obs_trace_new(int ringbuf_fd, FILE *out, uint32_t every);
/* Stop the thread, drain what is left, close the file; the counts stay readable. */
void obs_trace_stop(struct obs_trace *t);
/* obs_trace_stop() if not done, then free. NULL is a no-op. */
void obs_trace_free(struct obs_trace *t);
uint64_t obs_trace_written(const struct obs_trace *t);
/* Lines that could not be written (I/O error on the file). */
uint64_t obs_trace_write_errors(const struct obs_trace *t);
/* errno of the first failed write, 0 if none: every record from then on counts as an error. */
int obs_trace_error(const struct obs_trace *t);

#endif /* LOADLENS_OBSERVER_SOURCES_TRACE_H */
