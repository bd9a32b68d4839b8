/* SPDX-License-Identifier: MIT */
/*
 * Which TLS library the target processes use, from their memory maps (/proc/PID/maps): the
 * libssl files the TLS plaintext uprobes attach to (observer/kernel/ssl_probes.c), each once
 * however many processes map it, and the processes that map none (TLS linked into the
 * executable, as Go's crypto/tls, or no TLS at all). Pure parsing apart from the file reads:
 * tests/unit/test_ssl_libs.c runs it on captured maps.
 */
#ifndef LOADLENS_OBSERVER_SOURCES_SSL_LIBS_H
#define LOADLENS_OBSERVER_SOURCES_SSL_LIBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OBS_SSL_LIBS 8 /* distinct libssl files attached to; more are counted, not probed */

/* One libssl file (its device and inode tell copies apart, whatever path names them). */
struct obs_ssl_lib {
	uint64_t ino;
	uint32_t dev_major, dev_minor;
	char path[256];	/* as the first process that maps it names it */
	char open[300]; /* where the observer opens it: /proc/PID/root/PATH */
	uint32_t pid;	/* that process */
	uint32_t procs; /* processes that map it */
};

struct obs_ssl_libs {
	struct obs_ssl_lib lib[OBS_SSL_LIBS];
	size_t nlibs;
	size_t more;	      /* distinct files past OBS_SSL_LIBS */
	size_t procs;	      /* processes looked at */
	size_t without;	      /* of which, mapping no libssl */
	uint32_t without_pid; /* the first of those */
	char without_comm[16];
	size_t unreadable; /* processes whose maps could not be read (gone) */
};

/* One line of /proc/PID/maps: a libssl mapping? Then its file (ino, device, path) in *out and
 * 1; 0 for any other line (anonymous, another file, a deleted file), -1 for a line that is no
 * maps line. */
int obs_ssl_maps_line(const char *line, struct obs_ssl_lib *out);
/* Every line of one process's maps (f): the libssl files it maps, added to libs (pid names
 * it). Returns the number of its lines that were libssl mappings (0: none). */
size_t obs_ssl_libs_scan(struct obs_ssl_libs *libs, FILE *f, uint32_t pid);
/* The processes pids: their /proc/PID/maps, scanned into libs (zeroed first). */
void obs_ssl_libs_find(struct obs_ssl_libs *libs, const uint32_t *pids, size_t npids);
/* No serving process found at start (a server started after the observer): the host's own
 * libssl, where the dynamic loader finds it on Debian and the usual layouts, into libs. Returns
 * 1 if one was found. */
int obs_ssl_libs_host(struct obs_ssl_libs *libs);

#endif /* LOADLENS_OBSERVER_SOURCES_SSL_LIBS_H */
