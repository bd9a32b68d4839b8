/* SPDX-License-Identifier: MIT */
/*
 * TLS plaintext (bpf/req_ssl.bpf.h) from userspace: whether this kernel and build can have it
 * (uprobes, x86-64), its programs in the socket object's plan, and the uprobes on the libssl
 * files the target processes map (observer/sources/ssl_libs.c finds them), one attach per file
 * and function: it covers every process mapping that file, those started later included (with
 * --pid alone: one per file, function and target process, covering those only).
 */
#ifndef LOADLENS_OBSERVER_KERNEL_SSL_PROBES_H
#define LOADLENS_OBSERVER_KERNEL_SSL_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct obs_sockets;
struct obs_ssl_probes;

/* A libssl file to attach to: where to open it (/proc/PID/root/PATH), and its name. */
struct obs_ssl_file {
	const char *open;
	const char *path;
};

/* Can uprobes be had here? false with the reason in why (the kernel has no uprobe event
 * source, not x86-64, or LOADLENS_OBSERVER_NO_UPROBES set: the tests' way to see a kernel
 * without them, or the compat programs of a kernel before 5.12). */
bool obs_ssl_probes_possible(const struct obs_sockets *conn, char *why, size_t len);
/* Before load: the uprobe programs load (on) or not; their maps sized (off: smallest). */
void obs_ssl_probes_plan(struct obs_sockets *conn, bool on);
/* Attached, privileged: uprobes on each libssl (SSL_read, SSL_read_ex, SSL_write,
 * SSL_write_ex, SSL_do_handshake, entries and returns) of files, at the sites ssl_sites.h picks
 * (each wrapper pair at its inner function where the kernel emulates its first instruction:
 * LOADLENS_OBSERVER_SSL_ENTRIES, each function at its entry), and pids (the processes found
 * serving) put in the BPF side's process table. scoped (with pids: the --pid targets, a set that
 * does not grow): each probe attached for each of pids, so that the kernel puts its breakpoint
 * in their memory only, and other processes mapping the file pay nothing; else one probe a site
 * for every process. NULL and errno (ENOMEM). Files where an attach failed are said in why of
 * the result (obs_ssl_probes_text). */
struct obs_ssl_probes *obs_ssl_probes_attach(struct obs_sockets *conn,
					     const struct obs_ssl_file *files, size_t nfiles,
					     const uint32_t *pids, size_t npids, bool scoped);
void obs_ssl_probes_free(struct obs_ssl_probes *p);
/* Files with the uprobes attached. */
size_t obs_ssl_probes_count(const struct obs_ssl_probes *p);
/* "uprobes on libssl at PATH[, PATH...]" or why there are none, for the summary and JSON. */
const char *obs_ssl_probes_text(const struct obs_ssl_probes *p);
/* Runs the kernel skipped of the uprobe programs. */
uint64_t obs_ssl_probes_missed(struct obs_sockets *conn);

#endif /* LOADLENS_OBSERVER_KERNEL_SSL_PROBES_H */
