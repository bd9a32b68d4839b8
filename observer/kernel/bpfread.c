// SPDX-License-Identifier: MIT
/* Per-CPU array reads, program statistics, hash maps drained and iterators read, for the
 * objects' owners (bpfread.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

int obs_bpfread_drain(int fd, size_t key_size, obs_bpfread_key_fn each, void *arg)
{
	uint64_t key[OBS_BPFREAD_KEY_MAX / 8], next[OBS_BPFREAD_KEY_MAX / 8];
	bool first = true;
	int err;

	if (key_size > sizeof(key))
		return -E2BIG;
	while (!bpf_map_get_next_key(fd, first ? NULL : key, next)) {
		if (!first)
			bpf_map_delete_elem(fd, key);
		first = false;
		memcpy(key, next, key_size);
		each(arg, fd, key);
	}
	err = errno == ENOENT ? 0 : -errno;
	if (!first)
		bpf_map_delete_elem(fd, key);
	return err;
}

int obs_bpfread_iter(int fd, void *buf, size_t len, size_t rec_size, obs_bpfread_rec_fn each,
		     void *arg)
{
	char *b = buf;
	size_t kept = 0, i;
	ssize_t n;
	int err = 0;

	for (;;) {
		n = read(fd, b + kept, len - kept);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		if (!each)
			continue;
		kept += (size_t)n;
		for (i = 0; i + rec_size <= kept; i += rec_size)
			each(arg, b + i);
		memmove(b, b + i, kept - i);
		kept -= i;
	}
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}
