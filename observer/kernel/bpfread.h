/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the objects' owners (observer/kernel/sockets.c for bpf/sockets.bpf.c,
 * observer/kernel/failures_object.c for bpf/failures.bpf.c, observer/sources/census_tcp_iter.c
 * for bpf/census.bpf.c, observer/sources/fditer.c for bpf/fdcount.bpf.c): per-CPU array reads,
 * their scratch buffers and skipped runs, hash maps emptied key by key, iterators read to their
 * end.
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

#define OBS_BPFREAD_KEY_MAX 64 /* the largest key obs_bpfread_drain() takes, in bytes */

/* A key of the map fd being drained (aligned for any key type). */
typedef void (*obs_bpfread_key_fn)(void *arg, int fd, const void *key);
/* Hand each key of a hash map (key_size bytes) to each(), deleting it once the next one is known:
 * the map is left empty but for keys added meanwhile. Returns 0 or a negative errno. */
int obs_bpfread_drain(int fd, size_t key_size, obs_bpfread_key_fn each, void *arg);

/* A record an iterator wrote (rec_size bytes, not aligned). */
typedef void (*obs_bpfread_rec_fn)(void *arg, const void *rec);
/*
 * Read an iterator's fd to its end, then close it. Each record of rec_size bytes goes to each()
 * (buf: len bytes, at least rec_size, where a record that straddles two reads waits); with no
 * each(), what the iterator writes is dropped. A read that visits 1,000,000 objects (the kernel's
 * MAX_ITER_OBJECTS) and writes nothing fails with EAGAIN: the walk goes on at the next read, from
 * where it stopped. Returns 0 or a negative errno.
 */
int obs_bpfread_iter(int fd, void *buf, size_t len, size_t rec_size, obs_bpfread_rec_fn each,
		     void *arg);

#endif /* LOADLENS_OBSERVER_BPFREAD_H */
