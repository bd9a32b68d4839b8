/* SPDX-License-Identifier: MIT */
/*
 * Where in a libssl the TLS uprobes go, so that each SSL call costs the kernel's cheap path.
 *
 * Why: a uprobe replaces the probed instruction with a breakpoint. On x86-64 the kernel emulates
 * a few instructions (a push of a register, a call or jump to a fixed address) and steps any
 * other out of line, which takes a second trap. In a virtual machine that second trap is the
 * cost: 12.7 us a call on this project's build host against 0.43 us at an emulated push
 * (BENCHMARKS.md, "Observer: TLS plaintext"). Debian's OpenSSL 3 begins SSL_read, SSL_read_ex,
 * SSL_write and SSL_write_ex with "sub $N,%rsp", which is stepped; each of them calls an inner
 * function (ssl_read_internal, ssl_write_internal: the _ex convention, the byte count through a
 * pointer) that begins with pushes.
 *
 * So, for each pair of wrappers (SSL_read and SSL_read_ex; SSL_write and SSL_write_ex): where
 * both call the same function near their start (a call rel32 in their first bytes) and its first
 * instruction is emulated, that one function is probed, with the _ex programs; one probe then
 * covers both wrappers, and what else in the library calls it (its BIO's reads and writes).
 * Otherwise each function is probed at its entry, past an endbr64 (which changes no register
 * and no stack: the return address is still where a return probe looks for it).
 *
 * The byte scan is a heuristic, checked twice over: the call must be common to two wrappers
 * and land on an emulated instruction. Anything else falls back to the entries, as before,
 * with the cost said. Pure functions (unit-tested on Debian's bytes: tests/unit/test_ssl_sites.c)
 * and one reader of the library's ELF file.
 */
#ifndef LOADLENS_OBSERVER_KERNEL_SSL_SITES_H
#define LOADLENS_OBSERVER_KERNEL_SSL_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bytes of a wrapper scanned for its call of the inner function. */
#define OBS_SSL_SCAN 96

/* x86-64: the kernel emulates the instruction at code (it is not stepped out of line). */
bool obs_x86_emulated(const uint8_t *code, size_t len);
/* x86-64: where to probe a function whose code begins at code: past an endbr64 (4), else 0. */
size_t obs_x86_entry_skip(const uint8_t *code, size_t len);
/*
 * x86-64: the target of a call rel32 found in both a (at address va) and b (at vb) in their first
 * OBS_SSL_SCAN bytes, the first such in a; 0 if none. A byte scan: a call is any 0xe8 byte, so
 * each target is a candidate only, which the caller checks.
 */
uint64_t obs_x86_common_call(const uint8_t *a, size_t alen, uint64_t va, const uint8_t *b,
			     size_t blen, uint64_t vb);

/* The functions probed, in the order of the BPF programs (observer/kernel/ssl_probes.c). */
enum obs_ssl_fn {
	OBS_SSL_READ,
	OBS_SSL_READ_EX,
	OBS_SSL_WRITE,
	OBS_SSL_WRITE_EX,
	OBS_SSL_HANDSHAKE,
	OBS_SSL_FNS
};

/* Where one function is probed. */
struct obs_ssl_site {
	uint64_t offset;  /* file offset of the probed instruction (0: not found) */
	bool emulated;	  /* the kernel emulates it */
	bool inner;	  /* the inner function of a wrapper pair, probed with the _ex program */
	bool skip;	  /* covered by its pair's inner function: not probed itself */
};

struct obs_ssl_sites {
	struct obs_ssl_site fn[OBS_SSL_FNS];
	size_t emulated;  /* probes at emulated instructions */
	size_t stepped;	  /* probes stepped out of line */
};

/* One wrapper pair's decision, pure: the wrappers' code and addresses (vaddr), and the inner
 * candidate's first bytes (at *inner, filled by the caller from obs_x86_common_call's answer;
 * NULL: none). Sets the pair's two sites' emulated/inner/skip (not offsets). */
void obs_ssl_pair_plan(struct obs_ssl_site *a, struct obs_ssl_site *b, const uint8_t *acode,
		       const uint8_t *bcode, const uint8_t *inner, size_t inner_len);

/* "N probes at instructions the kernel emulates[, ...inner functions]; M stepped out of line: a
 * second trap a call" into buf, for probes at emulated and stepped sites, inner wrapper pairs
 * probed at their inner function (the summary's and --check's words). */
void obs_ssl_sites_text(size_t emulated, size_t stepped, size_t inner, char *buf, size_t len);

/*
 * Reads the library at path (an ELF file) and fills sites: each function's site and whether it
 * is emulated; entries: each function at its own entry (past an endbr64), no inner function.
 * x86-64 only (elsewhere, and where the file cannot be read, each function at its symbol:
 * offset 0 and the caller attaches by name). 0, or a negative errno.
 */
int obs_ssl_sites_find(const char *path, bool entries, struct obs_ssl_sites *sites);

#endif /* LOADLENS_OBSERVER_KERNEL_SSL_SITES_H */
