/* SPDX-License-Identifier: MIT */
/*
 * Whether an HPACK header block refers to its connection's dynamic table (RFC 7541, section 6):
 * an indexed field, or a literal's name, at an index past the static table's 61. Read from the
 * block's representations alone, no table: the observer counts a slot's blocks that refer to none
 * before it reads their :status in the kernel (include/loadlens/h2.h, "Blocks read in the kernel").
 * Pure; tests/unit/test_h2_status.c.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_HPACK_REFS_H
#define LOADLENS_OBSERVER_SOURCES_HPACK_REFS_H

#include <stddef.h>
#include <stdint.h>

/* 1: the len bytes at p refer to the dynamic table; 0: they do not; -1: they are no whole HPACK
 * block (cut, an index 0, an integer over 2^28). */
int obs_hpack_refers(const uint8_t *p, size_t len);

#endif /* LOADLENS_OBSERVER_SOURCES_HPACK_REFS_H */
