/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the objects' owners (observer/kernel/sockets.c for bpf/sockets.bpf.c,
 * observer/kernel/failures_object.c for bpf/failures.bpf.c): per-CPU array reads, their scratch
 * buffers and skipped runs.
 * No map is read here on its own account; docs/observer.md, "Layout", names each owner.
 */
#ifndef LOADLENS_OBSERVER_BPFREAD_H
#define LOADLENS_OBSERVER_BPFREAD_H

#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>

/*
 * Read keys [0, n) of a per-CPU array map whose values are value_words u64 each, into buf
 * (key-major: key k, CPU i, word w at [(k * ncpu + i) * value_words + w]); buf holds buf_words.
 * One batch call where the kernel has it, else key by key. Returns 0 or a negative errno.
 */
int obs_bpfread_percpu(const struct bpf_map *map, uint32_t n, int ncpu, size_t value_words,
		    uint64_t *buf, size_t buf_words);
/* The same for keys [first, first + n), into buf from its start. */
int obs_bpfread_percpu_from(const struct bpf_map *map, uint32_t first, uint32_t n, int ncpu,
			 size_t value_words, uint64_t *buf, size_t buf_words);
/* Keys [0, n) of a per-CPU array of one u64 each, summed over the ncpu CPUs into out[n];
 * scratch holds scratch_words (n x ncpu at least). Returns 0 or a negative errno. */
int obs_bpfread_percpu_sum(const struct bpf_map *map, uint32_t n, int ncpu, uint64_t *scratch,
			size_t scratch_words, uint64_t *out);
/* A scratch buffer for per-CPU reads: *ncpu = the possible CPUs, *buf = words x *ncpu zeroed u64
 * (the caller frees it). Returns 0, or a negative errno with *buf NULL. */
int obs_bpfread_percpu_scratch(size_t words, int *ncpu, uint64_t **buf);
/* Program runs the kernel skipped (recursion_misses) summed over an object's programs. */
uint64_t obs_bpfread_obj_missed(const struct bpf_object *obj);
/* The same for a list of programs (NULL entries and programs not loaded count 0). */
uint64_t obs_bpfread_progs_missed(struct bpf_program *const *progs, size_t n);

#endif /* LOADLENS_OBSERVER_BPFREAD_H */
