// SPDX-License-Identifier: MIT
/* The watched network namespace: --netns, and the netns_outside check (netns.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/nsfs.h>
#include "loadlens/cli.h"
#include "loadlens/parse.h"
#include "sources/netns.h"

int obs_netns_apply(const char *prog, const char *spec, struct obs_targets *t)
{
	char path[300];
	uint64_t pid;
	struct stat st;
	int fd, err;

	if (!ll_parse_u64(spec, 1, UINT32_MAX, &pid))
		snprintf(path, sizeof(path), "/proc/%llu/ns/net", (unsigned long long)pid);
	else
		snprintf(path, sizeof(path), "%s", spec);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		ll_warn(prog, "--netns '%s': cannot open %s: %s", spec, path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		close(fd);
		ll_warn(prog, "--netns '%s': %s is not a network namespace", spec, path);
		return -EINVAL;
	}
	if (t->netns_fd >= 0)
		close(t->netns_fd);
	t->netns_fd = fd;
	t->netns = (uint32_t)st.st_ino;
	snprintf(t->netns_from, sizeof(t->netns_from), "--netns %.50s", spec);
	return 0;
}

uint32_t obs_netns_of(uint32_t pid)
{
	char path[64];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/net");
	return stat(path, &st) ? 0 : (uint32_t)st.st_ino;
}

bool obs_netns_outside(uint32_t pid, uint32_t watched)
{
	uint32_t n = obs_netns_of(pid);

	return n && watched && n != watched;
}

size_t obs_netns_check_targets(const char *prog, const struct obs_targets *t)
{
	size_t i, n = 0;
	uint32_t ns;

	for (i = 0; i < t->npids; i++) {
		if (!obs_netns_outside(t->pids[i], t->netns))
			continue;
		ns = obs_netns_of(t->pids[i]);
		ll_warn(prog, "note: netns: %s (pid %u) lives in net:[%u], not in the watched "
			      "net:[%u]: its sockets are not observed here", t->comms[i],
			t->pids[i], ns, t->netns);
		n++;
	}
	return n;
}
