// SPDX-License-Identifier: MIT
/* Which libssl files the target processes map: /proc/PID/maps, parsed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "sources/ssl_libs.h"
#include "sources/targets.h"

/* Is the file name (the path's last part) OpenSSL's libssl: libssl.so, libssl.so.3,
 * libssl.so.1.1? (NSS's libssl3.so is another library: no SSL_read in it.) */
static bool libssl_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libssl.so", 9) && (base[9] == '\0' || base[9] == '.');
}

int obs_ssl_maps_line(const char *line, struct obs_ssl_lib *out)
{
	unsigned long long lo, hi, off, ino;
	unsigned int maj, min;
	char perms[8];
	int pos = 0;
	const char *path;
	size_t len;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj, &min,
		   &ino, &pos) != 7 || !pos)
		return -1;
	path = line + pos;
	while (*path == ' ')
		path++;
	if (*path != '/' || !ino)
		return 0;
	len = strcspn(path, "\n");
	if (len >= sizeof(out->path))
		return 0;
	/* a file replaced since it was mapped ("(deleted)") cannot be opened to attach to */
	if (len > 10 && !strncmp(path + len - 10, " (deleted)", 10))
		return 0;
	memcpy(out->path, path, len);
	out->path[len] = '\0';
	if (!libssl_name(out->path))
		return 0;
	out->ino = ino;
	out->dev_major = maj;
	out->dev_minor = min;
	return 1;
}

size_t obs_ssl_libs_scan(struct obs_ssl_libs *libs, FILE *f, uint32_t pid)
{
	struct obs_ssl_lib l;
	char line[512];
	size_t i, n = 0;
	bool counted[OBS_SSL_LIBS] = {false}, extra = false;

	while (fgets(line, sizeof(line), f)) {
		/* a line longer than the buffer: its rest is read as a line, and is no maps line */
		memset(&l, 0, sizeof(l));
		if (obs_ssl_maps_line(line, &l) != 1)
			continue;
		n++;
		for (i = 0; i < libs->nlibs; i++)
			if (libs->lib[i].ino == l.ino && libs->lib[i].dev_major == l.dev_major &&
			    libs->lib[i].dev_minor == l.dev_minor)
				break;
		if (i == libs->nlibs) {
			if (libs->nlibs == OBS_SSL_LIBS) {
				if (!extra)
					libs->more++;
				extra = true;
				continue;
			}
			l.pid = pid;
			snprintf(l.open, sizeof(l.open), "/proc/%" PRIu32 "/root%s", pid, l.path);
			libs->lib[libs->nlibs++] = l;
		}
		if (!counted[i]) {
			counted[i] = true;
			libs->lib[i].procs++;
		}
	}
	return n;
}

void obs_ssl_libs_find(struct obs_ssl_libs *libs, const uint32_t *pids, size_t npids)
{
	char path[64];
	size_t i;
	FILE *f;

	memset(libs, 0, sizeof(*libs));
	for (i = 0; i < npids; i++) {
		snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pids[i]);
		f = fopen(path, "re");
		if (!f) {
			libs->unreadable++;
			continue;
		}
		libs->procs++;
		if (!obs_ssl_libs_scan(libs, f, pids[i])) {
			if (!libs->without++) {
				libs->without_pid = pids[i];
				obs_targets_pid_comm(pids[i], libs->without_comm,
					     sizeof(libs->without_comm));
			}
		}
		fclose(f);
	}
}

/* Debian's multiarch directory of this build's architecture */
#if defined(__aarch64__)
#define SSL_MULTIARCH "aarch64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SSL_MULTIARCH "powerpc64le-linux-gnu"
#else
#define SSL_MULTIARCH "x86_64-linux-gnu"
#endif

int obs_ssl_libs_host(struct obs_ssl_libs *libs)
{
	static const char *const paths[] = {
		"/usr/lib/" SSL_MULTIARCH "/libssl.so.3", "/lib/" SSL_MULTIARCH "/libssl.so.3",
		"/usr/lib64/libssl.so.3", "/usr/lib/libssl.so.3",
		"/usr/lib/" SSL_MULTIARCH "/libssl.so.1.1", "/usr/lib64/libssl.so.1.1",
	};
	struct obs_ssl_lib *l;
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		/* the first that exists: /usr/lib and /lib are one directory on a merged /usr */
		if (stat(paths[i], &st) || !S_ISREG(st.st_mode) || libs->nlibs == OBS_SSL_LIBS)
			continue;
		l = &libs->lib[libs->nlibs++];
		memset(l, 0, sizeof(*l));
		l->ino = st.st_ino;
		l->dev_major = major(st.st_dev);
		l->dev_minor = minor(st.st_dev);
		snprintf(l->path, sizeof(l->path), "%s", paths[i]);
		snprintf(l->open, sizeof(l->open), "%s", paths[i]);
		return 1;
	}
	return 0;
}
