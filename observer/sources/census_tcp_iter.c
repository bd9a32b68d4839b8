// SPDX-License-Identifier: MIT
/* The census' walk on a TCP iterator (census_iter.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sources/census_tcp_iter.h"
#include "kernel/iter_ns.h"
#include "kernel/startup.h"
#include "census.skel.h"

#define READ_BUF (64 * 1024)

struct obs_census_iter {
	struct census_bpf *skel;
	struct bpf_link *link;
	struct obs_iter_ns *ns; /* makes each pass's iterator, in the target's namespace */
	char buf[READ_BUF]; /* one read of the iterator's records */
};

static int iter_fd(struct obs_census_iter *it)
{
	return obs_iter_ns_create(it->ns, 0);
}

struct obs_census_iter *obs_census_iter_new(int netns_fd, const uint16_t *ports, size_t nports)
{
	struct obs_census_iter *it = calloc(1, sizeof(*it));
	size_t i;
	int err, link_fd;

	if (!it)
		return NULL;
	it->skel = census_bpf__open();
	if (!it->skel) {
		err = errno;
		goto fail;
	}
	for (i = 0; i < nports && i < CEN_PORTS; i++) {
		it->skel->rodata->targ_port_bits[ports[i] >> 6] |= 1ULL << (ports[i] & 63);
		it->skel->rodata->targ_port_idx[ports[i]] = (uint8_t)(i + 1);
	}
	it->skel->rodata->targ_all = !nports;
	it->skel->rodata->targ_cookie = obs_startup_tracing_helper_known(
		BPF_FUNC_get_socket_cookie, BPF_TRACE_ITER, "bpf_iter_tcp");
	if (census_bpf__load(it->skel)) {
		err = errno == EINVAL || errno == ENOENT ? ENOTSUP : errno;
		goto fail;
	}
	it->link = bpf_program__attach_iter(it->skel->progs.handle_tcp, NULL);
	if (!it->link) {
		err = errno;
		goto fail;
	}
	link_fd = bpf_link__fd(it->link);
	it->ns = obs_iter_ns_new(netns_fd, &link_fd, 1);
	if (!it->ns) {
		err = errno;
		goto fail;
	}
	return it;
fail:
	obs_census_iter_free(it);
	errno = err ? err : EINVAL;
	return NULL;
}

void obs_census_iter_free(struct obs_census_iter *it)
{
	if (!it)
		return;
	obs_iter_ns_free(it->ns);
	bpf_link__destroy(it->link);
	census_bpf__destroy(it->skel);
	free(it);
}

/* Hand each group to the sink and empty the map for the next pass. */
static int drain_groups(struct obs_census_iter *it, const struct obs_census_iter_sink *sink)
{
	int fd = bpf_map__fd(it->skel->maps.cen_groups);
	struct cen_group_key k, next;
	struct cen_group_val v;
	bool first = true;
	int err;

	while (!bpf_map_get_next_key(fd, first ? NULL : &k, &next)) {
		if (!first)
			bpf_map_delete_elem(fd, &k);
		first = false;
		k = next;
		if (!bpf_map_lookup_elem(fd, &k, &v))
			sink->group(sink->arg, &k, &v);
	}
	err = errno == ENOENT ? 0 : -errno;
	if (!first)
		bpf_map_delete_elem(fd, &k);
	return err;
}

int obs_census_iter_walk(struct obs_census_iter *it, const uint64_t *listen_bits, uint32_t lo,
			 uint32_t hi, struct obs_census_iter_counts *out,
			 const struct obs_census_iter_sink *sink)
{
	struct census_bpf__bss *bss = it->skel->bss;
	size_t kept = 0, i;
	ssize_t n;
	int fd, err = 0;

	memcpy(bss->listen_bits, listen_bits, sizeof(bss->listen_bits));
	bss->range_lo = lo;
	bss->range_hi = hi;
	memset(bss->cen_state, 0, sizeof(bss->cen_state));
	bss->cen_sockets = 0;
	memset(bss->cen_port_close_wait, 0, sizeof(bss->cen_port_close_wait));
	memset(bss->cen_port_fin_wait2, 0, sizeof(bss->cen_port_fin_wait2));
	memset(bss->cen_port_time_wait, 0, sizeof(bss->cen_port_time_wait));
	bss->cen_capped = 0;
	fd = iter_fd(it);
	if (fd < 0)
		return fd;
	/* records may straddle two reads: a partial one waits at the buffer's start. A read that
	 * visits 1,000,000 sockets (the kernel's MAX_ITER_OBJECTS) and writes nothing (none to
	 * age) fails with EAGAIN: the walk goes on at the next read, from where it stopped */
	for (;;) {
		n = read(fd, it->buf + kept, READ_BUF - kept);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		kept += (size_t)n;
		for (i = 0; i + sizeof(struct cen_rec) <= kept; i += sizeof(struct cen_rec)) {
			struct cen_rec r;

			memcpy(&r, it->buf + i, sizeof(r));
			sink->rec(sink->arg, &r);
		}
		memmove(it->buf, it->buf + i, kept - i);
		kept -= i;
	}
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	memcpy(out->state, bss->cen_state, sizeof(out->state));
	out->sockets = bss->cen_sockets;
	memcpy(out->close_wait, bss->cen_port_close_wait + 1, sizeof(out->close_wait));
	memcpy(out->fin_wait2, bss->cen_port_fin_wait2 + 1, sizeof(out->fin_wait2));
	memcpy(out->time_wait, bss->cen_port_time_wait + 1, sizeof(out->time_wait));
	out->capped = bss->cen_capped;
	return drain_groups(it, sink);
}
