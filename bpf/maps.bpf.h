/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * BTF-style map definitions in one line each, for the maps that name only their type, bound, key
 * and value (a map with flags, or a ring buffer, spells its struct out).
 */
#ifndef LOADLENS_MAPS_BPF_H
#define LOADLENS_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

/* name: a map of mtype holding at most max values of vtype, keyed by ktype */
#define LL_MAP(name, mtype, max, ktype, vtype)                                                     \
	struct {                                                                                   \
		__uint(type, mtype);                                                               \
		__uint(max_entries, max);                                                          \
		__type(key, ktype);                                                                \
		__type(value, vtype);                                                              \
	} name SEC(".maps")

#endif /* LOADLENS_MAPS_BPF_H */
