/* SPDX-License-Identifier: MIT */
/*
 * A thread that runs one step (wait a while for records, then handle them) until it is stopped:
 * the reader of h2_status.c's ring buffer and of trace.c's.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_POLL_THREAD_H
#define LOADLENS_OBSERVER_SOURCES_POLL_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct obs_poll_thread {
	void (*step)(void *arg);
	void *arg;
	pthread_t thread;
	bool started;
	atomic_bool stop;
};

/* Run step(arg) over and over on a new thread (t zeroed before). Returns 0 or a negative errno. */
int obs_poll_thread_start(struct obs_poll_thread *t, void (*step)(void *arg), void *arg);
/* Stop the thread after its current step and join it. True where one was running (what it left
 * unread is the caller's to drain), false where none was. */
bool obs_poll_thread_stop(struct obs_poll_thread *t);

#endif /* LOADLENS_OBSERVER_SOURCES_POLL_THREAD_H */
