// SPDX-License-Identifier: MIT
/* The TcpExt counters of /proc/net/netstat: the one parser of that file. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sources/proc_netstat.h"

/* the TcpExt counters kept, by name */
static const struct {
	const char *name;
	size_t off; /* of its uint64_t in struct obs_netstat */
} kept[] = {
	{"ListenOverflows", offsetof(struct obs_netstat, listen_overflows)},
	{"ListenDrops", offsetof(struct obs_netstat, listen_drops)},
	{"TCPReqQFullDrop", offsetof(struct obs_netstat, reqq_full_drop)},
	{"TCPTimeWaitOverflow", offsetof(struct obs_netstat, tw_overflow)},
};

int obs_proc_netstat_parse(char *text, struct obs_netstat *out)
{
	char *names = NULL, *vals = NULL, *line, *save = NULL, *n, *v, *sn, *sv;
	size_t i;

	memset(out, 0, sizeof(*out));
	/* pairs of lines: "TcpExt: Name Name ..." then "TcpExt: value value ..." */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "TcpExt:", 7))
			continue;
		if (!names) {
			names = line + 7;
			continue;
		}
		vals = line + 7;
		break;
	}
	if (!names || !vals)
		return -ENOENT;
	for (n = strtok_r(names, " ", &sn), v = strtok_r(vals, " ", &sv); n && v;
	     n = strtok_r(NULL, " ", &sn), v = strtok_r(NULL, " ", &sv))
		for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
			if (!strcmp(n, kept[i].name))
				*(uint64_t *)((char *)out + kept[i].off) = strtoull(v, NULL, 10);
	out->ok = 1;
	return 0;
}

int obs_proc_netstat_read(int fd, struct obs_netstat *out)
{
	static char buf[16384];
	ssize_t len;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return -ENOENT;
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	if (len <= 0)
		return len ? -errno : -EIO;
	buf[len] = '\0';
	return obs_proc_netstat_parse(buf, out);
}
