// SPDX-License-Identifier: MIT
/* The TcpExt counters of /proc/net/netstat: the one parser of that file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sources/proc_netstat.h"

int obs_proc_netstat_parse(char *text, struct obs_netstat *out)
{
	char *names = NULL, *vals = NULL, *line, *save = NULL, *n, *v, *sn, *sv;

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
	     n = strtok_r(NULL, " ", &sn), v = strtok_r(NULL, " ", &sv)) {
		uint64_t x = strtoull(v, NULL, 10);

		if (!strcmp(n, "ListenOverflows"))
			out->listen_overflows = x;
		else if (!strcmp(n, "ListenDrops"))
			out->listen_drops = x;
		else if (!strcmp(n, "TCPReqQFullDrop"))
			out->reqq_full_drop = x;
		else if (!strcmp(n, "TCPTimeWaitOverflow"))
			out->tw_overflow = x;
	}
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
