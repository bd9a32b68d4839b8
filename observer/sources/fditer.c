// SPDX-License-Identifier: MIT
/* fds, executables and network namespaces of processes, from BPF iterators (fditer.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kernel/bpfread.h"
#include "sources/fditer.h"
#include "fdcount.skel.h"

#define TASKS_MAX 65536	     /* processes in the table (32 B each: 2 MiB) */
#define TASKS_FRESH_NS 100000000 /* a table this young answers a lookup */
#define TASKS_RETRY_NS 1000000   /* a miss reads it again if it is older than this */

/* The iterators, each a link on one program of the object. */
enum fditer_link {
	FDITER_FILES, /* every file of every task */
	FDITER_TASKS, /* every task: the table */
	FDITER_FDS,   /* counts from the fd bitmaps (NULL: no bpf_loop before 5.17) */
	FDITER_HOLD,  /* the holders of a port group's sockets (NULL: did not load) */
	FDITER_NLINKS
};

struct obs_fditer {
	struct fdcount_bpf *skel;
	struct bpf_link *link[FDITER_NLINKS];
	struct fdc_task *tab; /* the last task pass, for obs_fditer_task() */
	size_t ntab;
	uint64_t tab_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct obs_fditer *obs_fditer_new(void)
{
	struct obs_fditer *it = calloc(1, sizeof(*it));
	struct bpf_program *progs[FDITER_NLINKS];
	size_t i;
	int err;

	if (!it)
		return NULL;
	/* the bitmap count needs bpf_loop (5.17): where it does not load, every file is visited;
	 * where the holders pass does not, port groups are not attributed to processes */
	for (i = 0; i < 4 && !it->skel; i++) {
		it->skel = fdcount_bpf__open();
		if (!it->skel)
			break;
		bpf_program__set_autoload(it->skel->progs.handle_task_fds, !(i & 1));
		bpf_program__set_autoload(it->skel->progs.handle_task_file_hold, !(i & 2));
		if (fdcount_bpf__load(it->skel)) {
			fdcount_bpf__destroy(it->skel);
			it->skel = NULL;
		}
	}
	if (!it->skel) {
		err = errno == EINVAL || errno == ENOENT ? ENOTSUP : errno;
		goto fail;
	}
	progs[FDITER_FILES] = it->skel->progs.handle_task_file;
	progs[FDITER_TASKS] = it->skel->progs.handle_task;
	progs[FDITER_FDS] = it->skel->progs.handle_task_fds;
	progs[FDITER_HOLD] = it->skel->progs.handle_task_file_hold;
	for (i = 0; i < FDITER_NLINKS; i++) {
		if (!bpf_program__autoload(progs[i]))
			continue; /* not loaded: done without it (above) */
		it->link[i] = bpf_program__attach_iter(progs[i], NULL);
		if (!it->link[i] && i != FDITER_FDS && i != FDITER_HOLD) {
			err = errno;
			goto fail;
		}
	}
	return it;

fail:
	obs_fditer_free(it);
	errno = err ? err : EINVAL;
	return NULL;
}

void obs_fditer_free(struct obs_fditer *it)
{
	size_t i;

	if (!it)
		return;
	free(it->tab);
	for (i = FDITER_NLINKS; i-- > 0;)
		bpf_link__destroy(it->link[i]);
	fdcount_bpf__destroy(it->skel);
	free(it);
}

/* Run an iterator to its end, each record it writes (rec_size bytes) to each(): 0 or -errno. */
static int pass(struct bpf_link *link, size_t rec_size, obs_bpfread_rec_fn each, void *arg)
{
	char buf[4096];
	int fd = bpf_iter_create(bpf_link__fd(link));

	if (fd < 0)
		return -errno;
	return obs_bpfread_iter(fd, buf, sizeof(buf), rec_size, each, arg);
}

int obs_fditer_count(struct obs_fditer *it, const uint32_t *pids, size_t n, int64_t *open)
{
	int mfd = bpf_map__fd(it->skel->maps.fdc_count);
	uint64_t zero = 0, v;
	size_t i;
	int r;

	if (n > FDC_MAX_PROCS)
		n = FDC_MAX_PROCS;
	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(mfd, &pids[i], &zero, BPF_ANY))
			return -errno;
	r = pass(it->link[FDITER_FDS] ? it->link[FDITER_FDS] : it->link[FDITER_FILES], 1, NULL,
		 NULL);
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(mfd, &pids[i], &v))
			v = 0;
		bpf_map_delete_elem(mfd, &pids[i]);
		open[i] = (int64_t)v;
	}
	return r;
}

/* The processes an owners pass found, but ourselves. */
struct owners {
	uint32_t *pids, self;
	size_t max, found;
};

static void owner(void *arg, int fd, const void *key)
{
	struct owners *o = arg;
	uint32_t pid = *(const uint32_t *)key;

	(void)fd;
	if (pid != o->self && o->found < o->max)
		o->pids[o->found++] = pid;
}

size_t obs_fditer_owners(struct obs_fditer *it, const uint64_t *inodes, size_t n, uint32_t *pids,
			 size_t max)
{
	struct owners o = {pids, (uint32_t)getpid(), max, 0};
	int ifd = bpf_map__fd(it->skel->maps.fdc_inodes);
	uint32_t one = 1;
	size_t i;

	if (n > FDC_MAX_INODES)
		n = FDC_MAX_INODES;
	for (i = 0; i < n; i++)
		bpf_map_update_elem(ifd, &inodes[i], &one, BPF_ANY);
	it->skel->bss->want_owners = 1;
	pass(it->link[FDITER_FILES], 1, NULL, NULL);
	it->skel->bss->want_owners = 0;
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(ifd, &inodes[i]);
	obs_bpfread_drain(bpf_map__fd(it->skel->maps.fdc_owners), sizeof(uint32_t), owner, &o);
	return o.found;
}

/* Insert h into out[0..*n) (max), the most sockets first (a listener with none last); what
 * falls off the end goes to rest. */
static void holder_keep(struct obs_fditer_holder *out, size_t *n, size_t max,
			const struct obs_fditer_holder *h, struct obs_fditer_holders_rest *rest)
{
	size_t k;

	for (k = *n; k > 0 && out[k - 1].h.conns < h->h.conns; k--)
		;
	if (k == max) {
		rest->procs += h->h.conns > 0;
		rest->conns += h->h.conns;
		return;
	}
	if (*n == max) {
		rest->procs += out[max - 1].h.conns > 0;
		rest->conns += out[max - 1].h.conns;
	} else {
		(*n)++;
	}
	memmove(&out[k + 1], &out[k], (*n - 1 - k) * sizeof(out[0]));
	out[k] = *h;
}

/* The holders a holders pass found, but ourselves: the most sockets kept, the rest summed. */
struct holders {
	struct obs_fditer_holder *out;
	size_t n, max;
	struct obs_fditer_holders_rest *rest;
	uint32_t self;
};

static void holder(void *arg, int fd, const void *key)
{
	struct holders *hs = arg;
	struct obs_fditer_holders_rest *rest = hs->rest;
	uint32_t key_pid = *(const uint32_t *)key;
	struct obs_fditer_holder h;

	if (key_pid == hs->self || bpf_map_lookup_elem(fd, &key_pid, &h.h))
		return;
	h.pid = key_pid;
	if (h.h.listens) {
		if (!rest->servers++ || key_pid < rest->server_pid) {
			rest->server_pid = key_pid; /* the lowest: a master before its workers */
			memcpy(rest->server_comm, h.h.comm, sizeof(rest->server_comm));
		}
	}
	if (h.h.conns)
		holder_keep(hs->out, &hs->n, hs->max, &h, rest);
}

ssize_t obs_fditer_holders(struct obs_fditer *it, const struct fdc_hold_key *key,
			   struct obs_fditer_holder *out, size_t max,
			   struct obs_fditer_holders_rest *rest)
{
	struct holders hs = {out, 0, max, rest, (uint32_t)getpid()};
	int r;

	memset(rest, 0, sizeof(*rest));
	if (!it->link[FDITER_HOLD])
		return -ENOTSUP;
	it->skel->bss->hold_key = *key;
	it->skel->bss->holders_lost = 0;
	it->skel->bss->holders_lost_procs = 0;
	r = pass(it->link[FDITER_HOLD], 1, NULL, NULL);
	rest->lost = it->skel->bss->holders_lost;
	rest->lost_procs = it->skel->bss->holders_lost_procs;
	/* FDC_MAX_HOLDERS entries at most */
	obs_bpfread_drain(bpf_map__fd(it->skel->maps.fdc_holders), sizeof(uint32_t), holder, &hs);
	return r < 0 ? r : (ssize_t)hs.n;
}

/* The tasks a task pass wrote, as many as out holds; the rest dropped. */
struct tasks {
	struct fdc_task *out;
	size_t n, max;
};

static void task(void *arg, const void *rec)
{
	struct tasks *t = arg;

	if (t->n < t->max)
		memcpy(&t->out[t->n++], rec, sizeof(t->out[0]));
}

ssize_t obs_fditer_tasks(struct obs_fditer *it, struct fdc_task *out, size_t max)
{
	struct tasks t = {out, 0, max};
	int r = pass(it->link[FDITER_TASKS], sizeof(*out), task, &t);

	return r < 0 ? r : (ssize_t)t.n;
}

static int lookup(const struct obs_fditer *it, uint32_t tgid, struct fdc_task *out)
{
	size_t i;

	for (i = 0; i < it->ntab; i++) {
		if (it->tab[i].tgid == tgid) {
			*out = it->tab[i];
			return 0;
		}
	}
	return -ESRCH;
}

int obs_fditer_task(struct obs_fditer *it, uint32_t tgid, struct fdc_task *out)
{
	uint64_t now = now_ns();
	ssize_t n;

	/* one pass answers the lookups of an interval; a miss (a new process) reads it again */
	if (it->tab && now - it->tab_ns < TASKS_FRESH_NS && !lookup(it, tgid, out))
		return 0;
	if (it->tab && now - it->tab_ns < TASKS_RETRY_NS)
		return -ESRCH;
	if (!it->tab && !(it->tab = calloc(TASKS_MAX, sizeof(*it->tab))))
		return -ENOMEM;
	n = obs_fditer_tasks(it, it->tab, TASKS_MAX);
	it->ntab = n > 0 ? (size_t)n : 0;
	it->tab_ns = now;
	if (n < 0)
		return (int)n;
	return lookup(it, tgid, out);
}
