/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * What every BPF iterator program here shares (bpf/fdcount.bpf.c's task and task_file
 * iterators, bpf/census.bpf.c's tcp iterator): the context's meta, read by name (CO-RE; the
 * vmlinux.h here does not carry the iterators' context types), whose seq_file the programs
 * write their records to with bpf_seq_write().
 */
#ifndef LOADLENS_ITER_BPF_H
#define LOADLENS_ITER_BPF_H

#include "maps.bpf.h"

struct seq_file;

struct bpf_iter_meta___ll {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

#endif /* LOADLENS_ITER_BPF_H */
