// SPDX-License-Identifier: MIT
/* The census' walk on a TCP iterator (census_iter.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include "sources/census_tcp_iter.h"
#include "kernel/startup.h"
#include "census.skel.h"

#define READ_BUF (64 * 1024)

/* The thread parked in the target's namespace: it creates each pass's iterator. */
struct ns_thread {
	pthread_t th;
	int netns_fd; /* ours: closed by the thread once entered */
	int link_fd;
	/* pipes: a byte asks (1: an iterator, 0: return), an int answers (an fd or -errno); a
	 * process the observer forks holds the write ends too, so no end-of-file tells it to stop */
	int req[2], resp[2];
};

struct obs_census_iter {
	struct census_bpf *skel;
	struct bpf_link *link;
	struct ns_thread *ns; /* NULL: iterators are created here, in our namespace */
	char buf[READ_BUF]; /* one read of the iterator's records */
};

/*
 * Once in the namespace the thread needs no privilege (an iterator is made from the link's fd),
 * so it keeps only what lets it follow the observer's change of user: glibc applies setgroups
 * and setresuid (obs_run.c) to every thread and aborts the process where one may not follow. With
 * the uid change it loses those too (it never set PR_SET_KEEPCAPS); where the observer keeps
 * its uid (not root, or a kernel that checks privilege on every map read) it keeps at most
 * those two. It can gain nothing by exec.
 */
static int ns_thread_drop(void)
{
	return obs_startup_thread_keep_caps(1ULL << CAP_SETUID | 1ULL << CAP_SETGID);
}

static void *ns_thread_main(void *arg)
{
	struct ns_thread *t = arg;
	int r = 0;
	char b;

	if (setns(t->netns_fd, CLONE_NEWNET))
		r = -errno;
	close(t->netns_fd);
	t->netns_fd = -1;
	if (!r)
		r = ns_thread_drop();
	if (write(t->resp[1], &r, sizeof(r)) != sizeof(r) || r)
		return NULL;
	while (read(t->req[0], &b, 1) == 1 && b) {
		r = bpf_iter_create(t->link_fd);
		if (r < 0)
			r = -errno;
		if (write(t->resp[1], &r, sizeof(r)) != sizeof(r))
			break;
	}
	return NULL;
}

static void ns_thread_free(struct ns_thread *t)
{
	if (!t)
		return;
	if (t->req[1] >= 0) {
		char quit = 0;

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

static struct ns_thread *ns_thread_new(int netns_fd, int link_fd)
{
	struct ns_thread *t = calloc(1, sizeof(*t));
	int err = 0, r;

	if (!t)
		return NULL;
	t->req[0] = t->req[1] = t->resp[0] = t->resp[1] = -1;
	t->link_fd = link_fd;
	t->netns_fd = fcntl(netns_fd, F_DUPFD_CLOEXEC, 0);
	if (t->netns_fd < 0 || pipe2(t->req, O_CLOEXEC) || pipe2(t->resp, O_CLOEXEC)) {
		err = errno;
		goto fail;
	}
	err = pthread_create(&t->th, NULL, ns_thread_main, t);
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
	ns_thread_free(t);
	errno = err;
	return NULL;
}

static int iter_fd(struct obs_census_iter *it)
{
	char b = 1;
	int r;

	if (!it->ns) {
		r = bpf_iter_create(bpf_link__fd(it->link));
		return r < 0 ? -errno : r;
	}
	if (write(it->ns->req[1], &b, 1) != 1 ||
	    read(it->ns->resp[0], &r, sizeof(r)) != sizeof(r))
		return -EIO;
	return r;
}

struct obs_census_iter *obs_census_iter_new(int netns_fd, const uint16_t *ports, size_t nports)
{
	struct obs_census_iter *it = calloc(1, sizeof(*it));
	size_t i;
	int err;

	if (!it)
		return NULL;
	it->skel = census_bpf__open();
	if (!it->skel) {
		err = errno;
		goto fail;
	}
	for (i = 0; i < nports && i < CEN_PORTS; i++) {
		it->skel->rodata->targ_port_bits[ports[i] >> 6] |= 1ULL << (ports[i] & 63);
		it->skel->rodata->targ_port_idx[ports[i]] = (uint8_t)(i + 1);
	}
	it->skel->rodata->targ_all = !nports;
	it->skel->rodata->targ_cookie = obs_startup_tracing_helper_known(
		BPF_FUNC_get_socket_cookie, BPF_TRACE_ITER, "bpf_iter_tcp");
	if (census_bpf__load(it->skel)) {
		err = errno == EINVAL || errno == ENOENT ? ENOTSUP : errno;
		goto fail;
	}
	it->link = bpf_program__attach_iter(it->skel->progs.handle_tcp, NULL);
	if (!it->link) {
		err = errno;
		goto fail;
	}
	if (netns_fd >= 0) {
		it->ns = ns_thread_new(netns_fd, bpf_link__fd(it->link));
		if (!it->ns) {
			err = errno;
			goto fail;
		}
	}
	return it;
fail:
	obs_census_iter_free(it);
	errno = err ? err : EINVAL;
	return NULL;
}

void obs_census_iter_free(struct obs_census_iter *it)
{
	if (!it)
		return;
	ns_thread_free(it->ns);
	bpf_link__destroy(it->link);
	census_bpf__destroy(it->skel);
	free(it);
}

/* Hand each group to the sink and empty the map for the next pass. */
static int drain_groups(struct obs_census_iter *it, const struct obs_census_iter_sink *sink)
{
	int fd = bpf_map__fd(it->skel->maps.cen_groups);
	struct cen_group_key k, next;
	struct cen_group_val v;
	bool first = true;
	int err;

	while (!bpf_map_get_next_key(fd, first ? NULL : &k, &next)) {
		if (!first)
			bpf_map_delete_elem(fd, &k);
		first = false;
		k = next;
		if (!bpf_map_lookup_elem(fd, &k, &v))
			sink->group(sink->arg, &k, &v);
	}
	err = errno == ENOENT ? 0 : -errno;
	if (!first)
		bpf_map_delete_elem(fd, &k);
	return err;
}

int obs_census_iter_walk(struct obs_census_iter *it, const uint64_t *listen_bits, uint32_t lo,
			 uint32_t hi, struct obs_census_iter_counts *out,
			 const struct obs_census_iter_sink *sink)
{
	struct census_bpf__bss *bss = it->skel->bss;
	size_t kept = 0, i;
	ssize_t n;
	int fd, err = 0;

	memcpy(bss->listen_bits, listen_bits, sizeof(bss->listen_bits));
	bss->range_lo = lo;
	bss->range_hi = hi;
	memset(bss->cen_state, 0, sizeof(bss->cen_state));
	bss->cen_sockets = 0;
	memset(bss->cen_port_close_wait, 0, sizeof(bss->cen_port_close_wait));
	memset(bss->cen_port_fin_wait2, 0, sizeof(bss->cen_port_fin_wait2));
	memset(bss->cen_port_time_wait, 0, sizeof(bss->cen_port_time_wait));
	bss->cen_capped = 0;
	fd = iter_fd(it);
	if (fd < 0)
		return fd;
	/* records may straddle two reads: a partial one waits at the buffer's start. A read that
	 * visits 1,000,000 sockets (the kernel's MAX_ITER_OBJECTS) and writes nothing (none to
	 * age) fails with EAGAIN: the walk goes on at the next read, from where it stopped */
	for (;;) {
		n = read(fd, it->buf + kept, READ_BUF - kept);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		kept += (size_t)n;
		for (i = 0; i + sizeof(struct cen_rec) <= kept; i += sizeof(struct cen_rec)) {
			struct cen_rec r;

			memcpy(&r, it->buf + i, sizeof(r));
			sink->rec(sink->arg, &r);
		}
		memmove(it->buf, it->buf + i, kept - i);
		kept -= i;
	}
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	memcpy(out->state, bss->cen_state, sizeof(out->state));
	out->sockets = bss->cen_sockets;
	memcpy(out->close_wait, bss->cen_port_close_wait + 1, sizeof(out->close_wait));
	memcpy(out->fin_wait2, bss->cen_port_fin_wait2 + 1, sizeof(out->fin_wait2));
	memcpy(out->time_wait, bss->cen_port_time_wait + 1, sizeof(out->time_wait));
	out->capped = bss->cen_capped;
	return drain_groups(it, sink);
}
