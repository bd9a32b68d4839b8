// SPDX-License-Identifier: MIT
/*
 * A scrape's read of request timing (bpf/req.bpf.h's maps), slimmer than the interval's
 * obs_reqtime_read(): the per-slot counters, the global counters, and of the histograms only
 * the three the exposition shows (socket queue, service, residence), and only for slots that
 * timed something. The other histograms are not read: a scrape costs 3 of 6 x 4096 per-CPU
 * counters per active slot, and nothing for an idle one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfread.h"
#include "metrics_src.h"
#include "reqtime.h"
#include "sockets.skel.h"

#define X__SHOWN 3 /* RT_QUEUE, RT_SERVICE, RT_RESIDENCE: the first three of each slot */

_Static_assert(RT_QUEUE == 0 && RT_SERVICE == 1 && RT_RESIDENCE == 2,
	       "the histograms a scrape shows are the first three of a slot");

/* Keys [start, start + n) of a per-CPU array of u64 into buf (n x ncpu), in one batch. */
static int x__range(int fd, uint32_t start, uint32_t n, int ncpu, uint64_t *buf, uint32_t *keys)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t in = start - 1, out, count = n, k;
	int err;

	/* the batch resumes after its in_batch key */
	err = bpf_map_lookup_batch(fd, start ? &in : NULL, &out, keys, buf, &count, &opts);
	if ((!err || err == -ENOENT) && count == n)
		return 0;
	for (k = 0; k < n; k++) {
		uint32_t key = start + k;

		if (bpf_map_lookup_elem(fd, &key, buf + (size_t)k * ncpu))
			return -errno;
	}
	return 0;
}

int obs_mx_reqtime_read(struct sockets_bpf *skel, struct obs_reqtime_stats *st)
{
	const size_t words = sizeof(struct rt_ctrs) / 8, nb = (size_t)X__SHOWN * LL_HIST_BUCKETS;
	int ncpu = libbpf_num_possible_cpus(), i, err = 0;
	uint64_t *buf = NULL, *o, sum;
	uint32_t *keys = NULL;
	size_t k, c, b, len;
	bool busy;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	len = nb > st->nslots * words ? nb : st->nslots * words;
	len = len > RT_G_MAX ? len : RT_G_MAX;
	buf = malloc(len * (size_t)ncpu * sizeof(*buf));
	keys = malloc(len * sizeof(*keys));
	if (!buf || !keys) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* counters per slot, summed over CPUs (first/last/max are not shown: left as sums) */
	err = obs_read_percpu(skel->maps.ctrs, (uint32_t)st->nslots, ncpu, words, buf,
			      len * (size_t)ncpu);
	if (err)
		goto cleanup;
	for (k = 0; k < st->nslots; k++) {
		o = (uint64_t *)&st->slot[k].c;
		memset(o, 0, sizeof(st->slot[k].c));
		for (i = 0; i < ncpu; i++)
			for (c = 0; c < words; c++)
				o[c] += buf[(k * (size_t)ncpu + (size_t)i) * words + c];
	}
	err = obs_read_percpu(skel->maps.global, RT_G_MAX, ncpu, 1, buf, len * (size_t)ncpu);
	if (err)
		goto cleanup;
	for (k = 0; k < RT_G_MAX; k++)
		for (st->global[k] = 0, i = 0; i < ncpu; i++)
			st->global[k] += buf[k * (size_t)ncpu + (size_t)i];
	for (k = 0; k < st->nslots; k++) {
		const struct rt_ctrs *ct = &st->slot[k].c;

		busy = ct->requests || ct->sum_ns[RT_QUEUE] || ct->sum_ns[RT_SERVICE] ||
		       ct->sum_ns[RT_RESIDENCE];
		if (!busy) {
			for (c = 0; c < X__SHOWN; c++)
				memset(st->slot[k].hist[c], 0, sizeof(st->slot[k].hist[c]));
			continue;
		}
		err = x__range(bpf_map__fd(skel->maps.hists),
			       (uint32_t)(k * RT_NCOMP * LL_HIST_BUCKETS), (uint32_t)nb, ncpu, buf,
			       keys);
		if (err)
			goto cleanup;
		for (b = 0; b < nb; b++) {
			for (sum = 0, i = 0; i < ncpu; i++)
				sum += buf[b * (size_t)ncpu + (size_t)i];
			st->slot[k].hist[b / LL_HIST_BUCKETS][b % LL_HIST_BUCKETS] = sum;
		}
	}
	{
		struct bpf_program *progs[] = {
			skel->progs.handle_sk_data_ready,    skel->progs.handle_sock_recv_length,
			skel->progs.handle_sock_send_length, skel->progs.handle_sched_wakeup,
			skel->progs.handle_sched_wakeup_new, skel->progs.handle_sched_switch,
		};

		st->missed = obs_progs_missed(progs, sizeof(progs) / sizeof(progs[0]));
	}

cleanup:
	free(keys);
	free(buf);
	return err;
}
