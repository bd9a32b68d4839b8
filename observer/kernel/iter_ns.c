// SPDX-License-Identifier: MIT
/* BPF iterators in a target's network namespace (iter_ns.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/capability.h>
#include "kernel/iter_ns.h"
#include "kernel/startup.h"

struct obs_iter_ns {
	pthread_t th;
	bool thread; /* false: no namespace, iterators made in the caller's */
	int netns_fd; /* ours: closed by the thread once entered */
	int links[OBS_ITER_NS_LINKS];
	size_t nlinks;
	/* pipes: a byte asks (i + 1: an iterator of link i, 0: return), an int answers (an fd or
	 * -errno); a process the observer forks holds the write ends too, so no end-of-file tells
	 * it to stop */
	int req[2], resp[2];
};

/*
 * Once in the namespace the thread needs no privilege (an iterator is made from a link's fd),
 * so it keeps only what lets it follow the observer's change of user: glibc applies setgroups
 * and setresuid (obs_run.c) to every thread and aborts the process where one may not follow. With
 * the uid change it loses those too (it never set PR_SET_KEEPCAPS); where the observer keeps
 * its uid (not root, or a kernel that checks privilege on every map read) it keeps at most
 * those two. It can gain nothing by exec.
 */
static int thread_drop(void)
{
	return obs_startup_thread_keep_caps(1ULL << CAP_SETUID | 1ULL << CAP_SETGID);
}

static int create(const struct obs_iter_ns *t, size_t i)
{
	int r;

	if (i >= t->nlinks)
		return -EINVAL;
	r = bpf_iter_create(t->links[i]);
	return r < 0 ? -errno : r;
}

static void *thread_main(void *arg)
{
	struct obs_iter_ns *t = arg;
	int r = 0;
	uint8_t b;

	if (setns(t->netns_fd, CLONE_NEWNET))
		r = -errno;
	close(t->netns_fd);
	t->netns_fd = -1;
	if (!r)
		r = thread_drop();
	if (write(t->resp[1], &r, sizeof(r)) != sizeof(r) || r)
		return NULL;
	while (read(t->req[0], &b, 1) == 1 && b) {
		r = create(t, (size_t)b - 1);
		if (write(t->resp[1], &r, sizeof(r)) != sizeof(r))
			break;
	}
	return NULL;
}

void obs_iter_ns_free(struct obs_iter_ns *t)
{
	if (!t)
		return;
	if (t->req[1] >= 0) {
		uint8_t quit = 0;

		if (write(t->req[1], &quit, 1) == 1)
			pthread_join(t->th, NULL);
		else
			pthread_detach(t->th);
		close(t->req[1]);
	}
	if (t->netns_fd >= 0)
		close(t->netns_fd);
	if (t->req[0] >= 0)
		close(t->req[0]);
	if (t->resp[0] >= 0)
		close(t->resp[0]);
	if (t->resp[1] >= 0)
		close(t->resp[1]);
	free(t);
}

struct obs_iter_ns *obs_iter_ns_new(int netns_fd, const int *link_fds, size_t nlinks)
{
	struct obs_iter_ns *t;
	int err = 0, r;
	size_t i;

	if (nlinks > OBS_ITER_NS_LINKS) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->req[0] = t->req[1] = t->resp[0] = t->resp[1] = t->netns_fd = -1;
	for (i = 0; i < nlinks; i++)
		t->links[i] = link_fds[i];
	t->nlinks = nlinks;
	if (netns_fd < 0)
		return t;
	t->thread = true;
	t->netns_fd = fcntl(netns_fd, F_DUPFD_CLOEXEC, 0);
	if (t->netns_fd < 0 || pipe2(t->req, O_CLOEXEC) || pipe2(t->resp, O_CLOEXEC)) {
		err = errno;
		goto fail;
	}
	err = pthread_create(&t->th, NULL, thread_main, t);
	if (err) {
		close(t->req[1]);
		t->req[1] = -1; /* no thread to join */
		goto fail;
	}
	if (read(t->resp[0], &r, sizeof(r)) != sizeof(r))
		r = -EIO;
	if (r) {
		err = -r;
		goto fail;
	}
	return t;
fail:
	obs_iter_ns_free(t);
	errno = err;
	return NULL;
}

int obs_iter_ns_create(struct obs_iter_ns *t, size_t i)
{
	uint8_t b = (uint8_t)(i + 1);
	int r;

	if (!t->thread)
		return create(t, i);
	if (write(t->req[1], &b, 1) != 1 || read(t->resp[0], &r, sizeof(r)) != sizeof(r))
		return -EIO;
	return r;
}
