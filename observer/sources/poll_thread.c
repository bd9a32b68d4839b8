// SPDX-License-Identifier: MIT
/* A thread that runs one step until it is stopped (poll_thread.h). */
#include "sources/poll_thread.h"

static void *run(void *arg)
{
	struct obs_poll_thread *t = arg;

	while (!atomic_load(&t->stop))
		t->step(t->arg);
	return NULL;
}

int obs_poll_thread_start(struct obs_poll_thread *t, void (*step)(void *arg), void *arg)
{
	int err;

	t->step = step;
	t->arg = arg;
	err = -pthread_create(&t->thread, NULL, run, t);
	if (!err)
		t->started = true;
	return err;
}

bool obs_poll_thread_stop(struct obs_poll_thread *t)
{
	if (!t->started)
		return false;
	atomic_store(&t->stop, true);
	pthread_join(t->thread, NULL);
	t->started = false;
	return true;
}
