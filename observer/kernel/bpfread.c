// SPDX-License-Identifier: MIT
/* Per-CPU array reads and program statistics, for the objects' owners (bpfread.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "kernel/bpfread.h"

int obs_bpfread_percpu_from(const struct bpf_map *map, uint32_t first, uint32_t n, int ncpu,
			 size_t value_words, uint64_t *buf, size_t buf_words)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	size_t stride = value_words * (size_t)ncpu;
	int fd = bpf_map__fd(map);
	uint32_t out_batch, count = n, k, before = first - 1, *keys;
	int err;

	if ((size_t)n * stride > buf_words)
		return -EOVERFLOW;
	/* a batch starts after the key it is given (none: at key 0); the kernel writes the keys
	 * back, so it needs room for them (without it: EFAULT, and one call per key below) */
	keys = malloc((size_t)n * sizeof(*keys));
	if (keys) {
		err = bpf_map_lookup_batch(fd, first ? &before : NULL, &out_batch, keys, buf,
					   &count, &opts);
		free(keys);
		if ((!err || err == -ENOENT) && count == n)
			return 0;
	}
	for (k = 0; k < n; k++) {
		uint32_t key = first + k;

		if (bpf_map_lookup_elem(fd, &key, buf + (size_t)k * stride))
			return -errno;
	}
	return 0;
}

int obs_bpfread_percpu(const struct bpf_map *map, uint32_t n, int ncpu, size_t value_words,
		    uint64_t *buf, size_t buf_words)
{
	return obs_bpfread_percpu_from(map, 0, n, ncpu, value_words, buf, buf_words);
}

int obs_bpfread_percpu_scratch(size_t words, int *ncpu, uint64_t **buf)
{
	*buf = NULL;
	*ncpu = libbpf_num_possible_cpus();
	if (*ncpu <= 0)
		return *ncpu ? *ncpu : -EINVAL;
	*buf = calloc(words * (size_t)*ncpu, sizeof(uint64_t));
	return *buf ? 0 : -ENOMEM;
}

int obs_bpfread_percpu_sum(const struct bpf_map *map, uint32_t n, int ncpu, uint64_t *scratch,
			size_t scratch_words, uint64_t *out)
{
	uint32_t k;
	int i, err;

	err = obs_bpfread_percpu(map, n, ncpu, 1, scratch, scratch_words);
	if (err)
		return err;
	for (k = 0; k < n; k++) {
		const uint64_t *v = scratch + (size_t)k * ncpu;

		out[k] = 0;
		for (i = 0; i < ncpu; i++)
			out[k] += v[i];
	}
	return 0;
}

uint64_t obs_bpfread_progs_missed(struct bpf_program *const *progs, size_t n)
{
	struct bpf_prog_info info;
	uint64_t missed = 0;
	uint32_t len;
	size_t i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = progs[i] ? bpf_program__fd(progs[i]) : -1;
		len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			missed += info.recursion_misses;
	}
	return missed;
}

uint64_t obs_bpfread_obj_missed(const struct bpf_object *obj)
{
	struct bpf_program *p, *progs[64];
	size_t n = 0;

	bpf_object__for_each_program(p, obj)
	{
		if (n < sizeof(progs) / sizeof(progs[0]))
			progs[n++] = p;
	}
	return obs_bpfread_progs_missed(progs, n);
}
